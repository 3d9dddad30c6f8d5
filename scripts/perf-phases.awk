# scripts/perf-phases.awk — CPU of a `perf record -g` profile by phase: each
# sample is given to the first of PHASES (a space-separated list of
# function names, matched as substrings anywhere in its stack, in the
# order given) that its stack holds, else to "other"; printed with its
# share and its milliseconds at perf's default 4,000 samples a second
# (HZ). The phases of stop 45's profile of a move (BENCHMARKS.md):
#
#   perf record -g -o /tmp/perf.move -- ccsurgeon --config-dir CFG move ID --to DIR
#   perf script -i /tmp/perf.move -F comm,tid,ip,sym | awk -f scripts/perf-phases.awk
BEGIN {
	if (PHASES == "") PHASES = "HashAhead gcBgMarkWorker makeBackup writeMapped makeTemps newIndexer Relocate planSession LoadWith backup.Move runMove"
	if (HZ == "") HZ = 4000
	n = split(PHASES, P, " ")
}
function flush(   i, k) {
	if (!have) return
	tot++
	k = "other"
	for (i = 1; i <= n; i++) if (index(st, P[i])) { k = P[i]; break }
	c[k]++
	st = ""; have = 0
}
/^[^\t ]/ { flush(); have = 1; next }
{ st = st " " $0 }
END {
	flush()
	for (k in c) printf "%-16s %6d %5.1f%% %6.0f ms\n", k, c[k], 100 * c[k] / tot, 1000 * c[k] / HZ | "sort -k2 -nr"
}
