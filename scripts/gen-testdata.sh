#!/usr/bin/env bash
# Regenerates testdata/sessions/<client-version>/*.jsonl by driving the real pinned
# Claude Code clients (installed on demand into .clients/) against the harness mock.
# Usage: scripts/gen-testdata.sh [-only multi-turn,tools] [-client 2.1.328]
set -euo pipefail
cd "$(dirname "$0")/.."
export IS_SANDBOX=1
exec go run ./cmd/gentestdata "$@"
