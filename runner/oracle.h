#pragma once
// Oracle: the second witness of a simulated run. While the simulation runs it
// computes, from the models' own facts as they happen, what really went
// wrong — which instance promised which lease when, which holds overlapped,
// what storage served in which lock order — and at the end the count of each
// violation kind. The runner compares these counts with the checker's verdict
// on the recorded history; any difference is a bug in one of the two.
//
// Why it is a second witness and not a copy: it shares no code with
// checker/. It sees the models' typed records as they are made (never the
// JSON text), takes the final storage values from the storage model itself,
// and keeps the state the way the models do, not the way a history reader
// must infer it:
// - an instance holds at most one lease per lock: a grant over a live lease
//   replaces it, whatever the history says about the old one;
// - a lease is identified by (owner, token): adopted by a promoted replica, it
//   is the same lease, ending once wherever it ends;
// - an instance that crashes keeps its promises to their deadlines (last
//   grant or renewal plus the lease): nobody promised more, and a crash takes
//   nothing back that the owner was told;
// - the lock order is the order in which gains (an owner reaching its quorum
//   of promises, or, already holding by an older lease of its own, a quorum
//   of promises of a new token) happened, and storage's served order is the order of its
//   accepts.
//
// The definitions it computes are docs/history-format.md's (see docs/checker.md for
// the counting conventions: double_grant and double_holder once per
// overlapping pair, duplicate_effect once per extra accepted effect — storage's
// write.accept with a job or the payments node's effect.accept — lost_update the
// number of updates lost).
//
// Deterministic; memory proportional to the instances, workers and jobs; O(log n)
// per record.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checker/stale_write_check.h"
#include "checker/violation.h"
#include "sim/history_recorder.h"
#include "sim/time.h"

namespace locksim::runner {

struct OracleSetup {
  // Distinct instances that must promise an owner a lease for it to hold the
  // lock: 1 for one Redis or a primary with its replica, the majority for Redlock.
  int quorum = 1;
  // stuck_lock's threshold: the scenario's lock.stuck_after.
  sim::Duration stuck_after = sim::Duration::seconds(100);
  // lost_update is counted for the counter only, duplicate_effect for billing
  // only; write-only's harm is the stale write, counted for every workload.
  enum class Workload : std::uint8_t { kCounter, kBilling, kWriteOnly };
  Workload workload = Workload::kCounter;
  std::string counter_key;  // the counter workload's key
};

// Counts per violation kind, indexed by the kind's position in
// checker::kAllViolationKinds: the violations and the incidents (see
// checker/violation.h for what one incident is), plus the late writes (no
// violation).
struct OracleCounts {
  std::array<std::int64_t, checker::kAllViolationKinds.size()> violations{};
  std::array<std::int64_t, checker::kAllViolationKinds.size()> incidents{};
  std::int64_t late_writes = 0;

  [[nodiscard]] std::int64_t of(checker::ViolationKind kind) const {
    return violations[static_cast<std::size_t>(kind)];
  }
  [[nodiscard]] std::int64_t incidents_of(checker::ViolationKind kind) const {
    return incidents[static_cast<std::size_t>(kind)];
  }
};

class Oracle {
 public:
  explicit Oracle(OracleSetup setup);

  // One record, at true time `now`, in the order they are made.
  void observe(sim::Time now, std::string_view proc, vocabulary::EventKind event, std::span<const sim::Field> fields);

  // The counts, given storage's final values (from the storage model).
  [[nodiscard]] OracleCounts finish(const std::map<std::string, std::int64_t>& final_values) const;

