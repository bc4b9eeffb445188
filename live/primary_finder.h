#pragma once
// How a live worker of a redis-failover service finds the primary, as
// Sentinel-aware clients do (redis-py's Sentinel, Jedis's
// JedisSentinelPool, Redisson's sentinel mode):
// - at start, and again after a call to the lock service failed (no answer
//   in time, a broken connection, READONLY from a demoted primary), it asks
//   Sentinel `SENTINEL get-master-addr-by-name` and points its connections
//   at the answer;
// - it subscribes to Sentinel's `+switch-master` and points them at the new
//   primary as soon as Sentinel announces it.
// Sentinel and the servers are reached through the worker's links in the
// fault proxy (SentinelRoute maps the addresses Sentinel announces to
// them), so a partition that cuts the worker off from Sentinel keeps it
// from hearing of a failover, as it would in production.

#include <chrono>
#include <vector>

#include "live/async_redis.h"
#include "live/asio_coroutines.h"
#include "live/worker_config.h"

namespace locksim::live {

class PrimaryFinder {
 public:
  // `connections` (the worker's to the lock service) must outlive this.
  PrimaryFinder(asio::any_io_executor executor, SentinelRoute route, std::vector<AsyncRedis*> connections);

  // Asks Sentinel and points the connections at the primary it names.
  // False when Sentinel gave no usable answer within `timeout` (they stay as they were).
  asio::awaitable<bool> ask(std::chrono::nanoseconds timeout);

  // Follows +switch-master until the connection to Sentinel breaks (then it
  // subscribes again, after `retry`).
  asio::awaitable<void> follow_switches(std::chrono::nanoseconds retry);

 private:
  void point_at(int announced_port);

  SentinelRoute route_;
  std::vector<AsyncRedis*> connections_;
  AsyncRedis questions_;
  AsyncRedis switches_;
};

}  // namespace locksim::live
