#pragma once
// The Redlock client algorithm as a live worker runs it against N real
// redis-servers: the same algorithm as the simulator's (model/redlock_client.h,
// after the redis.io page "Distributed Locks with Redis" and redsync):
//
//   acquire: the same SET NX PX script with the same value on every instance
//     at once, each request with its own timeout min(request_timeout, ttl/10);
//     granted iff a majority (N/2+1) granted and the validity left,
//       ttl − elapsed − (drift_factor · ttl + 2 ms),
//     is positive (elapsed is not subtracted when the scenario's client skips
//     the re-check, H14); else the release script on every instance, even
//     those that seemed not to grant;
//   renew: compare-and-extend on every instance, renewed iff a majority
//     extended it and validity is left;
//   release: compare-and-delete on every instance, "released" iff a
//     majority deleted it.
//
// The token it reports is the highest of the granting instances' own INCR
// counters, as the model does: not a safe fencing token (the counters do not
// agree across instances; see the caveat in model/redlock_client.h).
//
// This class knows nothing of keys or scripts: the worker gives it each
// request's arguments, the same for every instance. The "+ 2 ms" is the
// page's allowance for real clocks' resolution, so it is not scaled with
// the scenario's durations.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/async_redis.h"
#include "sim/clock_kind.h"

namespace locksim::live {

struct RedlockTiming {
  std::optional<std::chrono::nanoseconds> ttl;  // the lease as given to Redis; nullopt: no expiry
  double drift_factor = 0.01;
  bool subtract_elapsed = true;                  // the published algorithm; false: H14's client
  std::chrono::nanoseconds request_timeout{500'000'000};  // the scenario's (scaled)
  sim::ClockKind clock = sim::ClockKind::kMonotonic;      // workers.clock: what the validity is timed on
};

struct RedlockOutcome {
  bool ok = false;
  std::int64_t token = 0;              // acquire: the highest token among the instances that granted
  std::int64_t valid_until_ns = 0;     // on the worker's lease clock (RedlockTiming::clock); INT64_MAX without expiry
  std::string reason;                  // when not ok: no-quorum, validity-elapsed
};

class RedlockClient {
 public:
  RedlockClient(asio::any_io_executor executor, RedlockTiming timing);

  // One connection to each instance, redis-0 first (through the fault
  // proxy, which accepts even when an instance is down).
  asio::awaitable<void> connect(std::string host, std::vector<int> ports);

  // `acquire` and `release` are the two scripts' arguments ("EVAL", …);
  // `on_all_sent` runs once every instance's acquire request is written,
  // before any reply is read.
  asio::awaitable<RedlockOutcome> acquire(std::vector<std::string> acquire, std::vector<std::string> release,
                                          std::function<void()> on_all_sent = {});
  asio::awaitable<RedlockOutcome> renew(std::vector<std::string> extend);
  asio::awaitable<RedlockOutcome> release(std::vector<std::string> release);

  [[nodiscard]] int quorum() const { return static_cast<int>(connections_.size()) / 2 + 1; }
  [[nodiscard]] std::chrono::nanoseconds per_request_timeout() const;
  // What is left of the TTL when a round that began `elapsed` ago is over.
  [[nodiscard]] std::chrono::nanoseconds validity_after(std::chrono::nanoseconds elapsed) const;

 private:
  // The request on every instance at once; each reply by instance (nullopt: none within the timeout).
  asio::awaitable<std::vector<std::optional<RespValue>>> on_every_instance(std::vector<std::string> arguments,
                                                                          std::function<void()> on_all_sent = {});
  [[nodiscard]] std::int64_t valid_until(std::int64_t started_ns) const;

  asio::any_io_executor executor_;
  RedlockTiming timing_;
  std::vector<std::unique_ptr<AsyncRedis>> connections_;
};

}  // namespace locksim::live
