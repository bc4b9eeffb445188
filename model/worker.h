#pragma once
// A worker: one machine running the job loop under the lock.
//
//   [wait for its start] → acquire (retry with jitter) → hold.begin → read → work → [check lease] →
//   write → hold.end → release → idle → next job
//
// (The write-only workload skips the read: its write is the job's result.)
//
// With a watchdog, a renewal process on the same node extends the lease every
// renew_every while the hold lasts; a node pause freezes it too, and a
// starve-renewal fault can freeze it alone. The worker learns that a renewal
// failed only when it next looks (before the write with check_before_write,
// else after it): the gap is the hazard.
//
// Billing with charge `external` makes the job two steps under one hold: a
// call to the payments node (effect.invoke → effect.ok / effect.fail), then
// the cursor write (mark done); a failure at either step redoes the job.
//
// With acquire_timeout or max_tries the worker gives up a job whose acquire
// has not succeeded in time (acquire.give_up): a failed job, never done. A
// counter or write-only worker goes on with its next job; a billing worker
// (whose jobs are the shared customers) stops.
//
// A job whose write was rejected or got no answer is done again under a new
// acquisition. The worker object outlives crashes: its finished-job count is
// the external job queue; everything in its processes is lost.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "model/client_rules.h"
#include "model/lock_client.h"
#include "model/options.h"
#include "sim/simulation.h"

namespace locksim::model {

class Worker {
 public:
  // `payments`: the payments node, for billing with charge `external`.
  Worker(std::string name, SystemOptions options, LockClient& client, sim::NodeId storage,
         std::optional<sim::NodeId> payments, std::function<void()> on_finished);

  [[nodiscard]] sim::NodeBoot boot();
  // Its first job begins `offset` after t = 0 (a worker restarted before then
  // waits for it too).
  void start_after(sim::Duration offset) { start_offset_ = offset; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] bool finished() const { return finished_; }
  // Jobs whose effect was accepted (counter, write-only) or customers it charged (billing).
  [[nodiscard]] int jobs_done() const { return jobs_.done; }
  [[nodiscard]] bool holding() const { return held_.has_value(); }

  // What its work cost it: the calls it made (each acquire attempt, renewal,
  // release, read, write and external call is one round trip, a Redlock
  // acquire included though it asks every instance), and the time from
  // asking for the lock to holding it, summed over its grants, on its
  // monotonic clock. Measured, never read by the worker itself.
  struct Costs {
    std::int64_t calls = 0;
    sim::Duration acquire_wait = sim::Duration::zero();
  };
  [[nodiscard]] const Costs& costs() const { return costs_; }

  // Called just before this worker's node crashes: a hold ends with it.
  void before_crash(sim::Simulation& simulation);

 private:
  struct JobResult {
    bool done = false;      // the job's effect was accepted (or there was nothing left to do)
    bool no_more_work = false;
  };

  sim::Task<> run(sim::Context context);
  // The lease, or nullopt when the worker gave the job up.
  sim::Task<std::optional<Lease>> acquire_until_granted(sim::Context context);
  sim::Task<JobResult> do_job_holding(sim::Context context);
  // Billing with charge `external`: the payments call; true if the customer stands charged.
  sim::Task<bool> charge_externally(sim::Context context, std::int64_t customer, std::optional<std::string> request_id);
  sim::Task<> renew_while_holding(sim::Context context, std::uint64_t hold_number);
  sim::Task<> release_lock(sim::Context context, Lease lease);
  void begin_hold(sim::Context context, const Lease& lease);
  void end_hold(sim::Context context);
  [[nodiscard]] std::optional<std::int64_t> token_to_send() const;
  // The held lease's believed end has passed, on the lease clock.
  [[nodiscard]] bool lease_ran_out(sim::Context context) const;

  std::string name_;
  SystemOptions options_;
  LockClient* client_;
  sim::NodeId storage_;
  std::optional<sim::NodeId> payments_;
  std::function<void()> on_finished_;

  JobCount jobs_;
  Costs costs_;
  sim::Duration start_offset_ = sim::Duration::zero();
  bool finished_ = false;
  std::uint64_t acquisitions_ = 0;
  std::uint64_t attempt_keys_ = 0;  // idempotency keys per attempt handed out (client_rules.h)
  std::optional<Lease> held_;
  std::uint64_t hold_number_ = 0;
  bool lease_lost_ = false;
};

}  // namespace locksim::model
