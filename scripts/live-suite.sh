#!/usr/bin/env bash
# The built-in library's live subset (scripts/live-subset.txt, and
# scripts/live-subset-etcd.txt on etcd): the scenarios whose expectations
# must hold against a real Redis or etcd too. Runs each
# with `locksim live --compare-sim`
# (RUNS runs per fencing mode, default 10, beside as many simulated seeds)
# and exits 1 if an expectation failed live or simulated. An entry
# NAME:SCALE runs at that --time-scale unless one is given here. Fewer than
# about 8 runs fail many entries both live and simulated: a hazard that needs
# worker-1 to hold first shows only in the seeds where it does, and in seeds
# 1 to 3 worker-2 starts first (workers.start; seed 4 is the first where
# worker-1 does).
#   bash scripts/live-suite.sh [RUNS] [--time-scale F]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
shift || true
[ -x build/locksim ] || bash scripts/build.sh

subset=()
for list in scripts/live-subset.txt scripts/live-subset-etcd.txt; do
  while read -r entry _; do
    [ -n "$entry" ] && [ "${entry:0:1}" != "#" ] && subset+=("$entry")
  done < "$list"
done

scale_given=0
for argument in "$@"; do
  [ "$argument" = "--time-scale" ] && scale_given=1
done

failed=0
for entry in "${subset[@]}"; do
  name="${entry%%:*}"
  scale=()
  if [ "$entry" != "$name" ] && [ "$scale_given" = 0 ]; then
    scale=(--time-scale "${entry#*:}")
  fi
  if ! build/locksim live "$name" --runs "$runs" --compare-sim "${scale[@]}" "$@"; then
    failed=1
  fi
done
exit "$failed"
