#pragma once
// What the sweep plots share: a linear mapping from data to pixels, axis
// ticks at round numbers, and one colour per violation kind.

#include <string>
#include <string_view>
#include <vector>

#include "checker/violation.h"

namespace locksim::reports {

// Maps [data_low, data_high] linearly onto [pixel_low, pixel_high] (which may run backwards, as y does).
struct LinearScale {
  double data_low = 0;
  double data_high = 1;
  double pixel_low = 0;
  double pixel_high = 1;

  [[nodiscard]] double operator()(double value) const;
};

// Round tick values (1, 2 or 5 × a power of ten apart) inside [low, high],
// about `wanted` of them; with `whole_numbers`, the step is at least 1.
[[nodiscard]] std::vector<double> round_ticks(double low, double high, int wanted = 6, bool whole_numbers = false);

// A tick's label: at most two decimals, no trailing zeros ("12.5", "10").
[[nodiscard]] std::string tick_label(double value);

// The kind's colour in every plot ("#1f77b4").
[[nodiscard]] std::string_view kind_colour(checker::ViolationKind kind);

}  // namespace locksim::reports