 private:
  // A lease an instance promises: from its grant until the instance ends it,
  // or, once the instance forgot it, until the last grant or renewal plus the
  // lease length (true time).
  struct Promise {
    std::string owner;
    std::int64_t token = 0;
    sim::Time renewed_at;                  // the last grant, renewal or adoption
    std::optional<sim::Duration> length;   // nullopt: no expiry
  };
  struct ForgottenPromise {
    Promise promise;
    std::string instance;
    std::optional<sim::Time> ends_at;  // nullopt: never
    bool crashed = false;  // its instance crashed with it live: restarted, it may still end it
  };
  // When an owner held the lock (double_grant) or a worker worked under it
  // (double_holder), in the oracle's own step order, so that two things
  // happening at one instant are ordered as they happened. Incidents are the
  // groups of these that overlap, found once at the end.
  struct Stretch {
    std::int64_t begin = 0;
    std::int64_t end = 0;  // kOpen while it lasts
    sim::Time begun_at;
  };
  static constexpr std::int64_t kOpen = INT64_MAX;

  struct OwnerState {
    std::map<std::string, int, std::less<>> promises_by_instance;
    bool holds = false;                       // a quorum of instances promise it
    std::size_t holding_stretch = 0;          // in holding_, while it holds
    std::size_t working_stretch = 0;          // in working_, while it works
    std::optional<std::int64_t> epoch;        // the lock order of its latest gain or re-gain
    std::int64_t gained_token = 0;            // the token of that gain, while it holds
    // (token, epoch) of its last checker::kGainsMatchedByToken gains and re-gains, newest last: a
    // read or write carrying one of those tokens belongs to that gain's place
    // in the lock order (the checker's rule, checker/stale_write_check.h).
    std::deque<std::pair<std::int64_t, std::int64_t>> recent_gains;
    bool working = false;                     // between its hold.begin and hold.end
    // Stopped holding, or (no hold ended since) its latest crash; a grant or
    // acquire.ok clears it, as a hold.begin does: it is acquiring, not idle.
    std::optional<sim::Time> useless_since;
    bool hold_ended = false;                  // since its last hold.begin
    bool stuck_reported = false;              // for the current useless_since
    // Its lease as its own calls tell it: the invoke time of its last
    // successful acquire or renewal plus that call's lease. A hold with no
    // hold.end ends there at the latest.
    std::optional<sim::Time> acquire_invoked_at;
    std::optional<sim::Time> renew_invoked_at;
    std::optional<sim::Time> lease_end;       // of the current hold
    std::optional<sim::Time> next_lease_end;  // from the last acquire.ok: for the next hold
    // While it works past lease_end: when other workers' holds began. Each is
    // a double holder once it shows it held on (hold.end, a renewal past it).
    std::vector<sim::Time> overlaps_if_held_on;
  };

  void forget_due_promises(sim::Time now);
  // An adoption moves a lease to the promoted replica and is never a re-gain.
  enum class Granted { kNewLease, kAdopted };
  void grant(sim::Time now, std::string_view instance, Promise promise, Granted granted = Granted::kNewLease);
  // Distinct instances promising `owner` `token`, live or forgotten.
  [[nodiscard]] int instances_promising(std::string_view owner, std::int64_t token) const;
  void renew(sim::Time now, std::string_view instance, std::string_view owner, std::int64_t token,
             std::optional<sim::Duration> length);
  void end(std::string_view instance, std::string_view owner, std::int64_t token);
  // kInstanceCrashed: the instance went down with the lease (it may end it once restarted).
  enum class Forgotten { kReplacedOrLost, kInstanceCrashed };
  void forget(std::string_view instance, std::string_view owner, std::int64_t token,
              Forgotten why = Forgotten::kReplacedOrLost);
  void crash_instance(std::string_view instance);
  // The lease `instance` crashed with, if it still waits for its deadline.
  std::vector<ForgottenPromise>::iterator crashed_with_lease(std::string_view instance, std::string_view owner,
                                                             std::int64_t token);
  void adopt(sim::Time now, std::string_view instance, Promise promise);
  // One more (+1) or one fewer (-1) promise of `owner` by `instance`.
  void count_promise(std::string_view instance, const std::string& owner, int delta);

