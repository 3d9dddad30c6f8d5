# scripts/trace-idle.awk — where the cores of a command stood idle: from an
# execution trace (CCSURGEON_TRACE=FILE), the time spent in each mix of
# goroutine states (running Go code, in pread, in pwrite or another
# syscall, runnable), the most common first, and the core-ms no goroutine
# used (2 cores, or CORES=N) in all and while some goroutine was runnable
# (it could have run: a core held by a syscall that waits, BENCHMARKS.md
# stop 49). A goroutine in pread counts as using a core (the kernel's copy).
#
#   CCSURGEON_TRACE=/tmp/tr.out ccsurgeon clone ID
#   go tool trace -d=parsed /tmp/tr.out | awk -f scripts/trace-idle.awk
#   go tool trace -d=parsed /tmp/tr.out | awk -v CORES=4 -f scripts/trace-idle.awk
BEGIN { if (CORES == "") CORES = 2 }
function settle(t,    g, r, rd, w, q, k, busy) {
	if (last != "") {
		r = rd = w = q = 0
		for (g in st) {
			if (st[g] == "Running") r++
			else if (st[g] == "Syscall" && sk[g] == "pread") rd++
			else if (st[g] == "Syscall") w++
			else if (st[g] == "Runnable") q++
		}
		k = r " running, " rd " in pread, " w " in other syscalls, " q " runnable"
		span[k] += t - last
		busy = r + rd
		if (busy < CORES) {
			idle += (CORES - busy) * (t - last)
			if (q > 0) idleq += (CORES - busy) * (t - last)
		}
	}
	last = t
}
# a syscall's kind is in the first frame of the stack that follows it
pending != "" && /^\tsyscall\./ {
	sk[pending] = ($0 ~ /^\tsyscall\.pread/) ? "pread" : "other"
	pending = ""
}
/StateTransition/ && /GoID=/ {
	match($0, /Time=[0-9]+/); t = substr($0, RSTART + 5, RLENGTH - 5)
	match($0, /GoID=[0-9]+/); g = substr($0, RSTART + 5, RLENGTH - 5)
	match($0, /->[A-Za-z]+/); s = substr($0, RSTART + 2, RLENGTH - 2)
	settle(t)
	st[g] = s
	pending = (s == "Syscall") ? g : ""
	if (s == "Syscall") sk[g] = "other"
}
END {
	n = 0
	for (k in span) keys[++n] = k
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (span[keys[j]] > span[keys[i]]) { x = keys[i]; keys[i] = keys[j]; keys[j] = x }
	for (i = 1; i <= n && i <= 15; i++) printf "%8.1f ms  %s\n", span[keys[i]] / 1e6, keys[i]
	printf "idle core-ms: %.1f in all, %.1f while a goroutine was runnable (%d cores)\n", idle / 1e6, idleq / 1e6, CORES
}
