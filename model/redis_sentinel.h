#pragma once
// RedisSentinel: what Redis Sentinel tells Sentinel-aware clients — which
// instance of a `redis-failover` service is the primary now. One per service,
// shared (read-only) by every worker's lock client and by storage's
// `validate: service` lookup; the failover moves it at the moment of
// promotion, so from then on every request (acquire, renew, release, the GET
// of get-then-set, storage's validation) goes to the new primary.
//
// Except in a split brain: clients on the old primary's side of the partition
// cannot hear of the promotion (Sentinel's `+switch-master` does not reach
// them) and keep sending to the old primary until the partition heals and
// Sentinel demotes it.
//
// Clients learn of the switch at once otherwise: the model leaves out the
// delay of Sentinel's notification and of reconnecting.

#include <cstddef>
#include <cstdint>
#include <set>

#include "sim/message.h"

namespace locksim::model {

struct RedisSentinel {
  std::size_t primary_index = 0;  // into the service's instances, redis-0 first
  // Split brain: the old primary and the clients (by node index) still on its side.
  std::size_t old_primary_index = 0;
  std::set<std::uint32_t> clients_with_old_primary;

  // The instance `client` sends its requests to.
  [[nodiscard]] std::size_t primary_for(sim::NodeId client) const {
    return clients_with_old_primary.contains(client.index) ? old_primary_index : primary_index;
  }
};

}  // namespace locksim::model
