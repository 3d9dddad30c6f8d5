#!/usr/bin/env bash
# bench/doctor.sh — 'ccsurgeon doctor' over a config dir of 1,000 generated
# sessions (issue 32: "1,000 sessions in seconds").
#
#   bash bench/doctor.sh            # N=1000 SIZE=100KB RUNS=3 ROOT=/tmp/ccsurgeon-doctor-bench
#
# Generates the sessions with cmd/gensession (seed 1; cached in ROOT), builds
# ccsurgeon, runs 'doctor --json' RUNS times under /usr/bin/time and prints
# wall, user and system time and peak RSS of each run, then what was found.
set -euo pipefail
N=${N:-1000}
SIZE=${SIZE:-100KB}
RUNS=${RUNS:-3}
ROOT=${ROOT:-/tmp/ccsurgeon-doctor-bench}
cd "$(dirname "$0")/.."
cfg="$ROOT/cfg-$N-$SIZE"
if [ ! -d "$cfg/projects" ]; then
	go run ./cmd/gensession -sessions "$N" -size "$SIZE" -seed 1 -o "$cfg" >/dev/null
fi
go build -o "$ROOT/ccsurgeon" .
echo "sessions: $(find "$cfg/projects" -name '*.jsonl' -maxdepth 2 | wc -l), $(du -sh "$cfg" | cut -f1); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for i in $(seq "$RUNS"); do
	/usr/bin/time -f "run $i: %e s wall, %U s user, %S s system, %M KB peak RSS" \
		"$ROOT/ccsurgeon" --config-dir "$cfg" doctor --json >"$ROOT/doctor.json" || true
done
python3 -c "import json,collections,sys; r=json.load(open(sys.argv[1])); print(r['sessions'],'sessions;',dict(collections.Counter(f['kind'] for f in r['findings'])))" "$ROOT/doctor.json"
