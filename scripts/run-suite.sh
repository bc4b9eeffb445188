#!/usr/bin/env bash
# The main job: install what is missing, build, and run the built-in scenario
# suite, printing per scenario the violations with fencing off and on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the CLI: the first table appears within minutes, not after every test target.
LOCKSIM_BUILD_TARGET=locksim bash scripts/build.sh
build/locksim run scenarios/ --json build/suite-summary.json --junit build/suite-junit.xml
