#include "scenario/plan.h"

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model/system.h"
#include "scenario/scenario_parser.h"

namespace locksim::scenario {
namespace {

using namespace sim::literals;

// A readable rendering, so plans compare (and fail) legibly.
std::string describe(const PlannedFault& fault) {
  const std::string trigger = std::holds_alternative<AtTime>(fault.trigger)
                                  ? fmt::format("at {}", std::get<AtTime>(fault.trigger).at.count_ns())
                                  : fmt::format("on event {}", std::get<OnEvent>(fault.trigger).nth);
  return fmt::format("faults[{}] {} {} for {}", fault.index, fault.target, trigger, fault.length.count_ns());
}

std::vector<std::string> describe(const Plan& plan) {
  std::vector<std::string> lines;
  for (const PlannedFault& fault : plan.faults) lines.push_back(describe(fault));
  for (const auto& [node, drift] : plan.drift_ppb) lines.push_back(fmt::format("{} drifts {}", node, drift));
  return lines;
}

const char* kRandomFaults = R"({"name": "random", "duration": "5m", "workers": {"count": 4},
  "clocks": {"drift_ppm": 200},
  "faults": [
    {"kind": "pause", "target": "workers", "rate": "3/min", "for": {"dist": "uniform", "min": "1s", "max": "20s"}},
    {"kind": "crash", "target": "any", "at": "30s", "restart_after": "5s"},
    {"kind": "pause", "target": "worker-2", "when": "after-acquire", "nth": 2, "for": "15s"}]})";

TEST(Plan, TheSameSeedGivesTheSamePlan) {
  const Scenario scenario = parse_scenario(kRandomFaults, "random.json");
  EXPECT_EQ(describe(make_plan(scenario, 5)), describe(make_plan(scenario, 5)));
  EXPECT_NE(describe(make_plan(scenario, 5)), describe(make_plan(scenario, 6)));
}

TEST(Plan, RateFaultsFallInsideTheRunAndHitTheirGroup) {
  const Scenario scenario = parse_scenario(kRandomFaults, "random.json");
  const Plan plan = make_plan(scenario, 11);
  int rate_occurrences = 0;
  for (const PlannedFault& fault : plan.faults) {
    if (fault.index != 0) continue;
    ++rate_occurrences;
    EXPECT_LT(std::get<AtTime>(fault.trigger).at, 5_min);
    EXPECT_EQ(fault.target.rfind("worker-", 0), 0u) << fault.target;
    EXPECT_GE(fault.length, 1_s);
    EXPECT_LE(fault.length, 20_s);
  }
  EXPECT_GT(rate_occurrences, 3);  // 3/min over 5 min: 15 expected
  for (const auto& [node, drift] : plan.drift_ppb) {
    EXPECT_LE(std::abs(drift), 200'000) << node;
  }
  EXPECT_EQ(plan.drift_ppb.size(), 6u);  // redis-0, storage, 4 workers
}

TEST(Plan, AddingAFaultDoesNotShiftAnotherFaultsDraws) {
  const Scenario one = parse_scenario(
      R"({"name": "x", "faults": [{"kind": "pause", "target": "any", "at": "1s", "for": {"dist": "uniform", "min": "1s", "max": "9s"}}]})",
      "x.json");
  const Scenario two = parse_scenario(
      R"({"name": "x", "faults": [{"kind": "pause", "target": "any", "at": "1s", "for": {"dist": "uniform", "min": "1s", "max": "9s"}},
                                  {"kind": "pause", "target": "any", "at": "2s", "for": "3s"}]})",
      "x.json");
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_EQ(describe(make_plan(one, seed).faults[0]), describe(make_plan(two, seed).faults[0]));
  }
}

