#!/bin/sh
# The safety trials of issue 13, with their counts: two ccsurgeon writers on
# one session, a process appending to the session while ccsurgeon rewrites
# it (on a held O_APPEND descriptor, and by name), and kill -9 at every step
# of a write; and (issue 27) a process that opens the session for append
# while ccsurgeon writes it, and kill -9 at a random moment of a move, a change, a clone and a fork.
# Usage: scripts/trials.sh [ROUNDS] (default 20)
set -eu
cd "$(dirname "$0")/.."
CCSURGEON_TRIALS="${1:-20}" go test -count=1 -v -run '^TestTrial|^TestWriteSafety5|^TestWriteSafety6.*KilledAtRandom' ./internal/cli | grep -E 'trial:|^(--- FAIL|FAIL|ok)'
