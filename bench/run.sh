#!/usr/bin/env bash
# bench/run.sh [SPEC] — one benchmark run of ccsurgeon over a generated session.
#
#   bash bench/run.sh                  # bulk:300MB (the first shape)
#   bash bench/run.sh dense:300MB      # SHAPE:SIZE (shapes: go run ./cmd/gensession -list)
#   bash bench/run.sh chain1M          # one chain of 1,000,000 small entries (~935 MB)
#   bash bench/run.sh all              # every shape at 300MB (ALL_SIZE), then a list of misses
#   ONLY="info validate strip-thinking" bash bench/run.sh 1GB
#
# Builds ccsurgeon, generates (or reuses) a session of SPEC with
# cmd/gensession (seed $SEED, default 1) and 1,000 small sessions for 'ls',
# then measures each command 3 times (median wall time, median peak RSS via
# /usr/bin/time) next to 'cp' and 'jq -c .' of the same file, measured in the
# same run with a warm page cache. Prints a markdown table (also saved to
# $ROOT/results-SPEC.md) with, per command: wall time, MB/s, its ratio to cp,
# peak RSS as a share of the file, and whether it meets its target:
#   read-only (info validate turns repair --dry-run)  ≤ 1 s per 300 MB
#   transforming operations                           ≥ 300 MB/s (redact ≥ 100)
#   rescue (compress --target-tokens 150k)            ≥ 200 MB/s
#   clone -o                                          ≤ 3× cp
#   clone as a new session                            ≤ 3× cp of the same files (the transcript and its sidecars; issue 30)
#   move (to another project folder, then restored)    ≥ 300 MB/s
#   every command                                     peak RSS ≤ ½ the file
# validate and repair --dry-run may exit 1 (the damaged shape is invalid, and
# keeps errors repair has no safe fix for); fork-at-turn is not run on a
# session whose active branch has no turns.
#
# Environment: SEED (1), ROOT (/tmp/ccsurgeon-bench), RUNS (3), TIMEOUT (300 s per
# command run), JQ_TIMEOUT (120 s), ONLY (space-separated command names to run;
# names: info validate turns repair-dry-run clone-o clone-new fork-at-turn
# strip-thinking drop-tool-calls rescue compress-old-turns redact-secrets rewrite move ls jq),
# ALL_SIZE (300MB, for 'all'), DISK_REST (20 s of idle disk before each run of the
# commands that make their writes durable at once: clone-new, its durable-copies baseline,
# and move). Generated sessions are cached by spec+seed and
# kept; CLEAN=1 removes them at the end.
set -uo pipefail

SIZE=${1:-300MB}
SEED=${SEED:-1}

if [ "$SIZE" = all ]; then
	# every registered shape, one after the other, then every miss in one list
	cd "$(dirname "$0")/.." || exit 1
	go build -o "${ROOT:-/tmp/ccsurgeon-bench}/gensession" ./cmd/gensession || exit 1
	mkdir -p "${ROOT:-/tmp/ccsurgeon-bench}"
	specs=()
	for sh in $("${ROOT:-/tmp/ccsurgeon-bench}/gensession" -list | cut -f1); do
		specs+=("$sh:${ALL_SIZE:-300MB}")
	done
	for spec in "${specs[@]}"; do
		bash "$0" "$spec"
		echo
	done
	echo "### targets missed (✗), every shape"
	echo
	for spec in "${specs[@]}"; do
		grep -F '✗' "${ROOT:-/tmp/ccsurgeon-bench}/results-${spec/:/-}.md" | sed "s/^/$spec: /"
	done
	exit 0
fi
ROOT=${ROOT:-/tmp/ccsurgeon-bench}
RUNS=${RUNS:-3}
TIMEOUT=${TIMEOUT:-300}
JQ_TIMEOUT=${JQ_TIMEOUT:-120}
ONLY=${ONLY:-}
LS_N=${LS_N:-1000}

cd "$(dirname "$0")/.." || exit 1
mkdir -p "$ROOT"

