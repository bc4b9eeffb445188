#!/usr/bin/env bash
# Peak memory (max RSS) of `locksim run` against the number of seeds, on a
# one-job scenario (bench/data/one-job.json): it must stay flat, since runs
# are added into the totals as they finish. Prints one line per seed count.
# Usage: bench/memory_in_seeds.sh [BUILD_DIR] (default build/); needs GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${1:-build}/locksim"
for seeds in 10000 100000 1000000; do
  /usr/bin/time -f "${seeds} seeds: %M KB max RSS, %e s wall" \
    "$binary" run bench/data/one-job.json --seeds "$seeds" --quiet >/dev/null
done
