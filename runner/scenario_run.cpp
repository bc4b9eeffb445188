#include "runner/scenario_run.h"

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/core.h>

#include "scenarios/fencing_modes.h"

namespace locksim::runner {
namespace {

// Which seeds to run twice: evenly spread, at least one.
std::vector<std::size_t> recheck_positions(std::size_t seeds, double fraction) {
  std::vector<std::size_t> positions;
  if (fraction <= 0.0 || seeds == 0) return positions;
  const auto wanted = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(seeds))));
  for (std::size_t step = 0; step < std::min(wanted, seeds); ++step) positions.push_back(step * seeds / std::min(wanted, seeds));
  return positions;
}

}  // namespace

namespace {

// Written once by main before any run starts, read by the worker threads after.
std::string& replay_program_storage() {
  static std::string program = "locksim";
  return program;
}

}  // namespace

void set_replay_program(std::string program) {
  if (!program.empty()) replay_program_storage() = std::move(program);
}

std::string replay_command(const scenarios::Scenario& scenario, std::uint64_t seed, model::Fencing fencing) {
  return replay_command(scenario.file.empty() ? scenario.name : scenario.file, seed, fencing);
}

std::string replay_command(std::string_view file, std::uint64_t seed, model::Fencing fencing) {
  return fmt::format("{} replay {} --seed {} --fencing {}", replay_program_storage(), file, seed,
                     scenarios::fencing_switch_name(fencing));
}

ScenarioSummary run_scenario(const scenarios::Scenario& scenario, const RunRequest& request, const Progress& progress) {
  ScenarioSummary summary;
  summary.name = scenario.name;
  summary.file = scenario.file;
  summary.content_hash = scenario.content_hash;
  summary.shard_index = request.shard_index;
  summary.shard_count = request.shard_count;
  summary.first_seed = request.first_seed;
  summary.seed_count = request.seed_count.value_or(static_cast<std::uint64_t>(scenario.seeds));

  std::vector<std::uint64_t> seeds;
  for (std::uint64_t offset = 0; offset < summary.seed_count; ++offset) {
    const std::uint64_t seed = request.first_seed + offset;
    if (seed % request.shard_count == request.shard_index) seeds.push_back(seed);
  }
  const std::vector<model::Fencing> modes = request.modes.value_or(scenario.fencing_modes);

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
          runs[position][mode] = run_plan(scenario, plan, modes[mode], {}, request.oracle);
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
    ModeSummary mode_summary = empty_mode_summary(modes[mode], scenario.faults.size());
    for (std::size_t position = 0; position < seeds.size(); ++position) {
      const SeedRun& run = runs[position][mode];
      add_run(mode_summary, run, replay_command(scenario, run.seed, run.fencing));
    }
    summary.modes.push_back(std::move(mode_summary));
  }

  // The determinism self-check: the same seed, plan and mode again must give
  // the same history, byte for byte. Counted in seeds, every mode of each.
  for (std::size_t position : recheck_positions(seeds.size(), request.recheck_fraction)) {
    const scenarios::Plan plan = scenarios::make_plan(scenario, seeds[position]);
    ++summary.rechecked;
    bool identical = true;
    for (std::size_t mode = 0; mode < modes.size(); ++mode) {
      identical = identical &&
                  run_plan(scenario, plan, modes[mode], {}, OracleChoice::kOff).history_hash == runs[position][mode].history_hash;
    }
    if (!identical) summary.recheck_failed.push_back(seeds[position]);
  }
  summary.allow_inert = scenario.allow_inert;
  summary.probes_required = scenario.probes_required;
  summary.expectations = expectations_for(scenario, summary.modes);
  judge(summary);
  return summary;
}

}  // namespace locksim::runner