RC_GTEST_PROP(Plan, ASwarmSeedEnablesANonEmptySubsetOfTheFaults, (std::uint64_t seed)) {
  const Scenario scenario = parse_scenario(
      R"({"name": "x", "swarm": true, "faults": [
           {"kind": "pause", "target": "worker-1", "at": "1s", "for": "1s"},
           {"kind": "pause", "target": "worker-2", "at": "2s", "for": "1s"},
           {"kind": "crash", "target": "redis-0", "at": "3s"}]})",
      "x.json");
  const Plan plan = make_plan(scenario, seed);
  RC_ASSERT(!plan.faults.empty());
  RC_ASSERT(plan.faults.size() <= 3u);
  RC_ASSERT(describe(plan) == describe(make_plan(scenario, seed)));
}

// workers.start's default: every worker begins within the first second, and
// over many seeds worker-1 goes first in about half (a fair draw, not a tie it
// always wins). 2,000 seeds: the count lies within 4.5 standard deviations
// (±100) of 1,000 unless the draws are biased; fixed seeds, so it cannot flicker.
TEST(Plan, TheDefaultStartsSpreadTheWorkersOverASecondAndTheFirstIsAFairDraw) {
  const Scenario scenario = parse_scenario(R"({"name": "x"})", "x.json");
  int worker_1_first = 0;
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    const Plan plan = make_plan(scenario, seed);
    ASSERT_EQ(plan.worker_starts.size(), 2u);
    for (const auto& [worker, start] : plan.worker_starts) {
      EXPECT_GE(start, 0_s) << worker;
      EXPECT_LE(start, 1_s) << worker;
    }
    if (plan.worker_starts.at("worker-1") < plan.worker_starts.at("worker-2")) ++worker_1_first;
  }
  EXPECT_GT(worker_1_first, 900);
  EXPECT_LT(worker_1_first, 1100);
}

TEST(Plan, AddingAWorkerDoesNotShiftTheOtherWorkersStarts) {
  const Scenario two = parse_scenario(R"({"name": "x", "workers": {"count": 2}})", "x.json");
  const Scenario three = parse_scenario(R"({"name": "x", "workers": {"count": 3}})", "x.json");
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Plan smaller = make_plan(two, seed);
    const Plan larger = make_plan(three, seed);
    EXPECT_EQ(larger.worker_starts.size(), 3u);
    EXPECT_EQ(smaller.worker_starts.at("worker-1"), larger.worker_starts.at("worker-1"));
    EXPECT_EQ(smaller.worker_starts.at("worker-2"), larger.worker_starts.at("worker-2"));
  }
}

TEST(Plan, AConstantStartPlansEveryWorkerAtIt) {
  const Scenario scenario = parse_scenario(R"({"name": "x", "workers": {"count": 3, "start": "250ms"}})", "x.json");
  const Plan plan = make_plan(scenario, 7);
  ASSERT_EQ(plan.worker_starts.size(), 3u);
  for (const auto& [worker, start] : plan.worker_starts) EXPECT_EQ(start, 250_ms) << worker;
}

}  // namespace
}  // namespace locksim::scenario

namespace locksim::scenario {
namespace {

// The plan's node names are asked of the model, and the model's answer is
// the nodes a System really adds, for every service kind.
TEST(NodeNames, AreTheNodesTheModelsSystemAddsInOrder) {
  for (const char* service : {R"({"kind": "redis"})", R"({"kind": "redis-failover"})", R"({"kind": "redlock"})",
                              R"({"kind": "redlock", "instances": 3})", R"({"kind": "consensus"})"}) {
    const Scenario scenario =
        parse_scenario(fmt::format(R"({{"name": "x", "service": {}, "workers": {{"count": 3}}}})", service), "x.json");
    sim::Simulation simulation{sim::SimulationOptions{}, [](std::string_view) {}};
    const model::System system{simulation, scenario.system};
    std::vector<std::string> added;
    for (std::uint32_t index = 0; index < simulation.node_count(); ++index) {
      added.push_back(simulation.node_name(sim::NodeId{index}));
    }
    EXPECT_EQ(scenario_node_names(scenario), added) << service;
  }
}

}  // namespace
}  // namespace locksim::scenario
