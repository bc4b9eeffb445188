#!/usr/bin/env bash
# Install what is missing, build, and run every test through ctest: once in
# the normal build, once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc 2>/dev/null || echo 2)"
bash scripts/install-deps.sh

bash scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$jobs"

LOCKSIM_BUILD_DIR=build-sanitize bash scripts/build.sh \
  -DLOCKSIM_SANITIZE=address,undefined -DLOCKSIM_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=Debug
# The oracle swarm (label "swarm"), the Chromium screenshot (label
# "chromium"), the live tests against real redis-servers (label "live") and
# explore over the whole library (label "library") run in the normal build only.
ctest --test-dir build-sanitize --output-on-failure --parallel "$jobs" --label-exclude 'swarm|chromium|live|library'