log() { echo "run.sh: $*" >&2; }

# --- tools -----------------------------------------------------------------
need_apt=()
[ -x /usr/bin/time ] || need_apt+=(time)
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
if [ ${#need_apt[@]} -gt 0 ]; then
	log "installing ${need_apt[*]}"
	SUDO=""
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y "${need_apt[@]}" >/dev/null 2>&1 ||
		{ $SUDO apt-get update >/dev/null 2>&1 && $SUDO apt-get install -y "${need_apt[@]}" >/dev/null; } ||
		{ log "cannot install ${need_apt[*]}"; exit 1; }
fi

# --- build -----------------------------------------------------------------
BIN=$ROOT/ccsurgeon
GEN=$ROOT/gensession
log "building ccsurgeon and gensession"
go build -o "$BIN" . || exit 1
go build -o "$GEN" ./cmd/gensession || exit 1

# --- data ------------------------------------------------------------------
TAG=${SIZE/:/-}
DIR=$ROOT/s-$TAG-seed$SEED
if [ ! -s "$DIR/.id" ]; then
	log "generating a $SIZE session (seed $SEED) in $DIR"
	rm -rf "$DIR" "$DIR.tmp"
	start=$(date +%s.%N)
	case $SIZE in
	chain[0-9]*) # chainN: one chain of N small entries (N like 250k, 1M)
		N=${SIZE#chain}
		N=${N/k/000}
		N=${N/M/000000}
		ID=$("$GEN" -chain "$N" -seed "$SEED" -o "$DIR.tmp") || { rm -rf "$DIR.tmp"; exit 1; }
		;;
	*:*) # SHAPE:SIZE
		ID=$("$GEN" -shape "${SIZE%%:*}" -size "${SIZE#*:}" -seed "$SEED" -o "$DIR.tmp") || { rm -rf "$DIR.tmp"; exit 1; }
		;;
	*) ID=$("$GEN" -size "$SIZE" -seed "$SEED" -o "$DIR.tmp") || { rm -rf "$DIR.tmp"; exit 1; } ;;
	esac
	log "generated in $(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.1f", e-s}') s"
	mv "$DIR.tmp" "$DIR" && echo "$ID" >"$DIR/.id"
fi
ID=$(cat "$DIR/.id")
FILE=$DIR/projects/-bench/$ID.jsonl
[ -f "$FILE" ] || { log "missing $FILE"; exit 1; }
BYTES=$(stat -c %s "$FILE")
SIDECAR_BYTES=$(du -sb "$DIR/projects/-bench/$ID" 2>/dev/null | cut -f1)

LSDIR=$ROOT/ls-$LS_N-seed$SEED
if [ ! -s "$LSDIR/.done" ]; then
	log "generating $LS_N small sessions in $LSDIR"
	rm -rf "$LSDIR"
	"$GEN" -sessions "$LS_N" -size 100KB -seed "$SEED" -o "$LSDIR" && echo ok >"$LSDIR/.done"
fi
LS_BYTES=$(du -sb "$LSDIR/projects" | cut -f1)

OUT=$ROOT/out.jsonl
CFG=(--config-dir "$DIR")
MB() { awk -v b="$1" 'BEGIN{printf "%.1f", b/1048576}'; }

# --- measuring ---------------------------------------------------------------
TMP=$(mktemp -d "$ROOT/run.XXXXXX")
trap 'rm -rf "$TMP" "$OUT" "$ROOT/cp.jsonl" "$ROOT/cpr" ${KEPT[@]+"${KEPT[@]}"}' EXIT

warm() { sync; cat "$FILE" >/dev/null; find "$DIR/projects" -type f -exec cat {} + >/dev/null; }