  void begin_work(sim::Time now, std::string_view worker);
  // A renewal invoked at `invoked_at` with lease `length` succeeded.
  void renewed(std::string_view worker, std::optional<sim::Time> invoked_at, std::optional<sim::Duration> length);
  // Ends `state`'s hold: kAtLease (a crash, a replacing hold.begin) at its
  // lease if that ran out before, else now; kNow (its hold.end) now.
  enum class StretchEnd { kNow, kAtLease };
  void end_stretch(sim::Time now, OwnerState& state, StretchEnd end);
  void acquiring(std::string_view worker);
  // The worker stops working: its hold ended, or it crashed.
  enum class WorkStop { kHoldEnd, kCrash };
  void stop_work(sim::Time now, std::string_view worker, WorkStop why);
  void failed_acquire(sim::Time now, std::string_view worker);
  // token_order: a grant by `instance`'s counter, a worker's acquisition invoked or acquired.
  void granted_token(std::string_view instance, std::string_view owner, std::int64_t token);
  void invoked_acquire(std::string_view worker);
  void acquired_token(std::string_view worker, std::int64_t token);
  // The lock-order place of what `worker` sent with `token` (none: its latest gain's).
  [[nodiscard]] std::optional<std::int64_t> epoch_of(std::string_view worker, std::optional<std::int64_t> token) const;
  void served(std::string_view worker, std::optional<std::int64_t> token);
  void accepted_write(std::string_view writer, std::optional<std::int64_t> token, std::string_view key,
                      std::string_view job);
  // One accepted effect for `job`: a storage write carrying it, or an external effect.accept.
  void accepted_effect(std::string_view job);

  OwnerState& owner(std::string_view name);
  // Starts a stretch in `stretches` and returns where it is; ends one.
  std::size_t open_stretch(std::vector<Stretch>& stretches, sim::Time now);
  // The step a stretch at `index` that ended at `time` ends at: before every later stretch begun at or after it.
  [[nodiscard]] std::int64_t step_before(const std::vector<Stretch>& stretches, std::size_t index,
                                         sim::Time time) const;
  void close_stretch(std::vector<Stretch>& stretches, std::size_t index);
  // The number of groups of two or more stretches linked by overlaps.
  [[nodiscard]] static std::int64_t overlapping_groups(std::vector<Stretch> stretches);

  OracleSetup setup_;
  std::map<std::string, Promise, std::less<>> live_by_instance_;  // one lock: one key per instance
  std::vector<ForgottenPromise> forgotten_;
  std::map<std::string, OwnerState, std::less<>> owners_;
  std::int64_t step_ = 0;  // ticks at every stretch opened or closed
  sim::Time last_now_;     // of the latest record
  std::vector<Stretch> holding_;  // every owner's, in the order they began
  std::vector<Stretch> working_;
  std::set<std::int64_t> stale_epochs_;  // the gains whose holder wrote stale
  std::int64_t duplicated_jobs_ = 0;
  std::int64_t gains_ = 0;                 // the epoch of the latest gain
  std::int64_t served_epoch_ = 0;          // the latest epoch storage has served
  std::map<std::string, std::int64_t, std::less<>> accepted_writes_by_key_;
  std::map<std::string, std::int64_t, std::less<>> accepted_effects_by_job_;  // storage and external
  // token_order. Per token counter (the service's, or each Redlock
  // instance's): its highest token and who got it, and whether it now runs
  // below it (one incident until it passes it).
  struct TokenCounter {
    std::int64_t highest = 0;
    std::string highest_owner;
    bool granted = false;
    bool below = false;
  };
  std::map<std::string, TokenCounter, std::less<>> token_counters_;
  std::set<std::pair<std::string, std::int64_t>> out_of_order_grants_;  // (owner, token), white-box
  std::map<std::int64_t, std::string> acquired_tokens_;                 // token -> its first owner
  std::map<std::string, std::int64_t, std::less<>> highest_acquired_by_owner_;
  std::map<std::string, std::optional<std::int64_t>, std::less<>> highest_other_at_invoke_;  // worker ->
  OracleCounts counts_;
};

// The checker's count disagrees with the oracle's for one measure.
struct OracleMismatch {
  std::string measure;  // "double_holder", "incidents.double_holder" or "late_writes"
  std::int64_t checker_count = 0;
  std::int64_t oracle_count = 0;
};

}  // namespace locksim::runner
