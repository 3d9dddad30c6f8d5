#!/usr/bin/env bash
# bench/batch.sh — commands over many sessions at once, where per-session
# work that grows with the whole folder shows (stop 32: redact compiled its
# rules once a session; a 2.0.x project read every agent file for every
# session).
#
#   bash bench/batch.sh      # N=1000 LEGACY=300 AGENTS=5 RUNS=3 ROOT=/tmp/ccsurgeon-batch-bench
#
# 1. N generated sessions of 100 KB in one project folder (cmd/gensession):
#    'redact-secrets --all --dry-run', 'validate --all' and, on a copy made
#    before each run, 'strip-thinking --all --force' (every session written).
# 2. A 2.0.x project of LEGACY sessions with AGENTS agent-*.jsonl each beside
#    them, made from testdata's 2.0.50 subagent session (its id and the
#    agent's replaced): 'validate --all'.
# Each RUNS times under /usr/bin/time (wall, user, system, peak RSS). BIN=PATH
# runs that ccsurgeon binary (another commit's, for a before/after) instead
# of building this tree.
set -euo pipefail
N=${N:-1000}
LEGACY=${LEGACY:-300}
AGENTS=${AGENTS:-5}
RUNS=${RUNS:-3}
ROOT=${ROOT:-/tmp/ccsurgeon-batch-bench}
cd "$(dirname "$0")/.."
mkdir -p "$ROOT"
BIN=${BIN:-$ROOT/ccsurgeon}
[ "$BIN" != "$ROOT/ccsurgeon" ] || go build -o "$BIN" .
many="$ROOT/many-$N"
if [ ! -d "$many/projects" ]; then
	go run ./cmd/gensession -sessions "$N" -size 100KB -seed 1 -o "$many" >/dev/null
fi
legacy="$ROOT/legacy-$LEGACY-$AGENTS"
if [ ! -d "$legacy/projects" ]; then
	src=testdata/sessions/2.0.50/subagent.jsonl
	agent=$(ls testdata/sessions/2.0.50/subagent/agent-*.jsonl | head -1)
	old=$(grep -o '"sessionId":"[^"]*"' "$src" | head -1 | cut -d'"' -f4)
	aid=$(basename "$agent" .jsonl)
	aid=${aid#agent-}
	p="$legacy/projects/-p"
	mkdir -p "$p"
	for i in $(seq "$LEGACY"); do
		sid=$(printf '00000000-0000-4000-8000-%012d' "$i")
		sed "s/$old/$sid/g" "$src" >"$p/$sid.jsonl"
		for k in $(seq "$AGENTS"); do
			nid=$(printf '%04d%04d' "$i" "$k")
			sed -e "s/$old/$sid/g" -e "s/$aid/$nid/g" "$agent" >"$p/agent-$nid.jsonl"
		done
	done
	touch -d '1 hour ago' "$p"/*
fi
echo "$(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure() {
	local label=$1
	shift
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f "$label, run $i: %e s wall, %U s user, %S s system, %M KB peak RSS" "$@" >/dev/null 2>"$ROOT/err" || true
		tail -1 "$ROOT/err"
	done
}
echo "$N sessions, $(du -sh "$many" | cut -f1):"
measure "redact-secrets --all --dry-run" "$BIN" --config-dir "$many" -q redact-secrets --all --dry-run
measure "validate --all" "$BIN" --config-dir "$many" -q validate --all
# a change written to every session (each run on a fresh copy, made and
# synced before the timer: backups and all)
for i in $(seq "$RUNS"); do
	rm -rf "$ROOT/write"
	cp -a "$many" "$ROOT/write"
	sync
	/usr/bin/time -f "strip-thinking --all --force, run $i: %e s wall, %U s user, %S s system, %M KB peak RSS" "$BIN" --config-dir "$ROOT/write" -q strip-thinking --all --force >/dev/null 2>"$ROOT/err" || true
	tail -1 "$ROOT/err"
done
rm -rf "$ROOT/write"
echo "2.0.x project, $LEGACY sessions and $((LEGACY * AGENTS)) agent files:"
measure "validate --all" "$BIN" --config-dir "$legacy" -q validate --all