# measure NAME CLEANUP -- CMD...: runs CMD $RUNS times; sets M_WALL M_RSS (KB)
# M_RC M_ERR (stderr of a failing run) and leaves the last stdout in $TMP/out.
measure() {
	local name=$1 cleanup=$2
	shift 3
	local walls=() rsss=() i s e rc
	M_RC=0
	M_ERR=""
	for ((i = 0; i < RUNS; i++)); do
		# the last run's standard output is removed before the timer
		# starts: the shell's '>' truncated it inside the timed stretch,
		# and freeing a 376 MB report (redact's --json on the secrets
		# shape) took 0.28-0.30 s the command did not spend (the outer
		# wall 0.3 s above time's %e; with the file removed first, 0.01)
		rm -f "$TMP/out" "$TMP/err"
		# the dirty pages of what ran before (the last run's output: up to
		# the file's size) are written out before the timer starts, not by
		# the kernel's writeback threads during the timed run, on the same
		# two cores and disk: every command and its baseline alike
		sync
		# REST: seconds the disk is left idle before the timer starts (for a
		# command that fsyncs: this VM's disk throttles writes after a burst,
		# see the clone-new step)
		[ -n "${REST:-}" ] && sleep "$REST"
		s=$(date +%s.%N)
		/usr/bin/time -f '%e %M' -o "$TMP/time" timeout "$TIMEOUT" "$@" >"$TMP/out" 2>"$TMP/err"
		rc=$?
		e=$(date +%s.%N)
		walls+=("$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e-s}')")
		rsss+=("$(tail -1 "$TMP/time" | awk '{print $2}')")
		[ -n "$cleanup" ] && $cleanup
		if [ $rc -ne 0 ] && [[ " ${OKRC:-} " != *" $rc "* ]]; then
			M_RC=$rc
			M_ERR=$(grep -v '^Command exited with non-zero status' "$TMP/err" | head -c 2000)
			[ $rc -eq 124 ] && M_ERR="timed out after ${TIMEOUT}s (stopped)"
			break
		fi
	done
	M_WALL=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	M_RSS=$(printf '%s\n' "${rsss[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
	log "$name: ${M_WALL}s rss ${M_RSS}KB rc $M_RC"
}

want() { [ -z "$ONLY" ] || [[ " $ONLY " == *" $1 "* ]]; }

rm_out() { rm -f "$OUT"; }
rm_cp() { rm -f "$ROOT/cp.jsonl"; }
rm_clone() {
	local nid
	nid=$(jq -r '.session_id // empty' "$TMP/out" 2>/dev/null)
	if [ -n "$nid" ] && [ "$nid" != "$ID" ]; then
		rm -rf "$DIR/projects/-bench/$nid.jsonl" "$DIR/projects/-bench/$nid"
	fi
}
# The steps that make many files (a new session and its baselines: 1,063
# sidecar files on damaged) keep every run's copy until the step's last run,
# then remove them all and note when (FREED): on ext4 without a journal
# (this VM's) a create steps over every inode of its group freed in the last
# 60 s (360 s while the freed inode's table block is dirty: fs/ext4/ialloc.c
# recently_deleted), so a run made right after the last one deleted its
# thousand files paid for them (cp -r of the same files 0.19 s after none,
# up to 1.0 s after a few runs' deletions, BENCHMARKS.md 2026-11-27 clonenew3).
KEPT=()
keep_clone() {
	local nid
	nid=$(jq -r '.session_id // empty' "$TMP/out" 2>/dev/null)
	if [ -n "$nid" ] && [ "$nid" != "$ID" ]; then
		KEPT+=("$DIR/projects/-bench/$nid.jsonl" "$DIR/projects/-bench/$nid")
	fi
}
FREED=$ROOT/.freed-many
free_kept() {
	rm -rf "${KEPT[@]}" "$@"
	KEPT=()
	sync
	date +%s >"$FREED"
}
# wait_freed: until 61 s after the last step that freed many files (their
# inode table blocks written by sync: the 60 s window)
wait_freed() {
	local t now
	t=$(cat "$FREED" 2>/dev/null) || return 0
	now=$(date +%s)
	if [ $((now - t)) -lt 61 ]; then
		log "waiting $((61 - (now - t))) s: files were freed at $t (ext4's window for new inodes)"
		sleep $((61 - (now - t)))
	fi
}

warm
LOAD_START=$(cut -d" " -f1-3 /proc/loadavg)
log "file $FILE: $BYTES bytes (+ $SIDECAR_BYTES bytes of sidecar files)"

# baselines
measure cp rm_cp -- cp "$FILE" "$ROOT/cp.jsonl"
CP_WALL=$M_WALL
CP_RSS=$M_RSS
JQ_NOTE=""
if want jq || [ -z "$ONLY" ]; then
	RUNS_SAVE=$RUNS
	s=$(date +%s.%N)
	timeout "$JQ_TIMEOUT" sh -c 'jq -c . < "$1" > /dev/null' _ "$FILE"
	rc=$?
	first=$(awk -v s="$s" -v e="$(date +%s.%N)" 'BEGIN{printf "%.3f", e-s}')
	if [ $rc -eq 124 ]; then
		JQ_WALL=">$JQ_TIMEOUT"
		JQ_NOTE="(stopped at ${JQ_TIMEOUT}s: a lower bound)"
		JQ_RSS=""
	else
		TIMEOUT_SAVE=$TIMEOUT
		TIMEOUT=$JQ_TIMEOUT
		measure jq "" -- sh -c 'jq -c . < "$1" > /dev/null' _ "$FILE"
		TIMEOUT=$TIMEOUT_SAVE
		JQ_WALL=$M_WALL
		JQ_RSS=$M_RSS
		[ "$M_RC" = 124 ] && JQ_WALL=">$JQ_TIMEOUT" && JQ_NOTE="(stopped at ${JQ_TIMEOUT}s: a lower bound)"
	fi
	RUNS=$RUNS_SAVE
fi

TURNS=$("$BIN" "${CFG[@]}" --json info "$ID" 2>/dev/null | jq -r '.turns // empty')
MID=$(((${TURNS:-2} + 1) / 2))

ROWS=()
NOTES=()
SHRINK=()
FAILS=()

# row NAME TARGET_KIND TARGET_TEXT BYTES_FOR_RATE
row() {
	local name=$1 kind=$2 ttext=$3 bytes=$4 mbs ratio_rss xcp ok="" rss_mb
	if [ "$M_RC" != 0 ]; then
		ROWS+=("| \`$name\` | FAILED (exit $M_RC) | | | | | | $ttext | ✗ | |")
		FAILS+=("$name|$M_ERR")
		return
	fi
	mbs=$(awk -v b="$bytes" -v t="$M_WALL" 'BEGIN{ if (t>0) printf "%.0f", b/1048576/t; else print "inf"}')
	rss_mb=$(awk -v k="$M_RSS" 'BEGIN{printf "%.0f", k/1024}')
	ratio_rss=$(awk -v k="$M_RSS" -v b="$BYTES" 'BEGIN{printf "%.2f", k*1024/b}')
	local base=${BASE_WALL:-$CP_WALL}
	xcp=$(awk -v t="$M_WALL" -v c="$base" 'BEGIN{ if (c>0) printf "%.1f", t/c; else print "-"}')
	local xjq="–"
	if [ "$bytes" != "$BYTES" ]; then
		: # not the same file (ls): no ratio
	elif [[ ${JQ_WALL:-} =~ ^[0-9.]+$ ]]; then
		xjq=$(awk -v t="$M_WALL" -v j="$JQ_WALL" 'BEGIN{ if (t>0) printf "%.0f", j/t; else print "-"}')
	elif [[ ${JQ_WALL:-} == ">"* ]]; then
		xjq=$(awk -v t="$M_WALL" -v j="${JQ_WALL#>}" 'BEGIN{ if (t>0) printf ">%.0f", j/t; else print "-"}')
	fi
	case $kind in
	wall1) ok=$(awk -v t="$M_WALL" 'BEGIN{print (t<=1)?"✓":"✗"}') ;;
	per300) ok=$(awk -v t="$M_WALL" -v b="$bytes" 'BEGIN{print (t<=b/(300*1048576))?"✓":"✗"}') ;;
	cp3) ok=$(awk -v t="$M_WALL" -v c="$base" 'BEGIN{print (t<=3*c)?"✓":"✗"}') ;;
	mbs300) ok=$(awk -v m="$mbs" 'BEGIN{print (m>=300)?"✓":"✗"}') ;;
	mbs100) ok=$(awk -v m="$mbs" 'BEGIN{print (m>=100)?"✓":"✗"}') ;;
	mbs200) ok=$(awk -v m="$mbs" 'BEGIN{print (m>=200)?"✓":"✗"}') ;;
	*) ok="–" ;;
	esac
	local rssok
	rssok=$(awk -v k="$M_RSS" -v b="$BYTES" 'BEGIN{print (k*1024<=b/2)?"✓":"✗"}')
	ROWS+=("| \`$name\` | $M_WALL | $mbs | $rss_mb | $ratio_rss | $xcp | $xjq | $ttext | $ok | $rssok |")
}

