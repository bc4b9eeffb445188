#include "reports/sweep_csv.h"

#include <fmt/format.h>

#include "scenario/fencing_modes.h"

namespace locksim::reports {

std::string sweep_to_csv(const runner::SweepResult& result) {
  const std::vector<runner::SweepAxis>& axes = result.plan.axes;
  std::string csv = axes.size() == 1 ? "value" : "value_1,value_2";
  csv += ",mode,kind,runs,runs_with,rate,ci95_low,ci95_high\n";
  for (const runner::SweepRow& row : runner::sweep_rows(result)) {
    for (std::size_t index = 0; index < axes.size(); ++index) {
      csv += runner::value_csv(axes[index], row.values[index]) + ",";
    }
    csv += fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f}\n", scenario::fencing_mode_name(row.mode),
                       checker::violation_kind_name(row.kind), row.runs, row.runs_with, row.share.rate, row.share.low,
                       row.share.high);
  }
  return csv;
}

}  // namespace locksim::reports
