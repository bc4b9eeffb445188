#pragma once
// The critical event of a minimal counterexample: for each of its faults,
// whether the run still shows the violation without it, and for a fault with
// a length (a pause's or partition's `for`, a clock jump's `by`, a delay
// spike's `extra`) the smallest length that still
// shows it, found by bisection to a microsecond. A pause is stated against
// the lease its target held when it froze. A plan without faults gets its
// settings bisected instead (the work, the network delay).

#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "explore/case_runner.h"
#include "explore/plan_space.h"
#include "sim/time.h"

namespace locksim::explore {

struct CriticalEvent {
  // A minimal plan without faults owes its violation to its settings: then
  // the events are the constant `workers.work` and `network.delay`, each
  // bisected between 0 and its value, and `setting` names it.
  std::string setting;    // "workers.work", "network.delay", "seed" (neither decides it); "" for a fault
  std::size_t fault = 0;  // the scenario's fault index ("faults[i]")
  scenario::FaultKind kind = scenario::FaultKind::kPause;
  std::string target;
  bool needed = false;                     // without it the run does not show the violation
  std::string length_name;                 // "for", "by", "extra" (a setting: its name); "" without a length
  std::optional<sim::Duration> length;     // as the minimal plan has it
  std::optional<sim::Duration> threshold;  // the smallest length that still shows it (a jump back: in magnitude)
  std::optional<sim::Duration> lease;      // a pause of a worker: its lease, and what was left of it when it froze
  std::optional<sim::Duration> lease_left;
  std::string statement;                   // for people
};

// `history`: the minimal run's lines (for the lease a paused worker held).
[[nodiscard]] std::vector<CriticalEvent> critical_events(const RunnableCase& minimal, CaseRunner& runner,
                                                         checker::ViolationKind kind,
                                                         const std::vector<std::string>& history);

}  // namespace locksim::explore
