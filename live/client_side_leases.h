#pragma once
// The lock service's events of a run whose workers are the user's own
// program (workers.command): its lock code (redsync, Redisson, its own Lua)
// logs nothing in Redis, so the only witness of a grant is the worker's own
// acquire.ok. Each promise is derived from the worker's lines so that it is
// never longer than the one Redis really made:
//
// - the key was set somewhere between acquire.invoke (i) and acquire.ok (o),
//   so Redis promised at least [o, i + lease]: the lease.grant is placed at
//   o with lease_ns = i + lease − o (at least 1 ns);
// - a renew.ok extends it to renew.invoke + lease, when that is later (and
//   never after the worker began to release it);
// - a release.ok ends it just after release.invoke;
// - otherwise it expires at its derived deadline (or, superseded by the
//   worker's own next grant, just before that).
//
// Every overlap of two such promises is one the real ones had too: a
// double_grant found this way is a fact, though a short-lived real one can
// be missed. The lease is the acquire.ok's lease_ns, else the scenario's.
// Pure: the same lines give the same events.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksim::live {

struct ClientSideLeaseInputs {
  std::string lock_name;
  std::string instance = "redis-0";  // the proc the lease events are written as
  std::int64_t default_lease_ns = 0;  // 0: the lock has no expiry
  std::int64_t end_ns = 0;           // a lease whose deadline is later than this has not expired
};

// `worker_lines`: every worker's lines, each worker's in its own order (t, proc, ev, call, fields).
// Returns lock-service lines with `t`, `proc`, `ev` and fields.
[[nodiscard]] std::vector<nlohmann::json> client_side_leases(const std::vector<nlohmann::json>& worker_lines,
                                                             const ClientSideLeaseInputs& inputs);

}  // namespace locksim::live
