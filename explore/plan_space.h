#pragma once
// The space `locksim explore` searches: the plans a scenario's own faults
// and sizes allow — which of its faults occur, whom they hit, when, for how
// long (within each distribution's support), how many workers and jobs, and
// whether the network delay and the work length are the scenario's
// distributions or a constant. One point of it is an ExploreCase.
//
// Cases are drawn with rapidcheck (rc::Random, rc::Gen) as rc::Shrinkable
// values, so rapidcheck's shrinking gives each failing case its simpler
// neighbours: a fault left out, fewer workers or jobs, a shorter length, an
// earlier time, a constant in place of a distribution. Integers shrink
// towards their lower end; times and lengths move in whole milliseconds.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck/Random.h>
#include <rapidcheck/Shrinkable.h>

#include "scenario/plan.h"
#include "scenario/scenario.h"

namespace locksim::explore {

// An event of the fault's target that explore may fire the fault at
// instead of the file's own trigger: `delay_ns` after the target's `nth`
// event of kind `when` (scenario::OnEvent). This is how explore reaches the
// instants no time and no rate lands on except by luck: between a worker's
// lease check and its write (before-write), right after a grant.
struct Anchor {
  scenario::TriggerEvent when = scenario::TriggerEvent::kAfterAcquire;
  int nth = 1;
  std::int64_t delay_ns = 0;

  friend bool operator==(const Anchor&, const Anchor&) = default;
};

// One fault occurrence a case may have: a scenario fault, or one occurrence
// of a fault that fires at a rate.
struct FaultSlot {
  std::size_t fault = 0;       // its index in the scenario's faults
  bool present = true;         // false: left out
  std::size_t target = 0;      // which of the fault's possible targets (modulo their number)
  std::int64_t at_ns = 0;      // when it fires, true time (a fault with `when` keeps its trigger)
  std::int64_t length_ns = 0;  // its `for`
  // Set: the fault fires at this anchor instead (when it is one of the
  // resolved target's, anchors_of_node; else the file's trigger stands).
  std::optional<Anchor> anchor;

  friend bool operator==(const FaultSlot&, const FaultSlot&) = default;
};

struct ExploreCase {
  std::uint64_t seed = 1;  // the run's own random streams: work lengths, network delays, clocks
  std::vector<FaultSlot> faults;
  int workers = 1;
  int jobs = 1;  // per worker (billing: customers)
  std::optional<std::int64_t> network_delay_us;  // a constant in place of the network's delay
  std::optional<std::int64_t> work_us;           // a constant in place of workers.work

  friend bool operator==(const ExploreCase&, const ExploreCase&) = default;
};

// A case made runnable: the scenario with its sizes and distributions
// replaced, and the plan of faults (every one explicit).
struct RunnableCase {
  scenario::Scenario scenario;
  scenario::Plan plan;
};

// Draws one case from the whole of `scenario`'s space (rapidcheck's nominal
// size: no early small tests, which would spend half the tests on one worker
// when the scenario has two; shrinking finds the small case).
[[nodiscard]] rc::Shrinkable<ExploreCase> draw_case(const scenario::Scenario& scenario, const rc::Random& random);

// The case that runs exactly as `run` runs `plan` (a plan of the whole
// scenario, scenario::make_plan), with the same shrinks as a drawn case:
// where explore starts from a seed that `run` shows failing.
[[nodiscard]] rc::Shrinkable<ExploreCase> case_of_plan(const scenario::Scenario& scenario, const scenario::Plan& plan);

[[nodiscard]] RunnableCase runnable(const scenario::Scenario& scenario, const ExploreCase& point);

// The anchors `node` has: a worker's acquire.ok (after-acquire), write.invoke
// (before-write), acquire.invoke (before-reply) and, when billing charges
// an external API, effect.invoke (before-charge); a lock service instance's
// lease.grant (after-grant). Storage, payments and Sentinel have none.
[[nodiscard]] std::vector<scenario::TriggerEvent> anchors_of_node(const scenario::Scenario& scenario,
                                                                  const std::string& node);

// Equal for two runnable cases that run alike (a left-out fault's fields,
// or a target index that wraps to the same node, do not count).
[[nodiscard]] std::string run_key(const RunnableCase& runnable_case);

// The fewest workers the scenario's faults allow: the highest worker-N any
// fault names (as target, partition side or failover side), else 1.
[[nodiscard]] int fewest_workers(const scenario::Scenario& scenario);

}  // namespace locksim::explore
