#pragma once
// The summary of a scenario's runs, per fencing mode, and the one place it
// is added up: run_scenario adds seed by seed, `locksim merge` adds shard
// summaries with the same add(); judge() then evaluates the expectations and
// the inert check on the totals.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"
#include "runner/seed_run.h"
#include "scenario/expectation.h"
#include "scenario/scenario.h"

namespace locksim::runner {

// The first run (lowest seed) of a mode that stopped short, and why.
struct StoppedShortExample {
  std::uint64_t seed = 0;
  std::string why;                   // "time limit 5m reached with 7 jobs left"
  std::vector<std::string> blocked;  // what was still waiting
  std::string replay;                // the command that replays it
};

// A run on which the checker and the in-simulation oracle disagreed.
struct OracleDisagreement {
  std::uint64_t seed = 0;
  std::string kind;  // a violation kind's name, or "late_writes"
  std::int64_t checker = 0;
  std::int64_t oracle = 0;
  std::string replay{};
};

struct ModeSummary {
  model::Fencing mode = model::Fencing::kOff;
  std::int64_t runs = 0;
  std::int64_t runs_with_violation = 0;
  std::map<checker::ViolationKind, std::int64_t> violations;  // every kind: totals over the runs
  std::map<checker::ViolationKind, std::int64_t> incidents;   // every kind: incidents over the runs
  std::map<scenario::Measure, std::int64_t> runs_with;       // every measure: runs with at least one
  std::int64_t acquisitions = 0;
  std::int64_t accepted_writes = 0;
  std::int64_t rejected_writes = 0;
  std::int64_t late_writes = 0;
  std::int64_t stopped_short = 0;    // runs
  std::int64_t unfinished_jobs = 0;  // jobs
  std::int64_t jobs_done = 0;        // jobs
  std::int64_t calls = 0;            // round trips (the workers' calls, storage's validations), summed
  std::int64_t acquire_wait_ns = 0;  // from asking for the lock to holding it, summed over the grants
  std::optional<StoppedShortExample> stopped_short_example;
  std::optional<std::uint64_t> first_failing_seed;
  // Per measure, the lowest seed with at least one: the seed a failed
  // expectation's replay command shows (the first failing seed may show another kind).
  std::map<scenario::Measure, std::int64_t> first_seed_with;
  std::int64_t events = 0;
  std::int64_t virtual_ns = 0;  // summed in integers, so shard sums equal whole sums exactly
  // CPU time summed over the runs: more than the wall time when threads
  // share the seeds (the scenario's wall_seconds is the time waited).
  double cpu_seconds = 0;
  std::map<std::string, std::int64_t> faults_fired;  // "faults[i]" → runs it fired in
  std::map<std::string, std::int64_t> probes;        // probe → times reached over all runs
  std::string replay;                                // the command for the first failing seed
  // The oracle: runs it checked (0 with --oracle off), runs on which it
  // disagreed with the checker, and the first disagreements by seed.
  std::int64_t oracle_runs = 0;
  std::int64_t oracle_disagreeing_runs = 0;
  std::vector<OracleDisagreement> oracle_disagreements;
  // Whether an expectation the scenario states applies to this mode; the
  // implicit "stopped_short ==0" alone judges nothing (set by judge()).
  bool judged = false;

