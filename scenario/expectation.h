#pragma once
// An expectation of a scenario's `expect` (docs/scenario-format.md): in a fencing
// mode (or any), a measure — a violation kind or a run outcome — against a
// bound, either on the total over all seeds ("==0", ">3") or on the share of
// runs that have at least one ("<=2%", ">50%", "<=2.5%"). The text is parsed
// once, here, into these types; judging and reports work on the types.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"

namespace locksim::scenario {

// What a run says about itself beyond the checker's verdict: the runner's
// outcomes (the checker cannot see them in a history).
enum class RunOutcomeKind : std::uint8_t {
  kStoppedShort,    // runs that hit the event limit, or the time limit with jobs left
  kUnfinishedJobs,  // jobs not done when the run ended (including those of a client that gave up)
};

inline constexpr std::array kAllRunOutcomeKinds = {RunOutcomeKind::kStoppedShort, RunOutcomeKind::kUnfinishedJobs};

// "stopped_short" | "unfinished_jobs"
[[nodiscard]] std::string_view run_outcome_name(RunOutcomeKind kind);

// The incidents of a violation kind rather than its violations (pairs,
// writes): "incidents.double_holder". What one incident is: checker/violation.h.
struct IncidentsOf {
  checker::ViolationKind kind = checker::ViolationKind::kDoubleGrant;
  friend auto operator<=>(const IncidentsOf&, const IncidentsOf&) = default;
};

// What an expectation counts. Ordered: the violation kinds, the outcomes,
// then the incidents.
using Measure = std::variant<checker::ViolationKind, RunOutcomeKind, IncidentsOf>;

// Every measure, in report order. Names: "double_grant", "stopped_short",
// "incidents.double_grant".
[[nodiscard]] const std::vector<Measure>& all_measures();
[[nodiscard]] std::string_view measure_name(const Measure& measure);
[[nodiscard]] std::optional<Measure> measure_from_name(std::string_view name);

enum class Comparison : std::uint8_t { kEqual, kGreater, kLess, kGreaterOrEqual, kLessOrEqual };

// "==", ">", "<", ">=", "<="
[[nodiscard]] std::string_view comparison_symbol(Comparison comparison);
[[nodiscard]] std::optional<Comparison> comparison_from_symbol(std::string_view symbol);

enum class Scale : std::uint8_t {
  kTotal,        // the total over all seeds
  kShareOfRuns,  // the share of runs with at least one
};

// Shares are kept in parts per million of runs, so "2.5%" is exact and
// judging needs no floating point.
inline constexpr std::int64_t kPartsPerMillion = 1'000'000;
inline constexpr std::int64_t kPartsPerMillionPerPercent = 10'000;

struct Bound {
  Comparison comparison = Comparison::kEqual;
  Scale scale = Scale::kTotal;
  std::int64_t value = 0;  // kTotal: a count; kShareOfRuns: parts per million of the runs

  friend bool operator==(const Bound&, const Bound&) = default;
};

// "==0", ">3", "<=2%", "<=2.5%" (at most four decimals, at most 100 %);
// nullopt for anything else.
[[nodiscard]] std::optional<Bound> parse_bound(std::string_view text);

// The inverse of parse_bound: "==0", "<=2.5%".
[[nodiscard]] std::string bound_text(const Bound& bound);

// A share in parts per million as a percentage without trailing zeros: 25000 → "2.5".
[[nodiscard]] std::string percent_text(std::int64_t parts_per_million);

// Whether the bound holds for `total` (kTotal) or for `runs_with` of `runs`
// (kShareOfRuns; no runs is a share of 0).
[[nodiscard]] bool bound_holds(const Bound& bound, std::int64_t total, std::int64_t runs_with, std::int64_t runs);

// "in mode M (or any), MEASURE BOUND"
struct Expectation {
  std::optional<model::Fencing> mode;  // nullopt: every mode that runs ("any")
  Measure measure = checker::ViolationKind::kDoubleGrant;
  Bound bound;
};

}  // namespace locksim::scenario
