#!/usr/bin/env bash
# Runs the real-client tests against any Claude Code version, in place of the
# pinned client of its line (2.0.x/1.x replace the old pin, others the newest):
#   scripts/compat.sh 2.1.NNN
# The client is installed on first use into $CCSURGEON_CLIENTS_DIR (default
# .clients/). Sessions come from testdata/sessions/<version>/ when it exists,
# else from the newest folder of the same minor line (2.1.328 for 2.1.x).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || [[ ! "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "usage: scripts/compat.sh VERSION   (e.g. scripts/compat.sh 2.1.331)" >&2
  exit 2
fi
export CCSURGEON_CLIENT="$1" IS_SANDBOX=1
export CCSURGEON_CLIENTS_DIR="${CCSURGEON_CLIENTS_DIR:-$PWD/.clients}"
# the packages whose tests start a real client
pkgs=$(grep -rl --include='*_test.go' -E 'harness\.(Clients|Latest|Old|ClientByVersion)\(|\bClients\(t\)' . |
  xargs -n1 dirname | sort -u | sed 's|^\./||; s|^|./|')
echo "compat: Claude Code $1 on $(echo $pkgs | tr '\n' ' ')" >&2
exec go test -count=1 -timeout 60m $pkgs
