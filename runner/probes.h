#pragma once
// Hazard probes: did a run reach the precondition of the hazard its scenario
// is about? A scenario whose faults never bit (the paused worker was not
// holding, the clock jump was within the drift allowance) proves nothing, and
// `run` reports it as inert instead of green.
//
// Counted from the history as it is recorded (an EventObserver):
// - pause_past_lease: a lease expired at the service while its owner was paused;
// - late_op_at_storage: storage got a write, or a fenced read, from a worker
//   after the lock was granted to someone else (accepted or not);
// - clock_jump_beyond_drift: a clock jumped by more than the lease's drift
//   allowance (drift_factor · lease + 2 ms);
// - failover_lost_lease: a failover lost a lease the replica had not received;
// - foreign_key_release: a release hit a key owned by someone else (deleted
//   it, or was refused by compare-and-delete while another owner held it).
//
// The probes follow one lock, as the built-in scenarios have.

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "sim/history_recorder.h"
#include "sim/time.h"

namespace locksim::runner {

inline constexpr std::string_view kProbeNames[] = {"pause_past_lease", "late_op_at_storage",
                                                   "clock_jump_beyond_drift", "failover_lost_lease",
                                                   "foreign_key_release"};

class ProbeCounter {
 public:
  // `drift_allowance`: the clock-jump size a lease tolerates.
  explicit ProbeCounter(sim::Duration drift_allowance) : drift_allowance_{drift_allowance} {}

  void observe(std::string_view proc, vocabulary::EventKind event, std::span<const sim::Field> fields);
  // Every probe, reached or not (0).
  [[nodiscard]] std::map<std::string, std::int64_t> counts() const;

 private:
  sim::Duration drift_allowance_;
  std::map<std::string, std::int64_t> counts_;
  std::set<std::string, std::less<>> paused_;
  std::string latest_owner_;   // the last owner granted the lock
  std::string current_owner_;  // that owner while its lease lives at the service
  std::set<std::string, std::less<>> granted_before_;
};

}  // namespace locksim::runner