shrink() {
	local name=$1 bb ba
	bb=$(jq -r '.bytes_before // empty' "$TMP/out" 2>/dev/null)
	ba=$(jq -r '.bytes_after // empty' "$TMP/out" 2>/dev/null)
	if [ -n "$bb" ] && [ -n "$ba" ]; then
		SHRINK+=("| \`$name\` | $bb | $ba | $(awk -v a="$bb" -v b="$ba" 'BEGIN{printf "%.1f%%", (a-b)*100/a}') |")
	fi
}

W=(--json -q)
RO="≤ $(awk -v b="$BYTES" 'BEGIN{printf "%.2f", b/(300*1048576)}') s (1 s per 300 MB)"
if want info; then
	measure info "" -- "$BIN" "${CFG[@]}" info "$ID"
	row "info ID" per300 "$RO" "$BYTES"
fi
if want validate; then
	OKRC=1 measure validate "" -- "$BIN" "${CFG[@]}" validate "$ID" # 1: invalid (the damaged shape)
	row "validate ID" per300 "$RO" "$BYTES"
fi
if want turns; then
	measure turns "" -- "$BIN" "${CFG[@]}" turns "$ID"
	row "turns ID" per300 "$RO" "$BYTES"
fi
if want repair-dry-run; then
	OKRC=1 measure repair-dry-run "" -- "$BIN" "${CFG[@]}" repair "$ID" --dry-run # 1: errors it cannot fix
	row "repair ID --dry-run" per300 "$RO" "$BYTES"
