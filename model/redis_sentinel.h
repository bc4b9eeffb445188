#pragma once
// RedisSentinel: what Redis Sentinel tells Sentinel-aware clients — which
// instance of a `redis-failover` service is the primary now. One per service,
// shared (read-only) by every worker's lock client and by storage's
// `validate: service` lookup; the failover fault moves it at the moment of
// promotion, so from then on every request (acquire, renew, release, the GET
// of get-then-set, storage's validation) goes to the new primary.
//
// Clients learn of the switch at once: the model leaves out the delay of
// Sentinel's `+switch-master` notification and of reconnecting.

#include <cstddef>

namespace locksim::model {

struct RedisSentinel {
  std::size_t primary_index = 0;  // into the service's instances, redis-0 first
};

}  // namespace locksim::model
