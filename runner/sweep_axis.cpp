#include "runner/sweep_axis.h"

#include <array>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "sim/duration_text.h"
#include "sim/wide_integer.h"

namespace locksim::runner {
namespace {

constexpr std::string_view kShape = "expected PATH=FROM..TO[:STEPS], e.g. /faults/0/for=5s..20s:16 or /workers/count=1..5";

// A sweep that changes these would not be one scenario's curve any more.
constexpr std::array<std::string_view, 4> kFixedKeys = {"expect", "name", "seeds", "first_seed"};

// Default steps: 11 for durations; every integer if at most this many, else 11.
constexpr std::int64_t kDefaultSteps = 11;
constexpr std::int64_t kMostIntegersListedByDefault = 21;

[[noreturn]] void refuse(std::string_view argument, std::string_view why) {
  throw SweepInputError(fmt::format("--vary {}: {}", argument, why));
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

void check_pointer(std::string_view argument, std::string_view pointer) {
  if (pointer.empty() || pointer.front() != '/') {
    refuse(argument, fmt::format("PATH must be a JSON pointer starting with '/', e.g. /lock/lease, got \"{}\"", pointer));
  }
  for (std::size_t at = pointer.find('~'); at != std::string_view::npos; at = pointer.find('~', at + 1)) {
    if (at + 1 >= pointer.size() || (pointer[at + 1] != '0' && pointer[at + 1] != '1')) {
      refuse(argument, fmt::format("{}: a '~' in a JSON pointer must be followed by 0 or 1", pointer));
    }
  }
  const std::string_view first = pointer.substr(1, pointer.find('/', 1) - 1);
  for (std::string_view fixed : kFixedKeys) {
    if (first == fixed) {
      refuse(argument, fmt::format("{}: a sweep cannot vary /{} (it varies settings of the system, not the "
                                   "scenario's name, seeds or expectations)",
                                   pointer, fixed));
    }
  }
}

// `steps` values from `from` to `to`, ends included, each rounded to the
// nearest integer (halves up) by exact 128-bit arithmetic; duplicates dropped.
std::vector<std::int64_t> spread(std::int64_t from, std::int64_t to, std::int64_t steps) {
  std::vector<std::int64_t> values;
  const sim::SignedInt128 span = static_cast<sim::SignedInt128>(to) - from;
  const sim::SignedInt128 gaps = steps - 1;
  for (std::int64_t index = 0; index < steps; ++index) {
    const sim::SignedInt128 offset = (2 * span * index + gaps) / (2 * gaps);
    const auto value = static_cast<std::int64_t>(from + offset);
    if (values.empty() || values.back() != value) values.push_back(value);
  }
  return values;
}

}  // namespace

SweepAxis parse_vary(std::string_view argument) {
  SweepAxis axis;
  axis.argument = std::string{argument};
  const std::size_t equals = argument.find('=');
  if (equals == std::string_view::npos) refuse(argument, fmt::format("no '=': {}", kShape));
  axis.pointer = std::string{argument.substr(0, equals)};
  check_pointer(argument, axis.pointer);

  std::string_view range = argument.substr(equals + 1);
  std::optional<std::int64_t> steps;
  if (const std::size_t colon = range.rfind(':'); colon != std::string_view::npos) {
    const std::string_view steps_text = range.substr(colon + 1);
    steps = parse_integer(steps_text);
    if (!steps || *steps < 2 || *steps > kMostSweepSteps) {
      refuse(argument, fmt::format("STEPS must be a whole number from 2 to {} (the number of values, ends "
                                   "included), got \"{}\"",
                                   kMostSweepSteps, steps_text));
    }
    range = range.substr(0, colon);
  }
  const std::size_t dots = range.find("..");
  if (dots == std::string_view::npos) refuse(argument, fmt::format("no '..' between FROM and TO: {}", kShape));
  const std::string_view from_text = range.substr(0, dots);
  const std::string_view to_text = range.substr(dots + 2);

  std::int64_t from = 0;
  std::int64_t to = 0;
  const std::optional<std::int64_t> from_integer = parse_integer(from_text);
  const std::optional<std::int64_t> to_integer = parse_integer(to_text);
  const sim::DurationParse from_duration = sim::parse_duration(from_text);
  const sim::DurationParse to_duration = sim::parse_duration(to_text);
  if (from_integer && to_integer) {
    axis.unit = AxisUnit::kInteger;
    from = *from_integer;
    to = *to_integer;
  } else if (from_duration.duration && to_duration.duration) {
    axis.unit = AxisUnit::kDuration;
    from = from_duration.duration->count_ns();
    to = to_duration.duration->count_ns();
  } else {
    refuse(argument, fmt::format("FROM and TO must both be durations (\"5s\", \"250ms\") or both integers, "
                                 "got \"{}\" and \"{}\"",
                                 from_text, to_text));
  }
  if (from >= to) refuse(argument, fmt::format("FROM must be less than TO, got {}..{}", from_text, to_text));

  if (!steps) {
    const sim::SignedInt128 integers = static_cast<sim::SignedInt128>(to) - from + 1;
    steps = axis.unit == AxisUnit::kInteger && integers <= kMostIntegersListedByDefault
                ? static_cast<std::int64_t>(integers)
                : kDefaultSteps;
  }
  axis.values = spread(from, to, *steps);
  return axis;
}

std::string value_text(const SweepAxis& axis, std::int64_t value) {
  if (axis.unit == AxisUnit::kInteger) return fmt::format("{}", value);
  return sim::format_duration(sim::Duration::nanoseconds(value));
}

std::string value_csv(const SweepAxis& axis, std::int64_t value) {
  if (axis.unit == AxisUnit::kInteger) return fmt::format("{}", value);
  // Exact decimal seconds from integer nanoseconds: no float rounding.
  const std::uint64_t magnitude = value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
  std::string text = fmt::format("{}{}", value < 0 ? "-" : "", magnitude / 1'000'000'000);
  std::string fraction = fmt::format("{:09}", magnitude % 1'000'000'000);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) text += "." + fraction;
  return text;
}

double value_number(const SweepAxis& axis, std::int64_t value) {
  if (axis.unit == AxisUnit::kInteger) return static_cast<double>(value);
  return static_cast<double>(value) / 1e9;
}

std::string_view axis_unit_symbol(const SweepAxis& axis) { return axis.unit == AxisUnit::kDuration ? "s" : ""; }

}  // namespace locksim::runner