fi
if want clone-o; then
	measure clone-o rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" clone "$ID" -o "$OUT"
	row "clone ID -o OUT" cp3 "≤ 3× cp" "$BYTES"
	shrink "clone -o"
fi
if want clone-new; then
	# A new session is the transcript and its sidecar files (subagents, tool
	# results, file history): its baseline is `cp` of the same files (cp -r of
	# the folder beside the file), without sync, as `cp FILE` is; on a session
	# without sidecars that is `cp FILE`. The same files copied and made
	# durable (fsync of each) are measured too, for the note.
	# Each run writes into a folder of its own, kept until the step ends
	# (keep_clone, free_kept above).
	wait_freed
	rm -rf "$ROOT/cpr"
	mkdir -p "$ROOT/cpr"
	# The clone makes every file it writes durable. This VM's disk throttles writes
	# after a burst: with 2 GB written and synced just before (the baselines'
	# copies flushed by the sync before each run, the durable copies'
	# fsyncs), a clone took 0.86-0.97 s, and 0.39 s after 20 s of rest
	# (2026-11-27); 20 s was not enough after the baselines' 900 MB. So the
	# clones run first in the step (after wait_freed's idle minute), each
	# after REST seconds of an idle disk (DISK_REST, 20), and the baselines'
	# copies are made after them.
	REST=${DISK_REST:-20} measure clone-new keep_clone -- "$BIN" "${CFG[@]}" "${W[@]}" clone "$ID"
	CLONE_WALL=$M_WALL CLONE_RSS=$M_RSS CLONE_RC=$M_RC CLONE_ERR=$M_ERR
	# (a session without subagents or tool results has no folder: the main file only)
	measure cp-r "" -- sh -c 'd=$(mktemp -d "$3/r.XXXXXX") && cp "$1" "$d/" && { [ ! -d "$2" ] || cp -r "$2" "$d/"; }' _ "$FILE" "$DIR/projects/-bench/$ID" "$ROOT/cpr"
	CPR_WALL=$M_WALL
	REST=${DISK_REST:-20} measure cp-r-sync "" -- sh -c 'd=$(mktemp -d "$3/r.XXXXXX") && cp "$1" "$d/" && { [ ! -d "$2" ] || cp -r "$2" "$d/"; } && find "$d" -type f -exec sync {} +' _ "$FILE" "$DIR/projects/-bench/$ID" "$ROOT/cpr"
	CPRS_WALL=$M_WALL
	M_WALL=$CLONE_WALL M_RSS=$CLONE_RSS M_RC=$CLONE_RC M_ERR=$CLONE_ERR
	free_kept "$ROOT/cpr"
	# a session without sidecar folder: the same files are the transcript
	# alone, and its baseline is `cp FILE` (the cp -r step's shell and
	# mktemp cost it 10-20 ms more: a baseline slower than cp)
	CLONE_BASE=$CPR_WALL
	[ -d "$DIR/projects/-bench/$ID" ] || CLONE_BASE=$CP_WALL
	BASE_WALL=$CLONE_BASE row "clone ID (new session, then deleted)" cp3 "≤ 3× cp of the same files" "$BYTES"
	NSIDE=$(find "$DIR/projects/-bench/$ID" -type f 2>/dev/null | wc -l)
	NOTES+=("clone as a new session writes the transcript and its $NSIDE sidecar files (subagents, tool results) and makes every one durable before the transcript is linked (one syncfs of the file system on Linux 5.8 and later, else an fsync of each); its × cp is against \`cp\` of the same files (the transcript and, with \`cp -r\`, its $NSIDE sidecar files; without a sidecar folder \`cp FILE\`): ${CLONE_BASE} s in this run (\`cp -r\` step ${CPR_WALL} s) (\`cp FILE\` alone ${CP_WALL} s: clone = $(awk -v t="$M_WALL" -v c="$CP_WALL" 'BEGIN{printf "%.1f", t/c}')× that); the same files copied and then \`sync\`ed one by one took ${CPRS_WALL} s.")
