// Whole-pipeline throughput: history events per second for what `locksim
// run` does per seed — make the plan, then for fencing off and on build the
// system, simulate, check the history (and, with the oracle on, compare the
// checker with the in-simulation oracle) — on three built-in scenarios, next
// to the same-work reference (bench/same_work_reference.h: control-no-faults
// simulated and checked by code written for it alone) measured in the same
// run; the ratio pipeline / reference is printed at the end for the
// control, with the oracle off and on, beside each scenario's ratio to a
// bare event loop (a std::priority_queue of 32-byte events, one pop and one
// push per event).
//
// "Memory per run flat": each pipeline benchmark reports the process's peak
// resident set (max_rss_MiB) after it ran; it must not grow with the number
// of runs (compare a run with --benchmark_min_time=10 against the default).
// one_job_run is the fixed cost of a run (its time per iteration is one
// run): one worker, one job.
//
//   build/bench/pipeline_bench
//   build/bench/pipeline_bench --benchmark_filter=control   (one scenario)
#include <sys/resource.h>

#include <array>
#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include "bench/bare_event_loop.h"
#include "bench/rate_reporter.h"
#include "bench/same_work_reference.h"
#include "model/options.h"
#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"

namespace {

using locksim::runner::OracleChoice;

constexpr std::array<const char*, 3> kScenarios = {"control-no-faults", "h01-gc-pause-past-lease", "random-gc-pauses"};
constexpr const char* kReferenceScenario = "control-no-faults";

locksim::scenario::Scenario builtin(const std::string& name) {
  return locksim::scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json");
}

double max_rss_mebibytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

void pipeline(benchmark::State& state, const std::string& name, OracleChoice oracle) {
  const locksim::scenario::Scenario scenario = builtin(name);
  std::uint64_t seed = 1;
  std::uint64_t events = 0;
  std::uint64_t scheduler_events = 0;
  std::uint64_t runs = 0;
  for (auto _ : state) {
    const locksim::scenario::Plan plan = locksim::scenario::make_plan(scenario, seed++);
    for (const locksim::model::Fencing fencing : {locksim::model::Fencing::kOff, locksim::model::Fencing::kOn}) {
      const locksim::runner::SeedRun run = locksim::runner::run_plan(scenario, plan, fencing, {}, oracle);
      if (!run.oracle_mismatches.empty()) {
        state.SkipWithError("the checker and the oracle disagree");
        return;
      }
      events += run.history_events;
      scheduler_events += run.events;
      ++runs;
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(runs);
  state.counters["scheduler_events_per_run"] = static_cast<double>(scheduler_events) / static_cast<double>(runs);
  state.counters["runs_per_s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
  state.counters["max_rss_MiB"] = max_rss_mebibytes();
}

// The same seeds and modes through the same-work reference.
void reference(benchmark::State& state) {
  locksim::bench::SameWorkReference simulator{builtin(kReferenceScenario)};
  std::uint64_t seed = 1;
  std::uint64_t events = 0;
  std::uint64_t heap_events = 0;
  std::uint64_t runs = 0;
  for (auto _ : state) {
    for (const bool fencing : {false, true}) {
      const locksim::bench::ReferenceRun run = simulator.run(seed, fencing);
      if (run.violations != 0) {
        state.SkipWithError("the reference found a violation in the control");
        return;
      }
      benchmark::DoNotOptimize(run.history_hash);
      events += run.history_events;
      heap_events += run.heap_events;
      ++runs;
    }
    ++seed;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(runs);
  state.counters["scheduler_events_per_run"] = static_cast<double>(heap_events) / static_cast<double>(runs);
}

// The fixed cost of a run: one worker, one job, no faults — a few dozen
// events, so the time per run is mostly building the system, the plan and
// the checker (explore's thousands of tiny runs are like this).
constexpr std::string_view kOneJobScenario = R"({
  "name": "one-job",
  "description": "One worker, one job, no faults: the fixed cost of a run.",
  "duration": "1m",
  "lock": { "lease": "30s" },
  "workers": { "count": 1, "work": { "dist": "uniform", "min": "10ms", "max": "10ms" } },
  "workload": { "kind": "counter", "key": "qty", "jobs": 1 },
  "storage": { "fencing": "compare" },
  "network": { "delay": { "dist": "uniform", "min": "1ms", "max": "1ms" } }
})";

void one_job_run(benchmark::State& state) {
  const locksim::scenario::Scenario scenario = locksim::scenario::parse_scenario(kOneJobScenario, "one-job.json");
  std::uint64_t seed = 1;
  std::uint64_t events = 0;
  std::uint64_t runs = 0;
  for (auto _ : state) {
    const locksim::scenario::Plan plan = locksim::scenario::make_plan(scenario, seed++);
    const locksim::runner::SeedRun run =
        locksim::runner::run_plan(scenario, plan, locksim::model::Fencing::kOff, {}, OracleChoice::kOn);
    events += run.history_events;
    ++runs;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(runs);
}

std::string benchmark_name(const std::string& scenario, OracleChoice oracle) {
  return fmt::format("pipeline/{}/oracle_{}", scenario, oracle == OracleChoice::kOn ? "on" : "off");
}

void register_benchmarks() {
  benchmark::RegisterBenchmark("bare_event_loop", locksim::bench::bare_event_loop)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("one_job_run", one_job_run)->Unit(benchmark::kMicrosecond)->UseRealTime();
  benchmark::RegisterBenchmark("reference/control-no-faults", reference)->Unit(benchmark::kMicrosecond)->UseRealTime();
  for (const char* scenario : kScenarios) {
    for (const OracleChoice oracle : {OracleChoice::kOff, OracleChoice::kOn}) {
      benchmark::RegisterBenchmark(benchmark_name(scenario, oracle).c_str(),
                                   [scenario, oracle](benchmark::State& state) { pipeline(state, scenario, oracle); })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

void print_ratios(const locksim::bench::RateReporter& reporter) {
  if (const std::optional<double> same_work = reporter.rate("reference/control-no-faults/real_time")) {
    fmt::print("same-work reference ({}) {:.2f} M history events/s\n", kReferenceScenario, *same_work / 1e6);
    for (const OracleChoice oracle : {OracleChoice::kOff, OracleChoice::kOn}) {
      const std::string name = benchmark_name(kReferenceScenario, oracle);
      if (const std::optional<double> rate = reporter.rate(name + "/real_time")) {
        fmt::print("{:<45} {:6.2f} M history events/s, {:.2f}x the same-work reference\n", name, *rate / 1e6,
                   *rate / *same_work);
      }
    }
  }
  const std::optional<double> bare = reporter.rate("bare_event_loop/real_time");
  if (!bare) return;
  fmt::print("bare event loop {:.2f} M events/s\n", *bare / 1e6);
  for (const char* scenario : kScenarios) {
    for (const OracleChoice oracle : {OracleChoice::kOff, OracleChoice::kOn}) {
      const std::string name = benchmark_name(scenario, oracle);
      if (const std::optional<double> rate = reporter.rate(name + "/real_time")) {
        fmt::print("{:<45} {:6.2f} M history events/s, ratio to the bare loop {:5.1f} %\n", name, *rate / 1e6,
                   100.0 * *rate / *bare);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  register_benchmarks();
  locksim::bench::RateReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_ratios(reporter);
  benchmark::Shutdown();
  return 0;
}
