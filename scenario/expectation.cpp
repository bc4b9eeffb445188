#include "scenario/expectation.h"

#include <algorithm>
#include <charconv>

#include <fmt/core.h>

namespace locksim::scenario {
namespace {

constexpr std::array<std::pair<Comparison, std::string_view>, 5> kSymbols{{
    {Comparison::kEqual, "=="},
    {Comparison::kGreaterOrEqual, ">="},
    {Comparison::kLessOrEqual, "<="},
    {Comparison::kGreater, ">"},
    {Comparison::kLess, "<"},
}};

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<std::int64_t> whole_number(std::string_view digits) {
  constexpr std::size_t kMaxDigits = 15;  // far below int64's range, so no overflow
  if (!all_digits(digits) || digits.size() > kMaxDigits) return std::nullopt;
  std::int64_t number = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), number);
  return number;
}

// "2", "2.5", "0.0001" → parts per million; at most four decimals, at most 100.
std::optional<std::int64_t> percent_in_parts_per_million(std::string_view text) {
  constexpr std::size_t kMaxDecimals = 4;
  const std::size_t point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view decimals = point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
  if (point != std::string_view::npos && (decimals.empty() || decimals.size() > kMaxDecimals)) return std::nullopt;
  if (!decimals.empty() && !all_digits(decimals)) return std::nullopt;
  const std::optional<std::int64_t> percent = whole_number(whole);
  if (!percent || *percent > 100) return std::nullopt;
  std::int64_t fraction = 0;
  std::from_chars(decimals.data(), decimals.data() + decimals.size(), fraction);
  for (std::size_t padding = decimals.size(); padding < kMaxDecimals; ++padding) fraction *= 10;
  const std::int64_t parts = *percent * kPartsPerMillionPerPercent + fraction;
  if (parts > kPartsPerMillion) return std::nullopt;
  return parts;
}

bool compare(std::int64_t left, Comparison comparison, std::int64_t right) {
  switch (comparison) {
    case Comparison::kEqual: return left == right;
    case Comparison::kGreater: return left > right;
    case Comparison::kLess: return left < right;
    case Comparison::kGreaterOrEqual: return left >= right;
    case Comparison::kLessOrEqual: return left <= right;
  }
  return false;
}

}  // namespace

std::string_view run_outcome_name(RunOutcomeKind kind) {
  switch (kind) {
    case RunOutcomeKind::kStoppedShort: return "stopped_short";
    case RunOutcomeKind::kUnfinishedJobs: return "unfinished_jobs";
  }
  return "?";
}

const std::vector<Measure>& all_measures() {
  static const std::vector<Measure> measures = [] {
    std::vector<Measure> all;
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) all.emplace_back(kind);
    for (const RunOutcomeKind kind : kAllRunOutcomeKinds) all.emplace_back(kind);
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) all.emplace_back(IncidentsOf{kind});
    return all;
  }();
  return measures;
}

std::string_view measure_name(const Measure& measure) {
  if (const auto* violation = std::get_if<checker::ViolationKind>(&measure)) return checker::violation_kind_name(*violation);
  if (const auto* outcome = std::get_if<RunOutcomeKind>(&measure)) return run_outcome_name(*outcome);
  // Built once, so that the names can be views like the others.
  static const auto incident_names = [] {
    std::array<std::string, checker::kAllViolationKinds.size()> names;
    for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
      names[static_cast<std::size_t>(kind)] = "incidents." + std::string{checker::violation_kind_name(kind)};
    }
    return names;
  }();
  return incident_names[static_cast<std::size_t>(std::get<IncidentsOf>(measure).kind)];
}

std::optional<Measure> measure_from_name(std::string_view name) {
  for (const Measure& measure : all_measures()) {
    if (measure_name(measure) == name) return measure;
  }
  return std::nullopt;
}

std::string_view comparison_symbol(Comparison comparison) {
  for (const auto& [candidate, symbol] : kSymbols) {
    if (candidate == comparison) return symbol;
  }
  return "?";
}

std::optional<Comparison> comparison_from_symbol(std::string_view symbol) {
  for (const auto& [comparison, candidate] : kSymbols) {
    if (candidate == symbol) return comparison;
  }
  return std::nullopt;
}

std::optional<Bound> parse_bound(std::string_view text) {
  // Two-character symbols come first in kSymbols, so ">=" is not read as ">".
  for (const auto& [comparison, symbol] : kSymbols) {
    if (!text.starts_with(symbol)) continue;
    const std::string_view number = text.substr(symbol.size());
    if (number.ends_with('%')) {
      const std::optional<std::int64_t> parts = percent_in_parts_per_million(number.substr(0, number.size() - 1));
      if (!parts) return std::nullopt;
      return Bound{comparison, Scale::kShareOfRuns, *parts};
    }
    const std::optional<std::int64_t> total = whole_number(number);
    if (!total) return std::nullopt;
    return Bound{comparison, Scale::kTotal, *total};
  }
  return std::nullopt;
}

std::string percent_text(std::int64_t parts_per_million) {
  std::string text = fmt::format("{}.{:04}", parts_per_million / kPartsPerMillionPerPercent,
                                 parts_per_million % kPartsPerMillionPerPercent);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string bound_text(const Bound& bound) {
  if (bound.scale == Scale::kShareOfRuns) return fmt::format("{}{}%", comparison_symbol(bound.comparison), percent_text(bound.value));
  return fmt::format("{}{}", comparison_symbol(bound.comparison), bound.value);
}

bool bound_holds(const Bound& bound, std::int64_t total, std::int64_t runs_with, std::int64_t runs) {
  if (bound.scale == Scale::kTotal) return compare(total, bound.comparison, bound.value);
  if (runs <= 0) return compare(0, bound.comparison, bound.value);
  // runs_with / runs OP value / 1e6, cross-multiplied: exact in integers.
  return compare(runs_with * kPartsPerMillion, bound.comparison, bound.value * runs);
}

}  // namespace locksim::scenario
