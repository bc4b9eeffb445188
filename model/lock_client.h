#pragma once
// LockClient: how a worker talks to one kind of lock service. One object per
// worker; the worker's job loop (worker.h) records the history events, the
// client only speaks the protocol.

#include <cstdint>
#include <optional>
#include <string>

#include "model/options.h"
#include "sim/simulation.h"

namespace locksim::model {

// A lease as the worker believes it to be.
struct Lease {
  std::int64_t token = 0;
  sim::Duration length;          // as granted; Duration::max() = no expiry
  sim::LocalTime valid_until;    // on the worker's lease clock (workers.clock); LocalTime::max() = no expiry
  std::string value;             // the unique value in the lock key
  // Redlock: what is left of the TTL when the round ended (TTL − elapsed −
  // drift), the time the client may count on; nullopt for one-instance clients.
  std::optional<sim::Duration> validity;
};

struct AcquireOutcome {
  std::optional<Lease> lease;  // set iff acquired
  std::string reason;          // otherwise: "held" | "timeout" | "no-quorum" | "read-only" | ...
};

struct RenewOutcome {
  bool renewed = false;
  sim::LocalTime valid_until;  // when renewed; on the lease clock
  std::string reason;          // when not
};

struct ReleaseOutcome {
  bool released = false;
  std::string reason;
};

class LockClient {
 public:
  virtual ~LockClient() = default;

  // One attempt to take `lock` for `owner`, putting `value` in the key.
  virtual sim::Task<AcquireOutcome> acquire(sim::Context context, std::string owner, std::string value) = 0;
  virtual sim::Task<RenewOutcome> renew(sim::Context context, Lease lease) = 0;
  virtual sim::Task<ReleaseOutcome> release(sim::Context context, std::string owner, Lease lease) = 0;

  // The clock this client times its lease on (`workers.clock`): the believed
  // end `valid_until`, and the elapsed time Redlock subtracts, are readings
  // of it. Monotonic unless set: Go's time.Since and Java's nanoTime.
  void set_lease_clock(sim::ClockKind clock) { lease_clock_ = clock; }
  [[nodiscard]] sim::ClockKind lease_clock() const { return lease_clock_; }

 private:
  sim::ClockKind lease_clock_ = sim::ClockKind::kMonotonic;
};

}  // namespace locksim::model
