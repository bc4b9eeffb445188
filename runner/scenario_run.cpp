#include "runner/scenario_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include <fmt/core.h>

#include "runner/cpu_time.h"
#include "scenario/fencing_modes.h"

namespace locksim::runner {
namespace {

// At most this many seeds are run twice, whatever the share: their hashes
// are kept until the end, and memory must not grow with the seeds.
constexpr std::size_t kMostRecheckedSeeds = 10'000;

// Which seeds to run twice: evenly spread, at least one.
std::vector<std::size_t> recheck_positions(std::size_t seeds, double fraction) {
  std::vector<std::size_t> positions;
  if (fraction <= 0.0 || seeds == 0) return positions;
  const auto wanted = std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(seeds))),
                                              1, kMostRecheckedSeeds);
  for (std::size_t step = 0; step < std::min(wanted, seeds); ++step) positions.push_back(step * seeds / std::min(wanted, seeds));
  return positions;
}

// Adds `cpu_seconds` to the modes in proportion to `seconds_by_mode`
// (evenly when no run took measurable time).
void share_cpu_time(std::vector<ModeSummary>& modes, const std::vector<double>& seconds_by_mode, double cpu_seconds) {
  const double total = std::accumulate(seconds_by_mode.begin(), seconds_by_mode.end(), 0.0);
  for (std::size_t mode = 0; mode < modes.size(); ++mode) {
    modes[mode].cpu_seconds += total > 0 ? cpu_seconds * seconds_by_mode[mode] / total
                                         : cpu_seconds / static_cast<double>(modes.size());
  }
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

std::string replay_command(const scenario::Scenario& scenario, std::uint64_t seed, model::Fencing fencing) {
  return replay_command(scenario.file.empty() ? scenario.name : scenario.file, seed, fencing);
}

std::string replay_command(std::string_view file, std::uint64_t seed, model::Fencing fencing) {
  return fmt::format("{} replay {} --seed {} --fencing {}", replay_program_storage(), file, seed,
                     scenario::fencing_switch_name(fencing));
}

std::string replay_command(std::string_view file, model::Fencing fencing) {
  return fmt::format("{} --fencing {}", replay_command(file), scenario::fencing_switch_name(fencing));
}

std::string replay_command(std::string_view file) { return fmt::format("{} replay {}", replay_program_storage(), file); }

ScenarioSummary run_scenario(const scenario::Scenario& scenario, const RunRequest& request, const Progress& progress) {
  // The wall clock is read here, outside every simulation, only for the stats.
  const auto started = std::chrono::steady_clock::now();
  ScenarioSummary summary;
  summary.name = scenario.name;
  summary.file = scenario.file;
  summary.content_hash = scenario.content_hash;
  summary.shard_index = request.shard_index;
  summary.shard_count = request.shard_count;
  summary.first_seed = request.first_seed;
  summary.seed_count = request.seed_count.value_or(static_cast<std::uint64_t>(scenario.seeds));

  // The shard's seeds, by position, without a list of them (10^8 seeds are
  // allowed): those of first_seed … first_seed + seed_count − 1 with
  // seed % N == K, every Nth from the first.
  const std::uint64_t shard_count = request.shard_count;
  const std::uint64_t first_offset =
      (request.shard_index + shard_count - request.first_seed % shard_count) % shard_count;
  const std::uint64_t seed_total =
      first_offset >= summary.seed_count ? 0 : (summary.seed_count - 1 - first_offset) / shard_count + 1;
  const auto seed_at = [&](std::uint64_t position) { return request.first_seed + first_offset + position * shard_count; };
  const std::vector<model::Fencing> modes = request.modes.value_or(scenario.fencing_modes);
  const std::vector<std::size_t> recheck = recheck_positions(static_cast<std::size_t>(seed_total), request.recheck_fraction);

  // Each thread adds its runs into totals of its own as they finish, so
  // memory does not grow with the seeds; the totals add up the same in any
  // order (sums, and the lowest seed's examples).
  struct ThreadTotals {
    std::vector<ModeSummary> modes;
    std::map<std::uint64_t, std::vector<std::uint64_t>> hashes;  // recheck position → history hash per mode
  };
  const unsigned thread_count = std::max(1u, request.threads);
  std::vector<ThreadTotals> totals(thread_count);
  for (ThreadTotals& thread_totals : totals) {
    for (const model::Fencing mode : modes) thread_totals.modes.push_back(empty_mode_summary(mode, scenario.faults.size()));
  }
  std::atomic<std::uint64_t> next{0};
  std::uint64_t done = 0;  // under progress_mutex: what progress last said, never less
  std::mutex progress_mutex;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&](ThreadTotals& mine) {
    // The thread's CPU time is read once, at each end, and shared out among
    // the modes by their runs' time on the steady clock: a thread CPU clock
    // read is a system call (4.5 µs in a VM), the steady clock's is not.
    const double cpu_started = thread_cpu_seconds();
    std::vector<double> mode_seconds(modes.size(), 0.0);
    for (std::uint64_t position = next++; position < seed_total; position = next++) {
      try {
        const std::uint64_t seed = seed_at(position);
        const scenario::Plan plan = scenario::make_plan(scenario, seed);
        const bool rechecked = std::binary_search(recheck.begin(), recheck.end(), static_cast<std::size_t>(position));
        for (std::size_t mode = 0; mode < modes.size(); ++mode) {
          const auto run_started = std::chrono::steady_clock::now();
          const SeedRun run = run_plan(scenario, plan, modes[mode], {}, request.oracle);
          mode_seconds[mode] += std::chrono::duration<double>(std::chrono::steady_clock::now() - run_started).count();
          add_run(mine.modes[mode], run, replay_command(scenario, run.seed, run.fencing));
          if (rechecked) mine.hashes[position].push_back(run.history_hash);
        }
      } catch (...) {
        const std::lock_guard lock{failure_mutex};
        if (!failure) failure = std::current_exception();
        next = seed_total;
      }
      if (progress) {
        const std::lock_guard lock{progress_mutex};
        progress(++done, seed_total);
      }
    }
    share_cpu_time(mine.modes, mode_seconds, thread_cpu_seconds() - cpu_started);
  };
  std::vector<std::thread> threads;
  for (unsigned index = 1; index < thread_count; ++index) threads.emplace_back(work, std::ref(totals[index]));
  work(totals[0]);
  for (std::thread& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);

  summary.modes = std::move(totals[0].modes);
  std::map<std::uint64_t, std::vector<std::uint64_t>> hashes = std::move(totals[0].hashes);
  for (std::size_t index = 1; index < totals.size(); ++index) {
    for (std::size_t mode = 0; mode < modes.size(); ++mode) add(summary.modes[mode], totals[index].modes[mode]);
    hashes.merge(totals[index].hashes);
  }

  // The determinism self-check: the same seed, plan and mode again must give
  // the same history, byte for byte. Counted in seeds, every mode of each.
  for (const std::size_t position : recheck) {
    const std::uint64_t seed = seed_at(position);
    const scenario::Plan plan = scenario::make_plan(scenario, seed);
    ++summary.rechecked;
    bool identical = true;
    for (std::size_t mode = 0; mode < modes.size(); ++mode) {
      identical = identical &&
                  run_plan(scenario, plan, modes[mode], {}, OracleChoice::kOff).history_hash == hashes[position].at(mode);
    }
    if (!identical) summary.recheck_failed.push_back(seed);
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  summary.allow_inert = scenario.allow_inert;
  summary.probes_required = scenario.probes_required;
  summary.expectations = expectations_for(scenario, summary.modes);
  judge(summary);
  return summary;
}

}  // namespace locksim::runner