  // The total of `measure` over the runs (stopped_short: runs; unfinished_jobs: jobs).
  [[nodiscard]] std::int64_t total(const scenario::Measure& measure) const;
  // How many runs had at least one.
  [[nodiscard]] std::int64_t runs_with_any(const scenario::Measure& measure) const;
};

// Each part of a mode summary and its place in the summary JSON, in the
// order the JSON holds them: the one list that add(), the JSON writer and
// its reader (reports/summary_json.cpp) walk. A plain count names its
// member; every other part is one case of each of them.
struct ModeField {
  enum class Part {
    kCount,
    kJudged,
    kViolations,
    kIncidents,
    kRunsWith,
    kFirstSeedWith,
    kStoppedShortExample,
    kFirstFailingSeed,
    kVirtualSeconds,  // written only: virtual_ns / 1e9
    kCpuSeconds,
    kFaultsFired,
    kProbes,
    kReplay,
    kOracleDisagreements,
  };
  Part part = Part::kCount;
  std::string_view object;  // "" for the mode's own object, else "counts", "stats" or "oracle"
  std::string_view key;
  std::int64_t ModeSummary::*count = nullptr;  // Part::kCount
};

inline constexpr std::array<ModeField, 28> kModeFields{{
    {ModeField::Part::kCount, "", "runs", &ModeSummary::runs},
    {ModeField::Part::kJudged, "", "judged"},
    {ModeField::Part::kCount, "", "runs_with_violation", &ModeSummary::runs_with_violation},
    {ModeField::Part::kViolations, "", "violations"},
    {ModeField::Part::kIncidents, "", "incidents"},
    {ModeField::Part::kRunsWith, "", "runs_with"},
    {ModeField::Part::kFirstSeedWith, "", "first_seed_with"},
    {ModeField::Part::kCount, "counts", "acquisitions", &ModeSummary::acquisitions},
    {ModeField::Part::kCount, "counts", "accepted_writes", &ModeSummary::accepted_writes},
    {ModeField::Part::kCount, "counts", "rejected_writes", &ModeSummary::rejected_writes},
    {ModeField::Part::kCount, "counts", "late_writes", &ModeSummary::late_writes},
    {ModeField::Part::kCount, "", "stopped_short", &ModeSummary::stopped_short},
    {ModeField::Part::kCount, "", "unfinished_jobs", &ModeSummary::unfinished_jobs},
    {ModeField::Part::kCount, "costs", "jobs_done", &ModeSummary::jobs_done},
    {ModeField::Part::kCount, "costs", "calls", &ModeSummary::calls},
    {ModeField::Part::kCount, "costs", "acquire_wait_ns", &ModeSummary::acquire_wait_ns},
    {ModeField::Part::kStoppedShortExample, "", "stopped_short_example"},
    {ModeField::Part::kFirstFailingSeed, "", "first_failing_seed"},
    {ModeField::Part::kCount, "stats", "events", &ModeSummary::events},
    {ModeField::Part::kVirtualSeconds, "stats", "virtual_s"},
    {ModeField::Part::kCpuSeconds, "stats", "cpu_s"},
    {ModeField::Part::kCount, "stats", "virtual_ns", &ModeSummary::virtual_ns},
    {ModeField::Part::kFaultsFired, "", "faults_fired"},
    {ModeField::Part::kProbes, "", "probes"},
    {ModeField::Part::kReplay, "", "replay"},
    {ModeField::Part::kCount, "oracle", "runs_checked", &ModeSummary::oracle_runs},
    {ModeField::Part::kCount, "oracle", "runs_disagreeing", &ModeSummary::oracle_disagreeing_runs},
    {ModeField::Part::kOracleDisagreements, "oracle", "disagreements"},
}};

struct ExpectationResult {
  model::Fencing mode = model::Fencing::kOff;
  scenario::Measure measure = checker::ViolationKind::kDoubleGrant;
  scenario::Bound bound;
  bool stated = true;        // false: the implicit "stopped_short ==0" of a scenario that says nothing about it
  std::int64_t actual = 0;   // the total (kTotal), or the runs with at least one (kShareOfRuns)
  std::int64_t runs = 0;     // the mode's runs (the share's denominator)
  bool judged = true;        // false on a shard: its seeds are only part of the run, so nothing is judged
  bool ok = false;           // true when not judged: a shard fails no expectation
  // A failed expectation: the seed that shows its failure and the command
  // that replays it around its kind; none when it failed because the hazard
  // it expects never happened (no seed shows that).
  std::optional<std::uint64_t> shown_by_seed{};
  std::string replay{};
};

struct ScenarioSummary {
  std::string name;
  std::string file;
  std::uint64_t content_hash = 0;  // of the scenario file's bytes: merge refuses shards of different files
  std::uint64_t first_seed = 1;
  std::uint64_t seed_count = 0;    // of the whole run, also on a shard
  std::uint64_t shard_index = 0;   // `run --shard K/N`: K
  std::uint64_t shard_count = 1;   // N; 1: the whole run
  std::vector<ModeSummary> modes;
  std::vector<ExpectationResult> expectations;
  std::vector<std::string> inert;            // why the scenario proved nothing, if it did not
  bool allow_inert = false;                  // the scenario says a fault that never fires is fine
  std::vector<std::string> probes_required;  // probes that must be reached in every mode
  std::vector<std::uint64_t> recheck_failed;  // seeds whose two runs differed (once each)
  std::uint64_t rechecked = 0;                // seeds run twice (not seed × mode runs)
  // The time the user waited for the scenario's runs, the recheck included
  // (merged shards: the sum of theirs, as if run one after another).
  double wall_seconds = 0;
  bool ok = true;  // expectations held and the scenario was not inert; on a shard: the recheck held
  // Every mode that ran is judged (set by judge()). A scenario that is ok
  // but not judged proved nothing: it is "not judged", not "passed".
  bool judged = false;
  // Ok, judged, and a stated expectation that nothing happening would have
  // broken (">0", ">=1", ">2%") held: the scenario reproduced its hazard.
  bool reproduced = false;

