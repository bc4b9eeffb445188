#!/usr/bin/env bash
# The main job: install what is missing, build, and run the built-in suite.
# Until the scenario library exists this runs the kernel demonstration.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
build/locksim demo
