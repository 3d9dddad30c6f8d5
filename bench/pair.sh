#!/usr/bin/env bash
# bench/pair.sh OLD NEW SHAPE COMMAND [PAIRS] — one command of bench/run.sh
# timed with two builds of ccsurgeon in turn, on a fresh copy of the
# session bench/run.sh generated for SHAPE (e.g. dense-300MB, chain1M; run
# bench/run.sh for it first). COMMAND is one of
#   move            move ID --to DIR
#   clone           clone ID (as a new session, beside it)
#   repair-dry-run  repair ID --dry-run (reads only: run on the generated
#                   session itself, no copy and no rest; exit 1, problems
#                   left that repair cannot fix, is a run like any other)
# Each run of move or clone copies the config dir (`cp -a`, so the session is in the page
# cache), syncs, leaves the disk idle REST seconds (15), then runs the
# command and prints "BUILD SECONDS". The copies are kept until the end (a
# removal frees inodes the next run's creates would pay for) and removed
# then.
#
#   git worktree add /tmp/old REV && (cd /tmp/old && go build -o /tmp/ccs-old .)
#   go build -o /tmp/ccs-new . && bash bench/pair.sh /tmp/ccs-old /tmp/ccs-new dense-300MB clone 3
#
# Environment: ROOT (/tmp/ccsurgeon-bench), SEED (1), REST (15).
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: $0 OLD NEW SHAPE move|clone|repair-dry-run [PAIRS]" >&2; exit 2; }
OLD=$1 NEW=$2 SHAPE=$3 COMMAND=$4 PAIRS=${5:-3}
case $COMMAND in move | clone | repair-dry-run) ;; *) echo "$0: COMMAND is move, clone or repair-dry-run, not $COMMAND" >&2; exit 2 ;; esac
ROOT=${ROOT:-/tmp/ccsurgeon-bench}
SRC=$ROOT/s-$SHAPE-seed${SEED:-1}
[ -d "$SRC/projects/-bench" ] || { echo "$SRC: no generated session (run: bash bench/run.sh ${SHAPE/-/:})" >&2; exit 2; }
ID=$(basename "$(ls "$SRC"/projects/-bench/*.jsonl | head -1)" .jsonl)
WORK=$(mktemp -d "$ROOT/pair.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
for ((i = 0; i < PAIRS; i++)); do
	for bin in "$OLD" "$NEW"; do
		d=$(mktemp -d "$WORK/c.XXXXXX")
		cfg=$SRC
		if [ "$COMMAND" != repair-dry-run ]; then
			cfg=$d/cfg
			cp -a "$SRC" "$cfg"
			sync
			sleep "${REST:-15}"
		fi
		args=(clone "$ID")
		[ "$COMMAND" = move ] && args=(move "$ID" --to "$d/project")
		[ "$COMMAND" = repair-dry-run ] && args=(repair "$ID" --dry-run)
		s=$(date +%s.%N)
		"$bin" --config-dir "$cfg" --json -q "${args[@]}" >"$d/out" 2>&1
		rc=$?
		if [ $rc -ne 0 ] && ! [ "$COMMAND" = repair-dry-run ] || [ $rc -gt 1 ]; then
			echo "$bin failed:" >&2
			cat "$d/out" >&2
			exit 1
		fi
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" -v b="$bin" 'BEGIN{printf "%s %.3f\n", b, e-s}'
	done
done
