#pragma once
// Payments: an external API the billing workload charges customers through
// (charge `external`), a node of its own reached over the network like
// storage — a payment provider, not the team's database.
//
// It takes no fencing token: a charge that reaches it happens, whoever sends
// it and whatever token travels with it, because the provider knows nothing of
// the lock. Its only defence is the idempotency key: with keys on it remembers
// every request_id it charged and answers a repeat with the earlier result
// instead of charging again (as payment APIs replay a repeated key).
// Recorded: `effect.accept` (a charge made) or `effect.reject` (reason
// duplicate-request: a repeat dropped), each with `job`, `writer`, and
// `request_id` / `token` when the call carried them. Its memory is durable.

#include <cstdint>
#include <set>
#include <string>

#include "sim/simulation.h"

namespace locksim::model {

class Payments {
 public:
  explicit Payments(bool idempotency_keys) : idempotency_keys_{idempotency_keys} {}

  [[nodiscard]] sim::NodeBoot boot();

 private:
  sim::Task<> serve(sim::Context context);

  bool idempotency_keys_;
  std::set<std::string> seen_request_ids_;
};

}  // namespace locksim::model
