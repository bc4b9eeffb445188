#!/usr/bin/env bash
# The sanitizer build: clang++ (the normal build is g++, so CI covers both
# compilers), AddressSanitizer + UndefinedBehaviorSanitizer, a Debug build at
# -O1 with line tables only (sanitizer reports keep their file and line; the
# tests and the fuzzers run several times faster than at -O0, and the build
# takes far less time than with full -g), with the libFuzzer targets of fuzz/.
# Into build-sanitize/ (or $LOCKSIM_SANITIZE_BUILD_DIR). scripts/run-tests.sh
# and scripts/fuzz.sh both build through here, so they share one build.
set -euo pipefail
cd "$(dirname "$0")/.."
LOCKSIM_BUILD_DIR="${LOCKSIM_SANITIZE_BUILD_DIR:-build-sanitize}" bash scripts/build.sh \
  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-gline-tables-only -O1" \
  -DLOCKSIM_SANITIZE=address,undefined -DLOCKSIM_BUILD_FUZZERS=ON -DLOCKSIM_BUILD_BENCHMARKS=OFF "$@"