fi
if want fork-at-turn && [ "${TURNS:-0}" = 0 ]; then
	NOTES+=("fork-at-turn not run: the session's active branch has no turns (a damaged session, before repair)")
elif want fork-at-turn; then
	measure fork-at-turn rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" fork-at-turn "$ID" "$MID" -o "$OUT"
	row "fork-at-turn ID $MID -o OUT" mbs300 "≥ 300 MB/s" "$BYTES"
	shrink "fork-at-turn $MID"
fi
if want strip-thinking; then
	measure strip-thinking rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" strip-thinking "$ID" -o "$OUT"
	row "strip-thinking ID -o OUT" mbs300 "≥ 300 MB/s" "$BYTES"
	shrink strip-thinking
fi
if want drop-tool-calls; then
	measure drop-tool-calls rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" drop-tool-calls "$ID" --tool Bash -o "$OUT"
	row "drop-tool-calls ID --tool Bash -o OUT" mbs300 "≥ 300 MB/s" "$BYTES"
	shrink "drop-tool-calls --tool Bash"
fi
if want rescue; then
	# the rescue: a session cut to 150k tokens in one command (or, where the
	# system prompt and the last exchange alone are more, to the smallest
	# target the refusal names)
	T=150000
	if ! "$BIN" "${CFG[@]}" compress "$ID" --target-tokens "$T" --dry-run >/dev/null 2>"$ROOT/rescue.err"; then
		T=$(sed -n 's/.*--target-tokens of at least \([0-9]*\).*/\1/p' "$ROOT/rescue.err" | tail -1)
	fi
	if [ -n "$T" ]; then
		measure rescue rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" compress "$ID" --target-tokens "$T" -o "$OUT"
		row "compress ID --target-tokens $T -o OUT (rescue)" mbs200 "≥ 200 MB/s" "$BYTES"
	fi
