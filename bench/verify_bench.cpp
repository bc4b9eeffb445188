// `locksim verify`'s speed: runs per second of the runs a verification makes
// (each by a choice script, through the chooser), next to the same scenario's
// seeded runs as `run` makes them (the honest reference: the same simulator
// and checker without a chooser), and a whole one-deviation search on one
// thread. On control-no-faults, h01 (fencing on) and h16-consensus-holder-pause.
//
//   build/bench/verify_bench
//   build/bench/verify_bench --benchmark_filter=h01
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"
#include "verify/verification.h"

namespace {

using locksim::model::Fencing;

constexpr std::array<const char*, 3> kScenarios = {"control-no-faults", "h01-gc-pause-past-lease",
                                                   "h16-consensus-holder-pause"};

locksim::scenario::Scenario builtin(const std::string& name) {
  return locksim::scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json");
}

locksim::explore::ExploreGoal stale_writes_fenced() {
  locksim::explore::ExploreGoal goal;
  goal.mode = Fencing::kOn;
  goal.kinds = {locksim::checker::ViolationKind::kStaleWrite};
  return goal;
}

// Every script with one deviation of the run with none, in the search's order.
std::vector<std::vector<std::uint32_t>> one_deviation_scripts(const locksim::scenario::Scenario& scenario,
                                                              const locksim::verify::Bounds& bounds) {
  const locksim::verify::VerifiedRun base = locksim::verify::run_script(scenario, Fencing::kOn, {}, bounds);
  std::vector<std::vector<std::uint32_t>> scripts;
  for (std::size_t position = 0; position < base.points.size(); ++position) {
    for (std::uint32_t index = 1; index < base.points[position].domain_size; ++index) {
      std::vector<std::uint32_t> script(position, 0);
      script.push_back(index);
      scripts.push_back(std::move(script));
    }
  }
  return scripts;
}

void scripted_runs(benchmark::State& state, const std::string& name) {
  const locksim::scenario::Scenario scenario = builtin(name);
  const locksim::verify::Bounds bounds;
  const std::vector<std::vector<std::uint32_t>> scripts = one_deviation_scripts(scenario, bounds);
  std::size_t next = 0;
  std::int64_t runs = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const locksim::verify::VerifiedRun made =
        locksim::verify::run_script(scenario, Fencing::kOn, scripts[next++ % scripts.size()], bounds);
    benchmark::DoNotOptimize(made.run.history_hash);
    events += made.run.events;
    ++runs;
  }
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(runs);
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}

void seeded_runs(benchmark::State& state, const std::string& name) {
  const locksim::scenario::Scenario scenario = builtin(name);
  std::uint64_t seed = 1;
  std::int64_t runs = 0;
  std::uint64_t events = 0;
  for (auto _ : state) {
    const locksim::runner::SeedRun run =
        locksim::runner::run_plan(scenario, locksim::scenario::make_plan(scenario, seed++), Fencing::kOn);
    benchmark::DoNotOptimize(run.history_hash);
    events += run.events;
    ++runs;
  }
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(runs);
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}

void one_deviation_search(benchmark::State& state, const std::string& name) {
  const locksim::scenario::Scenario scenario = builtin(name);
  locksim::verify::Bounds bounds;
  bounds.deviations = 1;
  std::int64_t runs = 0;
  for (auto _ : state) {
    const locksim::verify::Verification verification =
        locksim::verify::verify(scenario, stale_writes_fenced(), bounds, 1);
    runs += verification.runs;
  }
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}

void register_all() {
  for (const char* name : kScenarios) {
    benchmark::RegisterBenchmark((std::string{"scripted_run/"} + name).c_str(), scripted_runs, std::string{name});
    benchmark::RegisterBenchmark((std::string{"seeded_run/"} + name).c_str(), seeded_runs, std::string{name});
    benchmark::RegisterBenchmark((std::string{"one_deviation_search/"} + name).c_str(), one_deviation_search,
                                 std::string{name})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
