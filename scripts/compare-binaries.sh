#!/usr/bin/env bash
# scripts/compare-binaries.sh OLD NEW [FILE...] — run every command that does
# not mint new ids on every session, with two builds of ccsurgeon, and report
# each (session, command) whose output (stdout, stderr, exit code, and the
# file written with -o) differs. With no FILE: every main session of
# testdata/sessions and of the corpus of real transcripts
# ($CCSURGEON_CORPUS, from the checkout's root; default ../shared/corpus),
# when it is there.
#
#   git stash; go build -o /tmp/old .; git stash pop; go build -o /tmp/new .
#   bash scripts/compare-binaries.sh /tmp/old /tmp/new
#
# A change meant to make ccsurgeon faster without changing what it does
# should report "0 differ". Exits 1 when any case differs.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OLD NEW [FILE...]" >&2; exit 2; }
OLD=$1 NEW=$2
shift 2
cd "$(dirname "$0")/.." || exit 2
if [ $# -gt 0 ]; then
	files=("$@")
else
	corpus=${CCSURGEON_CORPUS:-../shared/corpus}
	[ -d "$corpus" ] || { echo "note: $corpus not found (set CCSURGEON_CORPUS): testdata/sessions only" >&2; corpus=; }
	mapfile -t files < <( (find testdata/sessions -name '*.jsonl' -not -path '*/subagents/*'
		[ -z "$corpus" ] || find "$corpus" -name '*.jsonl' -not -path '*/subagents/*') | sort)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
commands=(
	"info --json"
	"info"
	"turns --json"
	"turns --all"
	"validate --json"
	"repair --dry-run --json"
	"compress-old-turns --json -o"
	"compress-old-turns --target-tokens 20000 --json -o"
	"strip-thinking --json -o"
	"drop-tool-calls --tool Bash --json -o"
	"redact-secrets --json -o"
	"rewrite --redact-secrets --strip-thinking --drop-tool-calls Read --compress-old-turns 1 --json -o"
)
n=0 wrote=0 bad=0
for f in "${files[@]}"; do
	for c in "${commands[@]}"; do
		read -r -a args <<<"$c"
		name=${args[0]}
		args=("${args[@]:1}")
		out=()
		if [ ${#args[@]} -gt 0 ] && [ "${args[-1]}" = "-o" ]; then
			unset 'args[-1]'
			out=(-o "$tmp/out.jsonl")
		fi
		for v in OLD NEW; do
			rm -f "$tmp/out.jsonl"
			"${!v}" -q "$name" "$f" "${args[@]}" "${out[@]}" >"$tmp/$v.out" 2>&1
			echo "exit $?" >>"$tmp/$v.out"
			if [ -f "$tmp/out.jsonl" ]; then mv "$tmp/out.jsonl" "$tmp/$v.jsonl"; else rm -f "$tmp/$v.jsonl"; fi
		done
		n=$((n + 1))
		[ -f "$tmp/NEW.jsonl" ] && wrote=$((wrote + 1))
		differ=0
		cmp -s "$tmp/OLD.out" "$tmp/NEW.out" || differ=1
		if [ -f "$tmp/OLD.jsonl" ] || [ -f "$tmp/NEW.jsonl" ]; then
			cmp -s "$tmp/OLD.jsonl" "$tmp/NEW.jsonl" 2>/dev/null || differ=1
		fi
		if [ $differ = 1 ]; then
			bad=$((bad + 1))
			echo "differs: $f: $c"
			diff <(head -c 3000 "$tmp/OLD.out") <(head -c 3000 "$tmp/NEW.out") | head -8
		fi
	done
done
echo "$n cases ($wrote wrote a file), $bad differ"
[ $bad = 0 ]