fi
if want compress-old-turns; then
	measure compress-old-turns rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" compress-old-turns "$ID" -o "$OUT"
	row "compress-old-turns ID -o OUT" mbs300 "≥ 300 MB/s" "$BYTES"
	shrink compress-old-turns
fi
if want redact-secrets; then
	measure redact-secrets rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" redact-secrets "$ID" -o "$OUT"
	row "redact-secrets ID -o OUT" mbs100 "≥ 100 MB/s" "$BYTES"
	shrink redact-secrets
fi
if want rewrite; then
	measure rewrite rm_out -- "$BIN" "${CFG[@]}" "${W[@]}" rewrite "$ID" --redact-secrets --strip-thinking --drop-tool-calls Read --compress-old-turns 3 -o "$OUT"
	row "rewrite ID --redact-secrets --strip-thinking --drop-tool-calls Read --compress-old-turns 3 -o OUT" mbs100 "≥ 100 MB/s (has redact)" "$BYTES"
	shrink "rewrite (all four)"
fi
if want move; then
	# move to another project folder (measured), then restore (undoes the
	# move) and drop the backups both took, so that the next run and the
	# next command find the session where it was
	# The undo frees every file the move made (restore copies the session
	# back and removes the moved one; the backups go), and on this VM's
	# ext4 without a journal the next run's creates then step over each
	# freed inode (see keep_clone above): a move of the dense shape's 859
	# sidecars spent 14-20% of its samples in recently_deleted (perf,
	# 2026-11-27), a cost of the script's undo, not of a user's move. So
	# what the move made and left is linked into a folder kept until the
	# step ends (cp -al: no inode freed by the undo), then freed at once.
	undo_move() {
		local t
		t=$(mktemp -d "$ROOT/kept-move.XXXXXX")
		cp -al "$DIR/projects" "$t/projects"
		KEPT+=("$t")
		"$BIN" "${CFG[@]}" -q restore "$ID" >/dev/null 2>&1
		# the backups linked in after the restore: its own backup too
		# (the moved files, linked above, have two names, so it copies
		# them: 861 files freed by the removal below, and the next run's
		# creates paid for them; by hand 2026-11-28)
		[ ! -d "$DIR/ccsurgeon/backups" ] || cp -al "$DIR/ccsurgeon/backups" "$t/backups"
		rm -rf "$DIR/ccsurgeon/backups"
		# restore writes the session's whole pages straight to the disk
		# (not through the page cache): read them back in, as every
		# command here is measured on a session in the cache (warm; a
		# move of agentic read from the disk: 1.23-1.24 s against
		# 0.81-0.91 from the cache, by hand 2026-11-28)
		warm
	}
	# Each run after DISK_REST seconds of idle disk, as each clone as a
	# new session: the undo before it (restore) has just written the whole
	# session back, and this VM's disk throttles writes after a burst
	# (dense, by hand: 1.0-1.1 s after 15 s of rest, 1.4-1.6 s in the run
	# of 2026-11-28 without it; BENCHMARKS.md)
	wait_freed
	REST=${DISK_REST:-20} measure move undo_move -- "$BIN" "${CFG[@]}" "${W[@]}" move "$ID" --to "$ROOT/moved-project"
	free_kept
	row "move ID --to DIR" mbs300 "≥ 300 MB/s" "$BYTES"
	[ -f "$FILE" ] || { log "the session did not come back after move: $FILE"; exit 1; }
fi
if want ls; then
	measure ls "" -- "$BIN" --config-dir "$LSDIR" ls
	LS_ROWS=$("$BIN" --config-dir "$LSDIR" ls 2>/dev/null | wc -l)
	row "ls ($LS_N sessions, $(MB "$LS_BYTES") MB in all)" wall1 "≤ 1 s" "$LS_BYTES"
