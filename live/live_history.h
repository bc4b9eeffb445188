#pragma once
// A live run's history, put together from what each part saw: the workers'
// own lines (timed on the machine's monotonic clock, shared by every local
// process), the records the Redis scripts logged atomically with each
// decision (with the server's TIME), and the coordinator's fault events.
//
// How each event is timed:
// - a worker's event: when the worker saw it (before sending a request,
//   after reading its reply);
// - an event decided inside Redis (lease.grant/renew/release, read.accept,
//   write.accept/reject…): at the server's TIME when its script ran, held
//   within the invoking call's send and reply (strictly after the send; a
//   call that timed out or lost its connection has no reply to bound it) and
//   after the same server's previous event, in script order;
// - lease.expire: at the deadline of the lease's grant or last renewal on the
//   server's clock — Redis treats a key as gone at its deadline, whenever it
//   is deleted — and before the next grant of that lock at that instance;
// - lease.lost (reason restart): when a lock-service instance was started
//   again after a crash and no longer had the lease's key (no persistence),
//   as the simulator records it;
// - run.begin at 0, run.end after everything, with the final values.
// Pure: the same inputs give the same lines.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim::live {

// A crash and restart of a lock-service instance by the coordinator. Its records
// after the restart carry a server TIME later than `crashed_ns` (the old
// process was gone by then), which is how records of each incarnation are
// told apart when a restart without persistence starts the sequence afresh.
struct LockRestart {
  std::int64_t crashed_ns = 0;    // the run's time just after the old process was killed
  std::int64_t restarted_ns = 0;  // just before the new process was started
  std::optional<std::string> kept_value;  // the lock key's value right after the restart
};

// A role change of a `redis-failover` service (failover_service.h), placed
// at the run's time the coordinator heard of it.
struct LockRoleChange {
  enum class Kind {
    kPromotion,  // the replica was told to serve as primary (Sentinel's REPLICAOF NO ONE)
    kRejoin,     // the old primary was told to become the new one's replica (a split brain's end)
  };
  Kind kind = Kind::kPromotion;
  std::int64_t t = 0;
  std::string promoted = "redis-1";
  std::string old_primary = "redis-0";
  bool old_primary_alive = false;         // a split brain: the old primary still keeps its promises
  std::optional<std::string> kept_value;  // promotion: the lock key's value on the promoted replica
  std::int64_t kept_lease_ns = 0;         // ... and what its PTTL said was left (0: no expiry)
};

// One instance of the lock service (`redis-0`; Redlock's `redis-0` …
// `redis-(N-1)`): what its scripts logged, and its crashes.
struct LockInstanceRecords {
  std::string name;
  std::vector<nlohmann::json> log;     // its script records, in any order, no duplicates
  std::vector<LockRestart> restarts;   // in time order
};

struct LiveRecords {
  nlohmann::ordered_json run_begin;             // run.begin's fields (scenario, seed, fencing, …)
  std::vector<nlohmann::json> worker_lines;     // each worker's lines in its own order: t, proc, ev, fields, `call`
  std::vector<nlohmann::json> coordinator_lines;  // fault.begin/end (nemesis), crash/restart (the worker)
  std::vector<LockInstanceRecords> lock_instances;  // the lock service's, redis-0 first
  // redis-failover: when the replica took over (and the old primary
  // rejoined), in time order; the instances' records are then placed in the
  // order they happened across both servers.
  std::vector<LockRoleChange> role_changes;
  std::vector<nlohmann::json> storage_log;      // storage's script records (and the payments script's effect.*)
  // Lock-service lines already timed (`t`, proc, ev, fields), for a lock
  // whose code logs nothing: derived from the workers' lines (client_side_leases.h).
  std::vector<nlohmann::json> lease_lines;
  std::string lock_name;                        // the lock's name as the history writes it
  std::int64_t realtime_minus_run_ns = 0;       // CLOCK_REALTIME − the run's t, to place the servers' TIME
  std::int64_t end_ns = 0;                      // when the run ended
  nlohmann::ordered_json final_values;          // storage key → value at the end
};

// The history's JSON lines (without newlines), `i` from 0.
[[nodiscard]] std::vector<std::string> live_history(const LiveRecords& records);

}  // namespace locksim::live
