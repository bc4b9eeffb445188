#include "reports/sweep_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/terminal_table.h"
#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

std::size_t value_width(const runner::SweepAxis& axis) {
  std::size_t width = axis.pointer.size();
  for (const std::int64_t value : axis.values) width = std::max(width, runner::value_text(axis, value).size());
  return width;
}

// A share as a whole percentage, except that a share above 0 never reads "0%".
std::string percent(double share) {
  if (share > 0 && share < 0.005) return "<1%";
  return fmt::format("{}%", std::lround(share * 100));
}

}  // namespace

std::string sweep_to_table(const runner::SweepResult& result) {
  const std::vector<runner::SweepAxis>& axes = result.plan.axes;
  std::vector<std::size_t> widths;
  for (const runner::SweepAxis& axis : axes) widths.push_back(value_width(axis));

  std::string table;
  for (std::size_t index = 0; index < axes.size(); ++index) table += fmt::format("{:<{}}  ", axes[index].pointer, widths[index]);
  table += fmt::format("{:<11} {:>6}", "mode", "runs");
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    table += fmt::format(" {:>7}", violation_column_head(kind));
  }
  table += "\n";

  const std::vector<runner::SweepRow> rows = runner::sweep_rows(result);
  const std::size_t kinds = checker::kAllViolationKinds.size();
  for (std::size_t first = 0; first < rows.size(); first += kinds) {
    const runner::SweepRow& head = rows[first];
    for (std::size_t index = 0; index < axes.size(); ++index) {
      // The value once per point: the fencing-on line leaves it blank.
      const std::string value = head.mode == runner::kSweepModes.front() ? runner::value_text(axes[index], head.values[index]) : "";
      table += fmt::format("{:<{}}  ", value, widths[index]);
    }
    table += fmt::format("{:<11} {:>6}", scenario::fencing_mode_name(head.mode), head.runs);
    for (std::size_t kind = 0; kind < kinds; ++kind) table += fmt::format(" {:>7}", percent(rows[first + kind].share.rate));
    table += "\n";
  }
  return table;
}

}  // namespace locksim::reports