fi

# --- report ------------------------------------------------------------------
LOAD_END=$(cut -d" " -f1-3 /proc/loadavg)
{
	echo "### ccsurgeon benchmark: $SIZE session (seed $SEED)"
	echo
	echo "command: \`bash bench/run.sh $SIZE\`${ONLY:+ with ONLY=\"$ONLY\"}, commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
	echo
	echo "file: \`$FILE\`, $BYTES bytes ($(MB "$BYTES") MB), $TURNS turns; sidecar (subagents, tool-results): ${SIDECAR_BYTES:-0} bytes"
	echo
	echo "median of $RUNS runs, warm page cache; MB = 2^20 bytes; MB/s = main file size / wall time; RSS = peak resident set (/usr/bin/time %M);"
	echo "× cp = wall time / wall time of \`cp\` of the same file in this run (for the clone as a new session, of the same files: the transcript and its sidecars, \`cp -r\`; \`cp FILE\` for a session without a sidecar folder); jq ÷ this = wall time of \`jq -c .\` over the file / wall time (how many times faster than jq; – when jq was not run)."
	echo
	echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GB RAM, $(go version | cut -d' ' -f3-); load average (1/5/15 min) at start: $LOAD_START, at end: $LOAD_END"
	echo
	echo "| baseline | wall s | MB/s | peak RSS MB |"
	echo "| --- | --- | --- | --- |"
	echo "| \`cp FILE\` | $CP_WALL | $(awk -v b="$BYTES" -v t="$CP_WALL" 'BEGIN{printf "%.0f", b/1048576/t}') | $(awk -v k="$CP_RSS" 'BEGIN{printf "%.0f", k/1024}') |"
	if [ -n "${JQ_WALL:-}" ]; then
		if [[ $JQ_WALL == ">"* ]]; then
			echo "| \`jq -c . < FILE > /dev/null\` | $JQ_WALL $JQ_NOTE | <$(awk -v b="$BYTES" -v t="$JQ_TIMEOUT" 'BEGIN{printf "%.0f", b/1048576/t}') | |"
		else
			echo "| \`jq -c . < FILE > /dev/null\` | $JQ_WALL | $(awk -v b="$BYTES" -v t="$JQ_WALL" 'BEGIN{printf "%.0f", b/1048576/t}') | $(awk -v k="$JQ_RSS" 'BEGIN{printf "%.0f", k/1024}') |"
		fi
	fi
	if [ -n "${CPR_WALL:-}" ]; then
		echo "| \`cp FILE\` + \`cp -r\` of its sidecar folder (the same files as a new session) | $CPR_WALL | | |"
	fi
	echo
	echo "| command | wall s | MB/s | peak RSS MB | RSS / file size | × cp | jq ÷ this | target | target met | RSS ≤ ½ file |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	printf '%s\n' "${ROWS[@]}"
	if [ ${#NOTES[@]} -gt 0 ]; then
		echo
		printf '%s\n' "${NOTES[@]}"
	fi
	if [ ${#SHRINK[@]} -gt 0 ]; then
		echo
		echo "size change of the main file (from \`--json\`: bytes_before → bytes_after):"
		echo
		echo "| operation | bytes before | bytes after | shrink |"
		echo "| --- | --- | --- | --- |"
		printf '%s\n' "${SHRINK[@]}"
	fi
	if [ ${#FAILS[@]} -gt 0 ]; then
		echo
		echo "failed commands (stderr verbatim):"
		for f in "${FAILS[@]}"; do
			echo
			echo "- \`${f%%|*}\`:"
			echo '```'
			echo "${f#*|}"
			echo '```'
		done
	fi
} | tee "$ROOT/results-$TAG.md"

if [ "${CLEAN:-0}" = 1 ]; then
	rm -rf "$DIR" "$LSDIR"
fi
