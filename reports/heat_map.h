#pragma once
// The heat map of a two-axis sweep (`locksim sweep`, heatmap.svg): two
// panels side by side, fencing off | fencing on, one cell per pair of
// values coloured by the share of runs with one violation kind (the share
// printed in the cell when it is big enough), a colour scale, and the
// diagonal "value = lease" when one axis is the lock's lease.

#include <string>

#include "checker/violation.h"
#include "runner/sweep.h"

namespace locksim::reports {

// The SVG file's text; byte-identical for the same result. Requires two axes.
[[nodiscard]] std::string heat_map_svg(const runner::SweepResult& result, checker::ViolationKind kind);

}  // namespace locksim::reports
