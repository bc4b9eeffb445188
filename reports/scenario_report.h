#pragma once
// What one scenario's teaching page shows, gathered by running it: the
// counts over N seeds in each of its fencing modes; the pictured run — the
// minimal counterexample `locksim explore` finds (else the first failing
// seed, else the first seed) — run once per mode on the same plan, as
// swimlane timelines; and, where the scenario pauses a worker and its lease
// expires, the share of runs with each violation against the pause length.
//
// Deterministic: the same scenario and settings give the same report (the
// exploration runs from a fixed seed; results do not depend on threads).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "advise/advice.h"
#include "explore/exploration.h"
#include "model/options.h"
#include "reports/scenario_parameters.h"
#include "reports/timeline.h"
#include "reports/timeline_svg.h"
#include "runner/summary.h"
#include "runner/sweep.h"
#include "scenario/scenario.h"

namespace locksim::reports {

struct ReportSettings {
  std::optional<std::uint64_t> seeds;  // per mode; default: the scenario's `seeds`
  unsigned threads = 1;                // results do not depend on it
  std::uint64_t explore_seed = 1;      // the exploration's seed (fixed, so the page is the same every time)
  int explore_tests = 100;
  std::uint64_t sweep_seeds_most = 100;  // per sweep point and mode, at most (the curve, not the counts)
  int sweep_steps = 16;
  // advise's seeds grow from the page's up to this many times them.
  std::uint64_t advise_growth_most = 4;
  // Where the pictured run's minimal plan will be written: its replay
  // commands name it.
  std::string minimal_plan_path;
};

// Where the pictured run comes from.
enum class PicturedFrom : std::uint8_t {
  kExplore,       // explore's minimal counterexample
  kFailingSeed,   // explore found none; the first seed that failed over the N seeds
  kFirstSeed,     // nothing failed: the first seed, to show the lock working
};

// The pictured plan run in one fencing mode.
struct PicturedRun {
  model::Fencing mode = model::Fencing::kOff;
  Timeline timeline;
  std::optional<TimelineNote> note;  // the critical event, on the picture
  std::vector<std::string> violations;  // the checker's lines, one per incident
  std::string replay;                   // the command that replays it
  std::string stopped_short;            // why the run stopped with work left ("time limit 5m reached with 7 jobs left"), or empty
};

// The sweep of the first worker pause's length around the lease.
struct PauseSweep {
  std::size_t fault = 0;  // faults[fault] is the varied pause
  runner::SweepResult result;
};

struct ScenarioReport {
  std::string name;
  std::string description;
  std::string file;
  std::vector<ParameterRow> parameters;
  runner::ScenarioSummary summary;  // over N seeds, judged as `run` judges it
  explore::Exploration exploration;
  PicturedFrom pictured_from = PicturedFrom::kFirstSeed;
  std::uint64_t pictured_seed = 1;       // the pictured run's own seed
  std::vector<std::string> plan;         // the pictured plan's faults in words
  std::vector<PicturedRun> pictured;     // one per mode, off first
  std::optional<PauseSweep> sweep;
  advise::Advice advice{};  // "What would fix it": `locksim advise` on the page's seeds
};

// Runs everything the page shows. Throws as the runner and explore do.
[[nodiscard]] ScenarioReport gather_scenario_report(const scenario::Scenario& scenario,
                                                    const ReportSettings& settings);

}  // namespace locksim::reports
