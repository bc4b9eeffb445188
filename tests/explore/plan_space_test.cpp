// The plan space explore draws from: every drawn case lies within the
// scenario's own space, and every shrink of a case is no bigger than it.

#include <algorithm>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "explore/plan_space.h"
#include "runner/seed_run.h"
#include "explore_support.h"

namespace locksim::explore {
namespace {

std::int64_t present_faults(const ExploreCase& point) {
  return std::ranges::count_if(point.faults, [](const FaultSlot& slot) { return slot.present; });
}

// No part of `smaller` is bigger than the same part of `bigger`.
void require_no_bigger(const ExploreCase& smaller, const ExploreCase& bigger) {
  RC_ASSERT(smaller.seed == bigger.seed);
  RC_ASSERT(smaller.workers <= bigger.workers);
  RC_ASSERT(smaller.jobs <= bigger.jobs);
  RC_ASSERT(present_faults(smaller) <= present_faults(bigger));
  RC_ASSERT(smaller.faults.size() == bigger.faults.size());
  for (std::size_t index = 0; index < smaller.faults.size(); ++index) {
    const FaultSlot& small = smaller.faults[index];
    const FaultSlot& big = bigger.faults[index];
    RC_ASSERT(!small.present || big.present);
    RC_ASSERT(small.at_ns <= big.at_ns);
    RC_ASSERT(small.length_ns <= big.length_ns);
    RC_ASSERT(small.target <= big.target);
    RC_ASSERT(small.anchor.has_value() == big.anchor.has_value());
    if (small.anchor && big.anchor) {
      RC_ASSERT(small.anchor->when == big.anchor->when);
      RC_ASSERT(small.anchor->nth <= big.anchor->nth);
      RC_ASSERT(small.anchor->delay_ns <= big.anchor->delay_ns);
    }
  }
  if (smaller.network_delay_us && bigger.network_delay_us) RC_ASSERT(*smaller.network_delay_us <= *bigger.network_delay_us);
  if (smaller.work_us && bigger.work_us) RC_ASSERT(*smaller.work_us <= *bigger.work_us);
}

// random-gc-pauses: rate-triggered pauses of a random worker, three workers.
RC_GTEST_PROP(PlanSpace, EveryShrinkIsNoBiggerThanItsCase, (std::uint64_t key)) {
  static const scenario::Scenario scenario = testing::builtin("random-gc-pauses");
  const rc::Shrinkable<ExploreCase> drawn = draw_case(scenario, rc::Random{key});
  const ExploreCase point = drawn.value();
  rc::Seq<rc::Shrinkable<ExploreCase>> shrinks = drawn.shrinks();
  int checked = 0;
  while (rc::Maybe<rc::Shrinkable<ExploreCase>> shrink = shrinks.next()) {
    require_no_bigger(shrink->value(), point);
    RC_ASSERT(!(shrink->value() == point));
    if (++checked == 200) break;
  }
}

RC_GTEST_PROP(PlanSpace, EveryDrawnCaseRunsWithinTheScenariosSpace, (std::uint64_t key)) {
  static const scenario::Scenario scenario = testing::builtin("h01-gc-pause-past-lease");
  const ExploreCase point = draw_case(scenario, rc::Random{key}).value();
  RC_ASSERT(point.workers >= fewest_workers(scenario));
  RC_ASSERT(point.workers <= scenario.system.workers.count);
  RC_ASSERT(point.jobs >= 1);
  RC_ASSERT(point.jobs <= 5);

  const RunnableCase runnable_case = runnable(scenario, point);
  const std::vector<std::string> nodes = scenario::scenario_node_names(runnable_case.scenario);
  const std::set<std::string> known(nodes.begin(), nodes.end());
  for (const scenario::PlannedFault& fault : runnable_case.plan.faults) {
    RC_ASSERT(known.contains(fault.target));
    // h01's pause is uniform(12s, 20s) after the first acquire.
    RC_ASSERT(fault.length >= sim::Duration::seconds(12));
    RC_ASSERT(fault.length <= sim::Duration::seconds(20));
    RC_ASSERT(std::holds_alternative<scenario::OnEvent>(fault.trigger));
  }
}

// Explore starts from a seed `run` shows failing: the case it makes of the
// seed's plan must run exactly as `run` ran it — the same history, byte for
// byte — and its shrinks must be no bigger. Swarm, rate, timed and
// event-triggered faults, a failover service and billing.
RC_GTEST_PROP(PlanSpace, TheCaseOfASeedsPlanRunsExactlyAsTheSeed, (std::uint64_t seed_draw)) {
  static const std::vector<scenario::Scenario> scenarios{
      testing::builtin("random-gc-pauses"), testing::builtin("h01-gc-pause-past-lease"),
      testing::builtin("failover-replicated"), testing::builtin("h25-duplicate-charge")};
  const scenario::Scenario& scenario = scenarios[seed_draw % scenarios.size()];
  const std::uint64_t seed = 1 + (seed_draw / scenarios.size()) % 10'000;
  const scenario::Plan plan = scenario::make_plan(scenario, seed);
  const rc::Shrinkable<ExploreCase> point = case_of_plan(scenario, plan);
  const RunnableCase again = runnable(scenario, point.value());

  const auto history_of = [](const scenario::Scenario& which, const scenario::Plan& its_plan) {
    std::string history;
    (void)runner::run_plan(which, its_plan, model::Fencing::kOff, [&history](std::string_view line, const sim::Simulation&) {
      history += line;
      history += '\n';
    });
    return history;
  };
  RC_ASSERT(history_of(scenario, plan) == history_of(again.scenario, again.plan));

  rc::Seq<rc::Shrinkable<ExploreCase>> shrinks = point.shrinks();
  int checked = 0;
  while (rc::Maybe<rc::Shrinkable<ExploreCase>> shrink = shrinks.next()) {
    require_no_bigger(shrink->value(), point.value());
    if (++checked == 50) break;
  }
}

TEST(PlanSpace, AnAnchorAppliesOnlyToTheNodesThatHaveItsEvent) {
  using scenario::TriggerEvent;
  const scenario::Scenario counter = testing::builtin("h01-gc-pause-past-lease");
  EXPECT_EQ(anchors_of_node(counter, "worker-1"),
            (std::vector{TriggerEvent::kAfterAcquire, TriggerEvent::kBeforeWrite, TriggerEvent::kBeforeReply}));
  EXPECT_EQ(anchors_of_node(counter, "redis-0"), std::vector{TriggerEvent::kAfterGrant});
  EXPECT_TRUE(anchors_of_node(counter, "storage").empty());
  const scenario::Scenario billing = testing::builtin("h25-duplicate-charge");
  EXPECT_EQ(anchors_of_node(billing, "worker-1").back(), TriggerEvent::kBeforeCharge);
  EXPECT_TRUE(anchors_of_node(billing, "payments").empty());

  // An anchor the resolved target lacks leaves the file's trigger in place.
  ExploreCase point = draw_case(counter, rc::Random{7}).value();
  point.faults.front().present = true;
  point.faults.front().anchor = Anchor{TriggerEvent::kAfterGrant, 1, 0};
  const RunnableCase unmoved = runnable(counter, point);
  const auto* kept = std::get_if<scenario::OnEvent>(&unmoved.plan.faults.front().trigger);
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->when, TriggerEvent::kAfterAcquire);  // h01's own: worker-1's first acquire
  point.faults.front().anchor = Anchor{TriggerEvent::kBeforeWrite, 2, 5'000'000};
  const RunnableCase anchored = runnable(counter, point);
  const auto* moved = std::get_if<scenario::OnEvent>(&anchored.plan.faults.front().trigger);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(moved->when, TriggerEvent::kBeforeWrite);
  EXPECT_EQ(moved->nth, 2);
  EXPECT_EQ(moved->delay, sim::Duration::milliseconds(5));
}

TEST(PlanSpace, FewestWorkersIsTheHighestWorkerAFaultNames) {
  EXPECT_EQ(fewest_workers(testing::builtin("h01-gc-pause-past-lease")), 1);  // worker-1
  EXPECT_EQ(fewest_workers(testing::builtin("random-gc-pauses")), 1);         // any worker
  EXPECT_EQ(fewest_workers(testing::builtin("h05-redlock-clock-jump")), 2);   // a fault after worker-2 acquires
}

TEST(PlanSpace, RunKeyTellsApartOnlyCasesThatRunDifferently) {
  const scenario::Scenario scenario = testing::builtin("h01-gc-pause-past-lease");
  ExploreCase point = draw_case(scenario, rc::Random{7}).value();
  point.faults.front().present = false;
  ExploreCase moved = point;
  moved.faults.front().length_ns += 1'000'000;  // a left-out fault's length does not matter
  EXPECT_EQ(run_key(runnable(scenario, point)), run_key(runnable(scenario, moved)));
  moved.faults.front().present = true;
  EXPECT_NE(run_key(runnable(scenario, point)), run_key(runnable(scenario, moved)));
}

}  // namespace
}  // namespace locksim::explore
