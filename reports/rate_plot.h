#pragma once
// The line plot of a one-axis sweep (`locksim sweep`, sweep.svg): per
// violation kind that happened anywhere and per fencing mode, the share of
// runs with it at each value (solid: fencing off, dashed: fencing on), the
// 95 % Wilson interval as a band, and the lock's lease as a marked
// reference line when the varied value is another duration.

#include <string>

#include "runner/sweep.h"

namespace locksim::reports {

// The SVG file's text; byte-identical for the same result. Requires one axis.
[[nodiscard]] std::string rate_plot_svg(const runner::SweepResult& result);

}  // namespace locksim::reports
