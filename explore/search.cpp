#include "explore/search.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <rapidcheck/Gen.h>
#include <rapidcheck/Seq.h>

#include "sim/random.h"

namespace locksim::explore {
namespace {

// Test `index`'s own random source: tests do not shift each other.
rc::Random random_for_test(std::uint64_t seed, int index) {
  return rc::Random{sim::RandomStreams{seed}.stream(fmt::format("explore/test/{}", index)).next_u64()};
}

void shrink(const scenario::Scenario& scenario, CaseRunner& runner, rc::Shrinkable<ExploreCase> failing,
            const SearchOptions& options, Counterexample& result) {
  const std::int64_t runs_before = runner.simulations();
  std::string current_key = run_key(runnable(scenario, failing.value()));
  for (bool progressed = true; progressed;) {
    progressed = false;
    rc::Seq<rc::Shrinkable<ExploreCase>> neighbours = failing.shrinks();
    while (rc::Maybe<rc::Shrinkable<ExploreCase>> neighbour = neighbours.next()) {
      if (runner.simulations() - runs_before >= options.most_shrink_runs) {
        result.shrink_cut_short = true;
        break;
      }
      const RunnableCase candidate = runnable(scenario, neighbour->value());
      std::string key = run_key(candidate);
      if (key == current_key || !runner.shows(candidate, result.kind)) continue;
      failing = std::move(*neighbour);
      current_key = std::move(key);
      ++result.shrink_steps;
      progressed = true;
      break;
    }
  }
  result.minimal = failing.value();
  result.shrink_runs = runner.simulations() - runs_before;
}

// The first of the scenario's seeds whose run shows a goal kind, as a case
// to shrink. Its case must run as the seed does: else explore would shrink
// something `run` never ran.
std::optional<Counterexample> search_seeds(const scenario::Scenario& scenario, CaseRunner& runner, int seeds,
                                           const SearchOptions& options, SearchResult& result) {
  const std::uint64_t first = scenario.first_seed.value_or(1);
  for (int index = 0; index < seeds; ++index) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(index);
    result.seeds_run = index + 1;
    const RunnableCase as_run{scenario, scenario::make_plan(scenario, seed)};
    const std::optional<checker::ViolationKind> kind = runner.shown(as_run);
    if (!kind) continue;
    rc::Shrinkable<ExploreCase> failing = case_of_plan(scenario, as_run.plan);
    if (!runner.shows(runnable(scenario, failing.value()), *kind)) {
      throw std::runtime_error(fmt::format("seed {} shows {}, but explore's case of its plan does not (a bug in locksim explore)",
                                           seed, checker::violation_kind_name(*kind)));
    }
    Counterexample found;
    found.run_seed = seed;
    found.kind = *kind;
    found.found = failing.value();
    shrink(scenario, runner, std::move(failing), options, found);
    return found;
  }
  return std::nullopt;
}

}  // namespace

int seeds_to_run_first(const scenario::Scenario& scenario) {
  return std::max(scenario.seeds, kSeedsToFindOneInAHundred);
}

SearchResult search(const scenario::Scenario& scenario, CaseRunner& runner, const SearchOptions& options) {
  SearchResult result;
  result.counterexample =
      search_seeds(scenario, runner, options.from_seeds.value_or(seeds_to_run_first(scenario)), options, result);
  if (result.counterexample) return result;
  for (int index = 0; index < options.tests; ++index) {
    rc::Shrinkable<ExploreCase> drawn =
        draw_case(scenario, random_for_test(options.seed, index));
    result.tests_run = index + 1;
    const std::optional<checker::ViolationKind> kind = runner.shown(runnable(scenario, drawn.value()));
    if (!kind) continue;
    Counterexample found;
    found.test = index + 1;
    found.kind = *kind;
    found.found = drawn.value();
    shrink(scenario, runner, std::move(drawn), options, found);
    result.counterexample = std::move(found);
    break;
  }
  return result;
}

}  // namespace locksim::explore
