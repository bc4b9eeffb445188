#include "runner/scenario_run.h"

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "checker/violation.h"
#include "scenarios/scenario_parser.h"

namespace locksim::runner {
namespace {

using scenarios::Comparison;
using scenarios::ExpectMode;
using scenarios::FencingMode;

std::vector<bool> modes_to_run(const scenarios::Scenario& scenario, ModeChoice choice) {
  switch (choice) {
    case ModeChoice::kOff: return {false};
    case ModeChoice::kOn: return {true};
    case ModeChoice::kCompare: return {false, true};
    case ModeChoice::kAsScenarioSays: break;
  }
  switch (scenario.fencing) {
    case FencingMode::kOff: return {false};
    case FencingMode::kOn: return {true};
    case FencingMode::kCompare: return {false, true};
  }
  return {false};
}

const char* mode_name(bool fencing) { return fencing ? "fencing-on" : "fencing-off"; }

void add_run(ModeSummary& mode, const SeedRun& run, const scenarios::Scenario& scenario) {
  ++mode.runs;
  if (!run.verdict.ok()) {
    ++mode.runs_with_violation;
    if (!mode.first_failing_seed || run.seed < *mode.first_failing_seed) {
      mode.first_failing_seed = run.seed;
      mode.replay = replay_command(scenario, run.seed, run.fencing);
    }
  }
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    mode.violations[std::string{checker::violation_kind_name(kind)}] += run.verdict.violation_count(kind).value_or(0);
  }
  mode.acquisitions += run.verdict.counts.acquisitions;
  mode.accepted_writes += run.verdict.counts.accepted_writes;
  mode.rejected_writes += run.verdict.counts.rejected_writes;
  mode.events += run.events;
  mode.virtual_ns += run.virtual_ns;
  mode.wall_seconds += run.wall_seconds;
  for (std::size_t index : run.faults_fired) ++mode.faults_fired[fmt::format("faults[{}]", index)];
  for (const auto& [probe, count] : run.probes) mode.probes[probe] += count;
}

bool compare(std::int64_t actual, Comparison comparison, std::int64_t value) {
  switch (comparison) {
    case Comparison::kEqual: return actual == value;
    case Comparison::kGreater: return actual > value;
    case Comparison::kLess: return actual < value;
    case Comparison::kGreaterOrEqual: return actual >= value;
    case Comparison::kLessOrEqual: return actual <= value;
  }
  return false;
}

const char* operator_text(Comparison comparison) {
  switch (comparison) {
    case Comparison::kEqual: return "==";
    case Comparison::kGreater: return ">";
    case Comparison::kLess: return "<";
    case Comparison::kGreaterOrEqual: return ">=";
    case Comparison::kLessOrEqual: return "<=";
  }
  return "?";
}

Comparison comparison_from_text(const std::string& text) {
  for (const Comparison comparison : {Comparison::kEqual, Comparison::kGreater, Comparison::kLess,
                                      Comparison::kGreaterOrEqual, Comparison::kLessOrEqual}) {
    if (text == operator_text(comparison)) return comparison;
  }
  return Comparison::kEqual;
}

// Which seeds to run twice: evenly spread, at least one.
std::vector<std::size_t> recheck_positions(std::size_t seeds, double fraction) {
  std::vector<std::size_t> positions;
  if (fraction <= 0.0 || seeds == 0) return positions;
  const auto wanted = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(seeds))));
  for (std::size_t step = 0; step < std::min(wanted, seeds); ++step) positions.push_back(step * seeds / std::min(wanted, seeds));
  return positions;
}

}  // namespace

std::string replay_command(const scenarios::Scenario& scenario, std::uint64_t seed, bool fencing) {
  return fmt::format("locksim replay {} --seed {} --fencing {}", scenario.file.empty() ? scenario.name : scenario.file,
                     seed, fencing ? "on" : "off");
}

