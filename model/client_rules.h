#pragma once
// The lock client's rules, as pure functions over plain values: what a
// worker does after an acquire fails, which jobs it still has, what it
// writes and with which idempotency key, how a hold ends, what validity a
// Redlock round leaves. The simulated worker (model/worker.cpp) and live
// mode's worker (live/live_worker.cpp) are two shells — one on sim::Task,
// one on Asio — around these same rules, so the two cannot drift apart.
// Times are passed in: each shell reads its own clock.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/options.h"
#include "sim/time.h"

namespace locksim::model {

// Jobs per worker; nullopt for billing, whose customers are shared, not per
// worker (a billing worker works until the cursor says all are billed).
[[nodiscard]] std::optional<int> jobs_per_worker(const Workload& workload);

// A worker's jobs so far: done (their effect accepted) and given up (acquire.give_up).
struct JobCount {
  int done = 0;
  int given_up = 0;
  [[nodiscard]] bool any_left(std::optional<int> jobs) const { return !jobs || done + given_up < *jobs; }
};

// What a worker does after a failed acquire: wait `wait` and try again, or
// give the job up (`give_up` is acquire.give_up's reason).
struct AfterFailedAcquire {
  sim::Duration wait;
  const char* give_up = nullptr;
};

// After the `tries`-th failed attempt of a job, `elapsed` after its first
// one began, with the retry wait `drawn` from workers.retry: max_tries and
// acquire_timeout (`timeout`, as the shell's clock counts it) decide. Like
// tryLock(wait), a wait never runs past the deadline, and at the deadline
// the job is given up.
[[nodiscard]] AfterFailedAcquire after_failed_acquire(std::optional<int> max_tries,
                                                      std::optional<sim::Duration> timeout, std::int64_t tries,
                                                      sim::Duration elapsed, sim::Duration drawn);

// How long one of a consensus client's acquire requests may wait for its
// turn: a third of the session's TTL (etcd's client keeps a session alive
// every TTL/3, and the waiting doubles as that keep-alive), or without a
// TTL the request timeout.
[[nodiscard]] sim::Duration consensus_poll_interval(std::optional<sim::Duration> ttl, sim::Duration request_timeout);

// A worker that gave a job up: billing's worker stops (its jobs are the
// shared customers); the others go on with their next job.
[[nodiscard]] bool stops_after_giving_up(const Workload& workload);

// What one job writes under its hold.
struct WriteIntent {
  std::int64_t value = 0;
  std::optional<std::int64_t> job;         // billing: the customer charged
  std::optional<std::string> request_id;   // storage.idempotency_keys: the write's (or charge's) key
};

// The write of a job, from what it read (`observed`; none for write-only,
// whose value is the job's number, done + 1) by `worker` with `done` jobs
// done. An attempt key (per write, not per job) takes the next number of
// `attempt_keys`, which counts those this worker has handed out. Nullopt
// when billing's cursor says every customer is billed: no work left.
[[nodiscard]] std::optional<WriteIntent> write_intent(const SystemOptions& options, std::string_view worker,
                                                      std::optional<std::int64_t> observed, int done,
                                                      std::uint64_t& attempt_keys);

// A hold's end reason, as the holder can know it: a failed renewal (lost),
// its own lease clock saying the lease ran out (expired), else released.
[[nodiscard]] const char* hold_end_reason(bool lease_lost, bool lease_ran_out);

// After a failed renewal with `reason`: whether the watchdog renews again
// at its next period (workers.renew_on_error). A renewal the service
// answered with the lock gone (not-owner, not-held, session-expired, or a
// Redlock round without a quorum) ends it; one that got no answer or an
// error answer ends it only with "stop". When it ends, the lease counts as
// lost (hold_end_reason, skips_write).
[[nodiscard]] bool renews_again_after(const WorkerOptions& workers, std::string_view reason);

// Whether a renewal that failed with `reason` is sent again (while
// workers.renew_retries lasts): only one that got no answer in time, which
// may not have arrived (an answer, even an error, is final), and only by a
// Redis client (redis, redis-failover: Redisson's command retries). A
// Redlock round (redsync) and an etcd keep-alive are not re-sent.
[[nodiscard]] bool resends_renewal_after(ServiceKind service, std::string_view reason);

// check_before_write: the holder looks at its lease before writing and
// skips the write when it knows the lease is gone.
[[nodiscard]] bool skips_write(const WorkerOptions& workers, bool lease_lost, bool lease_ran_out);

// Redlock (redis.io's page, redsync, node-redlock): the validity a round
// that began `elapsed` ago leaves of `ttl`: ttl − elapsed − (drift_factor ·
// ttl + 2 ms); with `subtract_elapsed` false (H14's client), ttl − drift.
inline constexpr sim::Duration kRedlockDriftAllowanceMinimum = sim::Duration::milliseconds(2);
[[nodiscard]] sim::Duration redlock_validity(sim::Duration ttl, sim::Duration elapsed, double drift_factor,
                                             bool subtract_elapsed);

}  // namespace locksim::model
