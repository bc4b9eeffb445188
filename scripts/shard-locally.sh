#!/usr/bin/env bash
# Runs a scenario suite as N shards in parallel on this machine, with GNU
# parallel, then merges them into one judged summary (docs/scale-out.md).
#   bash scripts/shard-locally.sh N OUT_DIR [run arguments...]
# e.g. bash scripts/shard-locally.sh 4 out/shards scenarios/ --seeds 1000
# Exit: merge's (0 every expectation held, 1 one failed, 2 bad input).
# LOCKSIM=path picks the binary (default build/locksim, built if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
shards="$1"
out="$2"
shift 2
locksim="${LOCKSIM:-build/locksim}"
[ -n "${LOCKSIM:-}" ] || [ -x build/locksim ] || bash scripts/build.sh
mkdir -p "$out"
# Each shard runs on one thread: the shards are the parallelism. A shard's
# own exit code says nothing (a shard judges nothing); merge judges the whole.
seq 0 $(( shards - 1 )) | parallel --halt now,fail=1 \
  "$locksim" run "$@" --threads 1 --quiet --shard "{}/$shards" --json "$out/shard-{}.json" ">" /dev/null
"$locksim" merge "$out"/shard-*.json --json "$out/all.json"
