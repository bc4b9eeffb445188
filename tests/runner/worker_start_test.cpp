// workers.start: each worker's first job begins at the plan's start for it,
// in the simulator as the plan says (live: live_run.cpp's begin_of).
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"

namespace locksim::runner {
namespace {

using namespace sim::literals;

// Each worker's first acquire.invoke, in true ns.
std::map<std::string, std::int64_t> first_asks(const scenario::Scenario& scenario, const scenario::Plan& plan) {
  std::map<std::string, std::int64_t> first;
  const SeedRun run = run_plan(scenario, plan, model::Fencing::kOff, [&](std::string_view line, const sim::Simulation&) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record["ev"] == "acquire.invoke") first.try_emplace(record["proc"].get<std::string>(), record["t"].get<std::int64_t>());
  });
  EXPECT_EQ(run.unfinished_jobs, 0);
  return first;
}

TEST(WorkerStart, EachWorkerFirstAsksForTheLockAtItsPlannedStart) {
  const scenario::Scenario scenario = scenario::parse_scenario(
      R"({"name": "x", "workers": {"count": 3}, "workload": {"kind": "counter", "jobs": 2}})", "x.json");
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const scenario::Plan plan = scenario::make_plan(scenario, seed);
    const std::map<std::string, std::int64_t> first = first_asks(scenario, plan);
    ASSERT_EQ(first.size(), 3u);
    for (const auto& [worker, start] : plan.worker_starts) EXPECT_EQ(first.at(worker), start.count_ns()) << worker;
  }
}

TEST(WorkerStart, AWorkerRestartedBeforeItsStartStillWaitsForIt) {
  const scenario::Scenario scenario = scenario::parse_scenario(
      R"({"name": "x", "workers": {"count": 2, "start": "500ms"},
          "faults": [{"kind": "crash", "target": "worker-2", "at": "100ms", "restart_after": "50ms"}]})",
      "x.json");
  const std::map<std::string, std::int64_t> first = first_asks(scenario, scenario::make_plan(scenario, 1));
  EXPECT_EQ(first.at("worker-1"), (500_ms).count_ns());
  EXPECT_EQ(first.at("worker-2"), (500_ms).count_ns());
}

TEST(WorkerStart, WithoutAnOffsetEveryWorkerAsksAtTimeZero) {
  const scenario::Scenario scenario =
      scenario::parse_scenario(R"({"name": "x", "workers": {"count": 2, "start": "0s"}})", "x.json");
  const std::map<std::string, std::int64_t> first = first_asks(scenario, scenario::make_plan(scenario, 3));
  EXPECT_EQ(first.at("worker-1"), 0);
  EXPECT_EQ(first.at("worker-2"), 0);
}

}  // namespace
}  // namespace locksim::runner
