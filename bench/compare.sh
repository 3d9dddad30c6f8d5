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
# Environment: ROOT (/tmp/ccsurgeon-bench), SEED (1), RUNS (1: runs of each
# build, OLD and NEW in turn; the table gives the median of each column).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD NEW" >&2; exit 2; }
OLD=$1 NEW=$2
cd "$(dirname "$0")/.." || exit 2
ROOT=${ROOT:-/tmp/ccsurgeon-bench}
SEED=${SEED:-1}
RUNS=${RUNS:-1}
mkdir -p "$ROOT"
# median of the numbers given
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
go build -o "$ROOT/gensession" ./cmd/gensession || exit 1
list=(
	"agentic info"
	"secrets info"
	"chain turns"
	"damaged repair --dry-run"
	"dense drop-tool-calls --tool Bash -o"
	"damaged drop-tool-calls --tool Bash -o"
	"dense compress-old-turns -o"
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
	E0=() C0=() M0=() E1=() C1=() M1=()
	for ((r = 0; r < RUNS; r++)); do
		for k in 0 1; do
			bin=$OLD
			[ $k = 1 ] && bin=$NEW
			rm -f "$ROOT/compare-out.jsonl"
			/usr/bin/time -o "$ROOT/compare.time" -f "%e %U %S %M" "$bin" --config-dir "$dir" -q "$name" "$id" "${args[@]}" "${out[@]}" >/dev/null 2>&1
			read -r e u s m <<<"$(tail -1 "$ROOT/compare.time")"
			c=$(echo "$u + $s" | bc)
			if [ $k = 0 ]; then E0+=("$e") C0+=("$c") M0+=("$m"); else E1+=("$e") C1+=("$c") M1+=("$m"); fi
		done
	done
	rm -f "$ROOT/compare-out.jsonl"
	e0=$(median "${E0[@]}") e1=$(median "${E1[@]}")
	c0=$(median "${C0[@]}") c1=$(median "${C1[@]}")
	m0=$(median "${M0[@]}") m1=$(median "${M1[@]}")
	label=$name
	[ ${#args[@]} -gt 0 ] && label="$label ${args[*]}"
	[ ${#out[@]} -gt 0 ] && label="$label -o"
	awk -v sh="$shape" -v c="$label" -v e0="$e0" -v e1="$e1" -v c0="$c0" -v c1="$c1" -v m0="$m0" -v m1="$m1" \
		'BEGIN { printf "| %s 300 MB | `%s` | %.2f → %.2f | %.1f → %.1f | %d → %d |\n", sh, c, e0, e1, c0, c1, m0/1024, m1/1024 }'
done
