#include "explore/exploration.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "explore/minimal_scenario.h"
#include "runner/seed_run.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_text.h"

namespace locksim::explore {
namespace {

// The minimal file, read back and run as `run`/`replay` would: it must show
// the same violation, or explore has written something false.
void require_replays(const std::string& text, const std::string& path, const ExploreGoal& goal,
                     checker::ViolationKind kind) {
  const scenario::Scenario saved = scenario::parse_scenario(text, path);
  const runner::SeedRun run = runner::run_seed(saved, *saved.first_seed, goal.mode);
  if (run.verdict.violation_count(kind).value_or(0) == 0) {
    throw std::runtime_error(fmt::format("{}: the minimal plan does not replay to {} (a bug in locksim explore)", path,
                                         checker::violation_kind_name(kind)));
  }
}

Finding describe(const scenario::Scenario& scenario, const ExploreGoal& goal, CaseRunner& case_runner,
                 const Counterexample& counterexample, std::uint64_t seed, const std::string& minimal_path) {
  Finding finding{counterexample, runnable(scenario, counterexample.minimal), {}, {}, {}, {}};
  const runner::SeedRun run = case_runner.run_watched(finding.minimal, finding.history);
  const auto first = std::ranges::find_if(run.verdict.violations, [&](const checker::Violation& violation) {
    return violation.kind == counterexample.kind;
  });
  if (first == run.verdict.violations.end()) throw std::runtime_error("the minimal case shows no violation when run again");
  finding.violation = *first;
  finding.critical = critical_events(finding.minimal, case_runner, counterexample.kind, finding.history);
  finding.minimal_file_text = minimal_scenario_json(
      {scenario::read_scenario_text(scenario.file), fmt::format("locksim explore ({})", found_where(counterexample, seed)),
       finding.violation.detail, run.stopped_short},
      finding.minimal, goal, counterexample.kind);
  require_replays(finding.minimal_file_text, minimal_path, goal, counterexample.kind);
  return finding;
}

}  // namespace

std::string found_where(const Counterexample& counterexample, std::uint64_t search_seed) {
  if (counterexample.run_seed) return fmt::format("the scenario's seed {}", *counterexample.run_seed);
  return fmt::format("search seed {}, test {}", search_seed, counterexample.test);
}

Exploration explore(const scenario::Scenario& scenario, const ExploreGoal& goal, const SearchOptions& options,
                    const std::string& minimal_path) {
  CaseRunner case_runner{goal.mode, goal.kinds};
  const SearchResult result = search(scenario, case_runner, options);
  Exploration exploration{goal, options.seed, result.seeds_run, result.tests_run, std::nullopt, 0};
  if (result.counterexample) {
    exploration.finding =
        describe(scenario, goal, case_runner, *result.counterexample, options.seed, minimal_path);
  }
  exploration.simulations = case_runner.simulations();
  return exploration;
}

}  // namespace locksim::explore
