#pragma once
// Running a scenario over many seeds and summarising it (runner/summary.h):
// per fencing mode, the violation totals, counts, run outcomes, faults fired,
// probes reached, the first failing seed with its replay command; then the
// expectations, the inert-scenario check and the determinism self-check.
//
// Seeds run on several threads, each seed independent; results are gathered
// by seed, so the summary does not depend on the number of threads.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/options.h"
#include "runner/seed_run.h"
#include "runner/summary.h"
#include "scenario/scenario.h"

namespace locksim::runner {

struct RunRequest {
  std::uint64_t first_seed = 1;
  std::optional<std::uint64_t> seed_count;  // default: the scenario's `seeds`
  std::uint64_t shard_index = 0;           // run the seeds with seed % shard_count == shard_index
  std::uint64_t shard_count = 1;
  std::optional<std::vector<model::Fencing>> modes;  // default: the scenario's storage.fencing
  unsigned threads = 1;
  double recheck_fraction = 0.0;  // share of seeds run twice to compare histories (0: none)
  OracleChoice oracle = OracleChoice::kOn;  // compare every run's checker verdict with the oracle
};

// Called after each finished seed: (seeds done, seeds in all).
using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

[[nodiscard]] ScenarioSummary run_scenario(const scenario::Scenario& scenario, const RunRequest& request,
                                           const Progress& progress = {});

// The program replay commands start with: main passes argv[0] as the user
// typed it ("build/locksim"), so the printed command runs from the same
// directory. Default "locksim"; call before any run starts.
void set_replay_program(std::string program);

// The command that replays `seed` of `scenario` in `mode`.
[[nodiscard]] std::string replay_command(const scenario::Scenario& scenario, std::uint64_t seed, model::Fencing fencing);
// The same for the scenario file (or built-in name) `file`.
[[nodiscard]] std::string replay_command(std::string_view file, std::uint64_t seed, model::Fencing fencing);
// The command that replays a file that is one run (a verify counterexample): no seed.
[[nodiscard]] std::string replay_command(std::string_view file, model::Fencing fencing);
[[nodiscard]] std::string replay_command(std::string_view file);

}  // namespace locksim::runner
