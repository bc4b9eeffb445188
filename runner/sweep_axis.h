#pragma once
// One `--vary PATH=FROM..TO[:STEPS]` of `locksim sweep`: which scenario
// setting to vary (a JSON pointer, as the scenario parser's messages write
// it) and the values to give it. FROM and TO are both durations ("5s",
// "250ms") or both integers; the values run from FROM to TO, ends included,
// evenly spaced and rounded exactly (integer arithmetic, so every machine
// sweeps the same values).

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::runner {

// Bad sweep input (a malformed --vary, a pointer the scenario has no place
// for, a value the scenario format refuses); what() is the message for the user.
class SweepInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AxisUnit {
  kDuration,  // values are nanoseconds; written into the scenario as duration text ("12.5s")
  kInteger,   // values are plain integers; written as JSON integers
};

struct SweepAxis {
  std::string argument;  // the --vary text as given, for messages
  std::string pointer;   // "/faults/0/for"
  AxisUnit unit = AxisUnit::kDuration;
  std::vector<std::int64_t> values;  // ascending, distinct: nanoseconds or the integers
};

// The most values one axis may have: a sweep is a curve, not a scan.
inline constexpr std::int64_t kMostSweepSteps = 1000;

// Parses the text after `--vary`. Throws SweepInputError naming the flag and
// what was expected. Checks the pointer's syntax and refuses keys a sweep
// cannot vary (expect, name, seeds, first_seed); whether the scenario has a
// place for it is checked when the values are substituted (runner/sweep.h).
[[nodiscard]] SweepAxis parse_vary(std::string_view argument);

// The value as written into the scenario and printed: "12.5s" or "3".
[[nodiscard]] std::string value_text(const SweepAxis& axis, std::int64_t value);

// The value for CSV: seconds in decimal without a unit ("12.5") or the integer.
[[nodiscard]] std::string value_csv(const SweepAxis& axis, std::int64_t value);

// The value as a plot coordinate: seconds, or the integer.
[[nodiscard]] double value_number(const SweepAxis& axis, std::int64_t value);

// The unit of value_number: "s" for durations, "" for integers.
[[nodiscard]] std::string_view axis_unit_symbol(const SweepAxis& axis);

}  // namespace locksim::runner
