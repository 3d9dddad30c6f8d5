# scripts/steps.awk — the summary of a step timeline (CCSURGEON_STEPS=FILE):
# one row a kind of step (its name up to the first ':'), in the order first
# met: how many, the first and last time (ms since the start) and the
# process's user and system CPU (ms) at those times.
#
#   CCSURGEON_STEPS=/tmp/steps.txt ccsurgeon move ID --to DIR
#   awk -f scripts/steps.awk /tmp/steps.txt
{
	k = $4; sub(/:.*/, "", k)
	if (!(k in first)) { first[k] = $1; order[++n] = k; fu[k] = $2; fs[k] = $3 }
	last[k] = $1; lu[k] = $2; ls[k] = $3; c[k]++
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		printf "%-28s x%-4d %7.1f .. %7.1f ms  user %6.1f..%6.1f sys %6.1f..%6.1f\n", k, c[k], first[k], last[k], fu[k], lu[k], fs[k], ls[k]
	}
}
