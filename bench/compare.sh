#!/usr/bin/env bash
# bench/compare.sh OLD NEW — one run of each command of a fixed list with two
# builds of ccsurgeon, one after the other, on the 300 MB sessions that
# bench/run.sh generates (generated here when missing, same seed): wall
# seconds, CPU seconds (user + system) and peak RSS of each, as a markdown
# table. The before → after table of BENCHMARKS.md comes from it.
#
#   git worktree add /tmp/old REV && (cd /tmp/old && go build -o /tmp/ccs-old .)
#   go build -o /tmp/ccs-new . && bash bench/compare.sh /tmp/ccs-old /tmp/ccs-new
#
# Environment: ROOT (/tmp/ccsurgeon-bench), SEED (1).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD NEW" >&2; exit 2; }
OLD=$1 NEW=$2
cd "$(dirname "$0")/.." || exit 2
ROOT=${ROOT:-/tmp/ccsurgeon-bench}
SEED=${SEED:-1}
mkdir -p "$ROOT"
go build -o "$ROOT/gensession" ./bench/gensession || exit 1
list=(
	"agentic info"
	"agentic compress-old-turns -o"
	"agentic repair --dry-run"
	"chain info"
	"chain clone -o"
	"chain fork-at-turn 84111 -o"
	"chain compress-old-turns -o"
	"bulk clone -o"
	"dense redact-secrets -o"
	"dense-secrets redact-secrets -o"
	"secrets redact-secrets -o"
	"secrets turns --json"
)
echo "| shape | command | wall s (old → new) | CPU s (old → new) | peak RSS MB (old → new) |"
echo "| --- | --- | --- | --- | --- |"
for item in "${list[@]}"; do
	read -r -a w <<<"$item"
	shape=${w[0]} name=${w[1]}
	args=("${w[@]:2}")
	out=()
	if [ ${#args[@]} -gt 0 ] && [ "${args[-1]}" = "-o" ]; then
		unset 'args[-1]'
		out=(-o "$ROOT/compare-out.jsonl")
	fi
	dir=$ROOT/s-$shape-300MB-seed$SEED
	if [ ! -s "$dir/.id" ]; then
		rm -rf "$dir" "$dir.tmp"
		id=$("$ROOT/gensession" -shape "$shape" -size 300MB -seed "$SEED" -o "$dir.tmp") || exit 1
		mv "$dir.tmp" "$dir" && echo "$id" >"$dir/.id"
	fi
	id=$(cat "$dir/.id")
	cat "$dir/projects/-bench/$id.jsonl" >/dev/null
	cells=()
	for bin in "$OLD" "$NEW"; do
		rm -f "$ROOT/compare-out.jsonl"
		/usr/bin/time -o "$ROOT/compare.time" -f "%e %U %S %M" "$bin" --config-dir "$dir" -q "$name" "$id" "${args[@]}" "${out[@]}" >/dev/null 2>&1
		cells+=("$(tail -1 "$ROOT/compare.time")")
	done
	rm -f "$ROOT/compare-out.jsonl"
	read -r e0 u0 s0 m0 <<<"${cells[0]}"
	read -r e1 u1 s1 m1 <<<"${cells[1]}"
	label=$name
	[ ${#args[@]} -gt 0 ] && label="$label ${args[*]}"
	[ ${#out[@]} -gt 0 ] && label="$label -o"
	awk -v sh="$shape" -v c="$label" -v e0="$e0" -v e1="$e1" -v c0="$(echo "$u0 + $s0" | bc)" -v c1="$(echo "$u1 + $s1" | bc)" -v m0="$m0" -v m1="$m1" \
		'BEGIN { printf "| %s 300 MB | `%s` | %.2f → %.2f | %.1f → %.1f | %d → %d |\n", sh, c, e0, e1, c0, c1, m0/1024, m1/1024 }'
done
