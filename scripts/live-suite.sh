#!/usr/bin/env bash
# The built-in library's live subset: the scenarios whose expectations must
# hold against a real Redis too. Runs each with `locksim live --compare-sim`
# (RUNS runs per fencing mode, default 10, beside as many simulated seeds)
# and exits 1 if an expectation failed live or simulated. An entry
# NAME:SCALE runs at that --time-scale unless one is given here (Sentinel's
# own timing does not scale: docs/live.md, "Sentinel's timing"). Fewer than
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

subset=(
  control-no-faults              # nothing may go wrong
  h01-gc-pause-past-lease        # a pause past the lease: stale writes without fencing, none with it
  h08-plain-del-release          # a plain DEL deletes the next holder's lock ...
  h08-compare-and-delete         # ... compare-and-delete does not
  h24-idempotence-is-not-fencing # request ids do not stop a stale write; tokens do
  h26-lease-shorter-than-work    # no fault at all, a lease shorter than the work
  h26-watchdog-renewal           # a watchdog mends it
  h26-watchdog-freeze-35s        # a freeze longer than the watchdog's lease loses the lock ...
  h26-watchdog-freeze-20s        # ... a shorter one does not
  h26-watchdog-renewal-timeout-stop # a watchdog that stops after one unanswered renewal loses the lock ...
  h26-watchdog-renewal-timeout   # ... one that renews at the next period keeps it
  h10-no-lease-crash             # no lease: a crashed holder blocks everyone
  write-only-gc-pause            # a late result over a newer one
  redis-restart-no-persistence   # the lock server restarts empty: a second grant, fencing cannot help
  redis-everysec-process-crash   # ... with an AOF it keeps the lease
  h02-delayed-write              # a write held in the network lands after the next holder's
  h02-write-into-partition       # TCP retransmits a write sent into a partition; it lands after the heal
  h12-renewal-cut-off            # a partition starves the watchdog's renewals
  h09-get-then-set               # a GET and a SET are two steps: two holders at once
  h25-duplicate-charge           # a spike makes the holder charge again: payments take no token
  h25-idempotency-keys           # ... a job-derived key stops it
  h25-attempt-keys               # ... a key per attempt does not
  h25-fenced-storage             # ... a charge that is one fenced write is turned away
  h14-redlock-reply-handled-late # Redlock: a client frozen with its replies unread, no re-check: a double holder ...
  h14-redlock-recheck-elapsed    # ... re-checking the elapsed time: none
  h06-redlock-restart-empty      # Redlock: an instance of a bare majority restarts empty: a second majority ...
  h06-redlock-delayed-restart    # ... a delayed restart: none
  failover-replicated            # a failover after the grant replicated: the replica adopts the lease
  h07-failover-before-replication:0.25  # ... before it replicated: a second grant, the same token
  failover-split-brain:0.1       # two primaries grant the lock; fencing cannot help
  failover-wait-replicas:0.1     # WAIT keeps clients off the unreplicated grants
  failover-min-replicas:0.1      # with one replica, min-replicas-to-write: unavailability, no second grant
  failover-primary-crash:0.1     # a plain crash: Sentinel fails it over to a replica that holds the grant
  failover-primary-pause:0.1     # a paused primary wakes still a primary and grants again
)

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
