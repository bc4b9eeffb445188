#pragma once
// The Redlock client, as the redis.io page "Distributed Locks with Redis"
// (antirez) publishes the algorithm:
//
//   1. read the current time (the worker's own clock): start;
//   2. send `SET lock value NX PX ttl` with the same random value to every
//      instance at once, each with a timeout short next to the TTL;
//   3. elapsed = now − start; the lock is acquired iff a majority quorum
//      (N/2+1) granted it and the validity left is positive, where
//        validity = ttl − elapsed − (drift_factor · ttl + 2 ms);
//   4. acquired: the lease is believed valid until start + validity;
//   5. not acquired: unlock every instance (compare-and-delete), even those
//      that seemed not to grant, and report failure; the worker retries
//      after its retry delay (the page's random jitter).
//
// Clients that skip the elapsed-time check in step 3 (ElapsedCheck::
// kIgnoreElapsed) compute validity = ttl − drift only: time spent waiting for
// the replies, a pause included, is not subtracted, so they can believe they
// hold a lease that every instance has already expired (hazard H14).
//
// Release is compare-and-delete on every instance; renewal is
// compare-and-extend (or plain PEXPIRE) on every instance, renewed iff a quorum extended it and
// validity (computed as in step 3) is left.
//
// The per-request timeout is min(request_timeout, ttl / 10): the page asks for
// a timeout "small compared to the total lock auto-release time" (5–50 ms for
// a 10 s TTL in its example) so that a down instance costs little validity;
// a tenth of the TTL keeps a down instance from eating the whole validity
// while leaving the default 500 ms in force for every TTL of 5 s and more.
//
// TOKEN CAVEAT: Redlock has no fencing token. Each instance counts its own
// grants (INCR), and those counters do not agree across instances, so two
// successive holders can see the same or a *decreasing* number. The client
// reports the highest token among the instances that granted, only because the
// worker needs a number for its history and for `fencing: on`; it is not a safe
// fencing token (hazards.md: "Redlock — none: a per-node counter cannot agree
// across nodes"), and storage fencing on it may accept a stale write or reject
// a current one.
//
// The acquire method is always SET NX PX (get-then-set has no Redlock form).

#include <optional>
#include <string>
#include <vector>

#include "model/lock_client.h"
#include "model/options.h"

namespace locksim::model {

enum class ElapsedCheck {
  kSubtractElapsed,  // validity = ttl − elapsed − drift (the published algorithm)
  kIgnoreElapsed,    // validity = ttl − drift: the time spent waiting for replies is forgotten
};

struct RedlockClientOptions {
  std::optional<sim::Duration> lease = sim::Duration::seconds(10);  // the TTL; nullopt = no expiry; default 10 s
  ReleaseMethod release = ReleaseMethod::kCompareAndDelete;          // default compare-and-delete
  RenewCommand renew_command = RenewCommand::kCompareAndExtend;      // default compare-and-extend
  double drift_factor = 0.01;                                       // fraction of the TTL allowed for clock drift; default 0.01
  ElapsedCheck elapsed_check = ElapsedCheck::kSubtractElapsed;      // default: the published algorithm
  sim::Duration request_timeout = sim::Duration::milliseconds(500);  // upper bound per request; default 500 ms
};

class RedlockClient final : public LockClient {
 public:

  // Requires at least one instance.
  RedlockClient(std::vector<sim::NodeId> instances, std::string lock, RedlockClientOptions options);

  sim::Task<AcquireOutcome> acquire(sim::Context context, std::string owner, std::string value) override;
  sim::Task<RenewOutcome> renew(sim::Context context, Lease lease) override;
  sim::Task<ReleaseOutcome> release(sim::Context context, std::string owner, Lease lease) override;

  [[nodiscard]] int quorum() const { return static_cast<int>(instances_.size()) / 2 + 1; }
  [[nodiscard]] sim::Duration per_request_timeout() const { return per_request_timeout_; }
  // How much validity is left of a TTL whose round started `elapsed` ago.
  [[nodiscard]] sim::Duration validity_after(sim::Duration elapsed) const;
  // Until when the client believes a lease whose round started at `start`
  // (on its lease clock): start + TTL − drift, whatever the round took.
  [[nodiscard]] sim::LocalTime believed_until(sim::LocalTime start) const;

 private:
  // Compare-and-delete (or DEL) on every instance at once; how many deleted.
  sim::Task<int> delete_everywhere(sim::Context context, std::string requester, std::string value);

  std::vector<sim::NodeId> instances_;
  std::string lock_;
  RedlockClientOptions options_;
  sim::Duration ttl_;  // Duration::max(): no expiry
  sim::Duration per_request_timeout_;
};

}  // namespace locksim::model
