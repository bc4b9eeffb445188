#pragma once
// sweep.csv: one row per point × fencing mode × violation kind (every kind,
// in checker order, so the shape is fixed), columns
//   value,mode,kind,runs,runs_with,rate,ci95_low,ci95_high
// (two axes: value_1,value_2,…). Durations are seconds in decimal without a
// unit; rate and the 95 % Wilson bounds are fractions 0..1 with 6 decimals.

#include <string>

#include "runner/sweep.h"

namespace locksim::reports {

[[nodiscard]] std::string sweep_to_csv(const runner::SweepResult& result);

}  // namespace locksim::reports