ScenarioSummary run_scenario(const scenarios::Scenario& scenario, const RunRequest& request, const Progress& progress) {
  ScenarioSummary summary;
  summary.name = scenario.name;
  summary.file = scenario.file;
  summary.first_seed = request.first_seed;
  summary.seed_count = request.seed_count.value_or(static_cast<std::uint64_t>(scenario.seeds));

  std::vector<std::uint64_t> seeds;
  for (std::uint64_t offset = 0; offset < summary.seed_count; ++offset) {
    const std::uint64_t seed = request.first_seed + offset;
    if (seed % request.shard_count == request.shard_index) seeds.push_back(seed);
  }
  const std::vector<bool> modes = modes_to_run(scenario, request.modes);

  // runs[seed position][mode position]
  std::vector<std::vector<SeedRun>> runs(seeds.size(), std::vector<SeedRun>(modes.size()));
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> done{0};
  std::mutex progress_mutex;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    for (std::size_t position = next++; position < seeds.size(); position = next++) {
      try {
        const scenarios::Plan plan = scenarios::make_plan(scenario, seeds[position]);
        for (std::size_t mode = 0; mode < modes.size(); ++mode) {
          runs[position][mode] = run_plan(scenario, plan, modes[mode]);
        }
      } catch (...) {
        const std::lock_guard lock{failure_mutex};
        if (!failure) failure = std::current_exception();
        next = seeds.size();
      }
      const std::uint64_t finished = ++done;
      if (progress) {
        const std::lock_guard lock{progress_mutex};
        progress(finished, seeds.size());
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned index = 1; index < std::max(1u, request.threads); ++index) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);

  for (std::size_t mode = 0; mode < modes.size(); ++mode) {
    ModeSummary mode_summary;
    mode_summary.mode = mode_name(modes[mode]);
    for (const std::string& name : scenarios::violation_names()) mode_summary.violations[name] = 0;
    for (std::size_t index = 0; index < scenario.faults.size(); ++index) {
      mode_summary.faults_fired[fmt::format("faults[{}]", index)] = 0;
    }
    for (std::size_t position = 0; position < seeds.size(); ++position) {
      add_run(mode_summary, runs[position][mode], scenario);
    }
    summary.modes.push_back(std::move(mode_summary));
  }

  // The determinism self-check: the same seed, plan and mode again must give
  // the same history, byte for byte.
  for (std::size_t position : recheck_positions(seeds.size(), request.recheck_fraction)) {
    const scenarios::Plan plan = scenarios::make_plan(scenario, seeds[position]);
    for (std::size_t mode = 0; mode < modes.size(); ++mode) {
      ++summary.rechecked;
      if (run_plan(scenario, plan, modes[mode]).history_hash != runs[position][mode].history_hash) {
        summary.recheck_failed.push_back(seeds[position]);
      }
    }
  }
  summary.allow_inert = scenario.allow_inert;
  summary.probes_required = scenario.probes_required;
  for (const scenarios::Expectation& expectation : scenario.expect) {
    for (const ModeSummary& mode : summary.modes) {
      const bool applies = expectation.mode == ExpectMode::kAny ||
                           (expectation.mode == ExpectMode::kFencingOff && mode.mode == "fencing-off") ||
                           (expectation.mode == ExpectMode::kFencingOn && mode.mode == "fencing-on");
      if (applies) {
        summary.expectations.push_back(ExpectationResult{mode.mode, expectation.violation,
                                                         operator_text(expectation.comparison), expectation.value, 0, false});
      }
    }
  }
  judge(summary);
  return summary;
}

void judge(ScenarioSummary& summary) {
  for (ExpectationResult& result : summary.expectations) {
    const auto mode = std::find_if(summary.modes.begin(), summary.modes.end(),
                                   [&](const ModeSummary& candidate) { return candidate.mode == result.mode; });
    result.actual = mode == summary.modes.end() ? 0 : mode->violations.at(result.violation);
    result.ok = compare(result.actual, comparison_from_text(result.op), result.value);
  }
  summary.inert.clear();
  for (const ModeSummary& mode : summary.modes) {
    if (mode.runs == 0) continue;
    if (!summary.allow_inert) {
      for (const auto& [fault, runs_fired] : mode.faults_fired) {
        if (runs_fired == 0) summary.inert.push_back(fmt::format("{}: {} never fired", mode.mode, fault));
      }
    }
    for (const std::string& probe : summary.probes_required) {
      const auto reached = mode.probes.find(probe);
      if (reached == mode.probes.end() || reached->second == 0) {
        summary.inert.push_back(fmt::format("{}: probe {} was never reached", mode.mode, probe));
      }
    }
  }
  summary.ok = summary.inert.empty() && summary.recheck_failed.empty() &&
               std::all_of(summary.expectations.begin(), summary.expectations.end(),
                           [](const ExpectationResult& result) { return result.ok; });
}

}  // namespace locksim::runner
