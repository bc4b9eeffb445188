#!/usr/bin/env bash
# Presets held against the libraries: each client example
# (scripts/client-examples.txt) run live with the real library and
# simulated with its preset (workers.client), RUNS runs per fencing mode
# each (default 20), compared as scripts/conformance.sh compares the live
# subset (Fisher's exact test per mode and violation kind; they disagree at
# p < 0.01). With --docs the table goes into docs/live.md. Exit 1 on any
# disagreement. The Node examples need their node_modules
# (scripts/install-deps.sh runs `npm ci` in them).
#   bash scripts/client-conformance.sh [RUNS] [--docs]
set -euo pipefail
cd "$(dirname "$0")/.."
export CONFORMANCE_LIST=scripts/client-examples.txt
export CONFORMANCE_MARKER=client-conformance
export CONFORMANCE_COMMAND="bash scripts/client-conformance.sh"
exec bash scripts/conformance.sh "$@"
