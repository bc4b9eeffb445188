#!/usr/bin/env bash
# The consensus scenarios held against a real etcd cluster: each entry of
# scripts/live-subset-etcd.txt run live and simulated, RUNS runs per fencing
# mode each (default 20), compared as scripts/conformance.sh compares the
# Redis subset (Fisher's exact test per mode and violation kind; they
# disagree at p < 0.01). With --docs the table goes into docs/live.md. Exit
# 1 on any disagreement. A run lasts its scenario's real length (15-35 s).
#   bash scripts/etcd-conformance.sh [RUNS] [--docs]
set -euo pipefail
cd "$(dirname "$0")/.."
export CONFORMANCE_LIST=scripts/live-subset-etcd.txt
export CONFORMANCE_MARKER=etcd-conformance
export CONFORMANCE_COMMAND="bash scripts/etcd-conformance.sh"
exec bash scripts/conformance.sh "$@"
