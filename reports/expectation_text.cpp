#include "reports/expectation_text.h"

#include <fmt/format.h>

namespace locksim::reports {

std::string bound_words(const runner::ExpectationResult& result) {
  const std::string text = scenario::bound_text(result.bound);
  return result.bound.scale == scenario::Scale::kShareOfRuns ? text + " of runs" : text;
}

std::string actual_words(const runner::ExpectationResult& result) {
  if (result.bound.scale == scenario::Scale::kTotal) return std::to_string(result.actual);
  const double percent = result.runs == 0 ? 0.0 : 100.0 * static_cast<double>(result.actual) / static_cast<double>(result.runs);
  // Fixed notation, at most two decimals: "66.67%", "100%", never "1.73e+03%".
  std::string shown = fmt::format("{:.2f}", percent);
  shown.erase(shown.find_last_not_of('0') + 1);
  if (shown.back() == '.') shown.pop_back();
  return fmt::format("{} of {} runs ({}%)", result.actual, result.runs, shown);
}

std::string expectation_words(const runner::ExpectationResult& result) {
  return fmt::format("expected {} {}, got {}", scenario::measure_name(result.measure), bound_words(result),
                     actual_words(result));
}

std::string failure_replay_words(const runner::ExpectationResult& result) {
  if (result.ok) return "";
  if (!result.replay.empty()) return fmt::format("seed {} shows it: {}", *result.shown_by_seed, result.replay);
  // An expectation that something happens failed because nothing did.
  if (scenario::bound_holds(result.bound, 0, 0, std::max<std::int64_t>(result.runs, 1))) return "";
  return fmt::format("no seed showed it in {} run{}", result.runs, result.runs == 1 ? "" : "s");
}

std::string stopped_short_words(const runner::StoppedShortExample& example) {
  std::string words = fmt::format("seed {}: {}", example.seed, example.why);
  if (!example.blocked.empty()) words += fmt::format("; still waiting: {}", fmt::join(example.blocked, ", "));
  return words;
}

}  // namespace locksim::reports