  // A shard's summary covers only some seeds: totals and shares are not judged on it.
  [[nodiscard]] bool partial() const { return shard_count > 1; }
  // CPU time over the modes' runs (the recheck's second runs are not counted).
  [[nodiscard]] double cpu_seconds() const;
};

// A mode with no runs yet: every kind, measure and fault at zero.
[[nodiscard]] ModeSummary empty_mode_summary(model::Fencing mode, std::size_t fault_count);

// Counts one run into `total` (its mode's summary, made by
// empty_mode_summary for the scenario's faults); `replay` replays the run.
void add_run(ModeSummary& total, const SeedRun& run, const std::string& replay);

// How many disagreements a mode summary keeps (the lowest seeds).
inline constexpr std::size_t kOracleDisagreementsKept = 10;

// Adds `part` into `total` (the same mode): sums, and the lower seed's
// first failure, stopped-short example and oracle disagreements.
void add(ModeSummary& total, const ModeSummary& part);

// The expectations `scenario` states for the modes of `summary`, plus the
// implicit "stopped_short ==0" for every mode that states nothing about it.
[[nodiscard]] std::vector<ExpectationResult> expectations_for(const scenario::Scenario& scenario,
                                                              const std::vector<ModeSummary>& modes);

// Evaluates the expectations, inertness, `judged` and `reproduced` from the modes' totals (also
// after merging shard summaries, which is why it needs only the summary).
// A partial summary (a shard) is not judged: its expectations get the
// actual values but judged = false and ok = true, and it is never inert.
void judge(ScenarioSummary& summary);

// Adds `more` into `total`, scenario by scenario (matched by name) and mode by
// mode, then judges the expectations and inertness again on the totals (as a
// whole run: shard 0/1). It checks nothing; merge_shards checks first.
void merge_summaries(std::vector<ScenarioSummary>& total, const std::vector<ScenarioSummary>& more);

// One summary file given to `locksim merge`.
// A scenario file `run` could not load, and why.
struct BadScenarioFile {
  std::string file;
  std::string message;  // "FILE: /JSON/POINTER: message" (or "FILE:LINE:COLUMN: …", "FILE: …")
  // The JSON pointer the message names, "" when it names none.
  [[nodiscard]] std::string json_pointer() const;
  friend bool operator==(const BadScenarioFile&, const BadScenarioFile&) = default;
};

struct SummaryInput {
  std::string file;     // as named on the command line, for messages
  std::string version;  // the locksim version that wrote it
  std::string build;    // the build id (version, compiler, build type)
  std::vector<ScenarioSummary> scenarios;
  std::vector<BadScenarioFile> load_errors;  // the files its run could not load
  // The command-line flags that change what is run or judged ("fencing",
  // "oracle", "recheck", "require-expectations" → their values as given):
  // shards of one run have the same. Empty in a summary that recorded none.
  std::map<std::string, std::string> run_flags;
};

// Why `inputs` are not the N shards of one run, "" if they are: every input
// is shard K/N of the same build, scenarios (by name, file content hash,
// first seed and seed count) and N, and every K from 0 to N-1 is there
// exactly once. A whole run's summary counts as shard 0/1. Each problem is
// named, e.g. "shard 2/3 is missing; shard 0/3 is given twice (a.json, b.json)".
[[nodiscard]] std::string shard_set_problems(const std::vector<SummaryInput>& inputs);

// Adds up the summaries of the shards of one run (shard_set_problems says
// ""), scenario by scenario and mode by mode, into the summary of the whole
// run (shard 0/1), then judges the expectations and inertness on the totals.
[[nodiscard]] std::vector<ScenarioSummary> merge_shards(const std::vector<SummaryInput>& inputs);

}  // namespace locksim::runner
