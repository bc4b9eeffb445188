#pragma once
// The sweep's table for the terminal: one line per point and fencing mode
// with the share of runs with each violation kind, e.g.
//   /faults/0/for  mode         runs dgrant dholder stale foreign stuck lost dup
//   12s            fencing-off   200     0%     67%   67%      0%    0%  44%  0%

#include <string>

#include "runner/sweep.h"

namespace locksim::reports {

[[nodiscard]] std::string sweep_to_table(const runner::SweepResult& result);

}  // namespace locksim::reports
