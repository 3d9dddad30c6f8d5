#!/usr/bin/env bash
# scripts/compare-moves.sh OLD NEW — move every main session of
# testdata/sessions and of the corpus ($CCSURGEON_CORPUS, default
# ../shared/corpus) with two builds of ccsurgeon, each into its own copy of
# one config dir, and report each session whose moved tree (diff -r of
# projects/) or `--json` report (the config dir's path and the backups'
# times aside) or exit code differs. A change to how move writes that is
# meant to keep what it writes should report "0 differ". Exits 1 when any
# session differs.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD NEW" >&2; exit 2; }
OLD=$1 NEW=$2
cd "$(dirname "$0")/.." || exit 2
corpus=${CCSURGEON_CORPUS:-../shared/corpus}
[ -d "$corpus" ] || { echo "note: $corpus not found (set CCSURGEON_CORPUS): testdata/sessions only" >&2; corpus=; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
n=0 ok=0 bad=0
while IFS= read -r f; do
	id=$(basename "$f" .jsonl)
	[[ $id =~ ^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$ ]] || continue
	for v in O N; do
		rm -rf "${W:?}/$v"
		mkdir -p "$W/$v/projects/-src-p"
		cp -a "$f" "$W/$v/projects/-src-p/"
		[ ! -d "$(dirname "$f")/$id" ] || cp -a "$(dirname "$f")/$id" "$W/$v/projects/-src-p/"
	done
	"$OLD" --config-dir "$W/O" --json -q move "$id" --to "$W/target" >"$W/O.out" 2>&1
	echo "exit $?" >>"$W/O.out"
	"$NEW" --config-dir "$W/N" --json -q move "$id" --to "$W/target" >"$W/N.out" 2>&1
	echo "exit $?" >>"$W/N.out"
	n=$((n + 1))
	grep -q '^exit 0$' "$W/N.out" && ok=$((ok + 1))
	sed -i "s|$W/[ON]|CFG|g; s/[0-9]\{8\}T[0-9]\{6\}\.[0-9]*Z/STAMP/g" "$W/O.out" "$W/N.out"
	if ! diff -r "$W/O/projects" "$W/N/projects" >/dev/null || ! cmp -s "$W/O.out" "$W/N.out"; then
		bad=$((bad + 1))
		echo "differs: $f"
		diff -r "$W/O/projects" "$W/N/projects" | head -3
		diff "$W/O.out" "$W/N.out" | head -5
	fi
done < <( (find testdata/sessions -name '*.jsonl' -not -path '*/subagents/*'
	[ -z "$corpus" ] || find "$corpus" -name '*.jsonl' -not -path '*/subagents/*') | sort)
echo "$n sessions moved by both builds ($ok moved, the rest refused alike), $bad differ"
[ $bad = 0 ]
