#pragma once
// Running a scenario over many seeds and summarising it: per fencing mode,
// the violation totals, counts, faults fired, probes reached, the first
// failing seed with its replay command; then the expectations, the
// inert-scenario check and the determinism self-check.
//
// Seeds run on several threads, each seed independent; results are gathered
// by seed, so the summary does not depend on the number of threads.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runner/seed_run.h"
#include "scenarios/scenario.h"

namespace locksim::runner {

enum class ModeChoice { kAsScenarioSays, kOff, kOn, kCompare };

struct RunRequest {
  std::uint64_t first_seed = 1;
  std::optional<std::uint64_t> seed_count;  // default: the scenario's `seeds`
  std::uint64_t shard_index = 0;           // run the seeds with seed % shard_count == shard_index
  std::uint64_t shard_count = 1;
  ModeChoice modes = ModeChoice::kAsScenarioSays;
  unsigned threads = 1;
  double recheck_fraction = 0.0;  // share of seeds run twice to compare histories (0: none)
};

struct ModeSummary {
  std::string mode;  // "fencing-off" | "fencing-on"
  std::int64_t runs = 0;
  std::int64_t runs_with_violation = 0;
  std::map<std::string, std::int64_t> violations;  // every spec name, totals over the runs
  std::int64_t acquisitions = 0;
  std::int64_t accepted_writes = 0;
  std::int64_t rejected_writes = 0;
  std::optional<std::uint64_t> first_failing_seed;
  std::uint64_t events = 0;
  std::int64_t virtual_ns = 0;  // summed in integers, so shard sums equal whole sums exactly
  double wall_seconds = 0;
  std::map<std::string, std::int64_t> faults_fired;  // "faults[i]" → runs it fired in
  std::map<std::string, std::int64_t> probes;        // probe → times reached over all runs
  std::string replay;                                // the command for the first failing seed
};

struct ExpectationResult {
  std::string mode;
  std::string violation;
  std::string op;  // "==", ">", …
  std::int64_t value = 0;
  std::int64_t actual = 0;
  bool ok = false;
};

struct ScenarioSummary {
  std::string name;
  std::string file;
  std::uint64_t first_seed = 1;
  std::uint64_t seed_count = 0;
  std::vector<ModeSummary> modes;
  std::vector<ExpectationResult> expectations;
  std::vector<std::string> inert;            // why the scenario proved nothing, if it did not
  bool allow_inert = false;                  // the scenario says a fault that never fires is fine
  std::vector<std::string> probes_required;  // probes that must be reached in every mode
  std::vector<std::uint64_t> recheck_failed;  // seeds whose two runs differed
  std::uint64_t rechecked = 0;
  bool ok = true;  // expectations held and the scenario was not inert
};

// Called after each finished seed: (seeds done, seeds in all).
using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

[[nodiscard]] ScenarioSummary run_scenario(const scenarios::Scenario& scenario, const RunRequest& request,
                                           const Progress& progress = {});

// The command that replays `seed` of `scenario` in `mode`.
[[nodiscard]] std::string replay_command(const scenarios::Scenario& scenario, std::uint64_t seed, bool fencing);

// Evaluates the expectations and inertness from the modes' totals (also
// after merging shard summaries, which is why it needs only the summary).
void judge(ScenarioSummary& summary);

}  // namespace locksim::runner
