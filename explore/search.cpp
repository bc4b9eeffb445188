#include "explore/search.h"

#include <algorithm>

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

}  // namespace

SearchResult search(const scenario::Scenario& scenario, CaseRunner& runner, const SearchOptions& options) {
  SearchResult result;
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
