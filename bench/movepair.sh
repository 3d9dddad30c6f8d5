#!/usr/bin/env bash
# bench/movepair.sh OLD NEW SHAPE [PAIRS] — bench/pair.sh for `move`:
# `move ID --to DIR` timed with two builds in turn (see bench/pair.sh).
exec bash "$(dirname "$0")/pair.sh" "$1" "$2" "$3" move "${4:-3}"
