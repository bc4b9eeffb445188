#include "reports/heat_map.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "reports/plot_scale.h"
#include "reports/svg_document.h"

namespace locksim::reports {
namespace {

constexpr double kPanelLeft = 100;
constexpr double kPanelTop = 80;
constexpr double kPanelGap = 70;
constexpr double kLegendGap = 40;
constexpr double kLegendWidth = 16;
constexpr std::string_view kAxisColour = "#333333";

// A share's colour: light grey for none, through orange to dark red for all runs.
std::string share_colour(double share) {
  struct Stop {
    double at;
    std::array<int, 3> rgb;
  };
  constexpr std::array<Stop, 5> stops{{{0.0, {247, 247, 247}},
                                       {0.25, {253, 212, 158}},
                                       {0.5, {252, 141, 89}},
                                       {0.75, {215, 48, 31}},
                                       {1.0, {127, 0, 0}}}};
  share = std::clamp(share, 0.0, 1.0);
  std::size_t upper = 1;
  while (upper + 1 < stops.size() && share > stops[upper].at) ++upper;
  const Stop& a = stops[upper - 1];
  const Stop& b = stops[upper];
  const double t = (share - a.at) / (b.at - a.at);
  std::array<int, 3> rgb{};
  for (std::size_t channel = 0; channel < 3; ++channel) {
    rgb[channel] = static_cast<int>(std::lround(a.rgb[channel] + t * (b.rgb[channel] - a.rgb[channel])));
  }
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::string_view text_colour_on(double share) { return share > 0.55 ? "white" : "black"; }

// Cell sizes: the panels fill about 360 × 300 px, within readable bounds.
struct Grid {
  std::size_t columns = 0;
  std::size_t rows = 0;
  double cell_width = 0;
  double cell_height = 0;
  [[nodiscard]] double width() const { return cell_width * static_cast<double>(columns); }
  [[nodiscard]] double height() const { return cell_height * static_cast<double>(rows); }
  [[nodiscard]] bool labels_fit() const { return cell_width >= 30 && cell_height >= 15; }
};

Grid grid_for(const runner::SweepPlan& plan) {
  Grid grid;
  grid.columns = plan.axes[0].values.size();
  grid.rows = plan.axes[1].values.size();
  grid.cell_width = std::clamp(360.0 / static_cast<double>(grid.columns), 6.0, 56.0);
  grid.cell_height = std::clamp(300.0 / static_cast<double>(grid.rows), 6.0, 40.0);
  return grid;
}

// Every n-th value gets a tick label, so labels never overlap.
std::size_t label_every(double cell_size, double label_size) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(label_size / cell_size)));
}

std::string axis_title(const runner::SweepAxis& axis) {
  const std::string_view unit = runner::axis_unit_symbol(axis);
  return unit.empty() ? axis.pointer : fmt::format("{} ({})", axis.pointer, unit);
}

// When one axis is the lease and the other a duration, the diagonal where
// the two are equal (a pause as long as the lease) is worth marking.
bool has_lease_diagonal(const runner::SweepPlan& plan) {
  const runner::SweepAxis& x_axis = plan.axes[0];
  const runner::SweepAxis& y_axis = plan.axes[1];
  const bool one_is_lease = x_axis.pointer == "/lock/lease" || y_axis.pointer == "/lock/lease";
  return one_is_lease && x_axis.unit == runner::AxisUnit::kDuration && y_axis.unit == runner::AxisUnit::kDuration;
}

void draw_lease_diagonal(SvgDocument& svg, const runner::SweepPlan& plan, const Grid& grid, double left, double top) {
  if (!has_lease_diagonal(plan)) return;
  const runner::SweepAxis& x_axis = plan.axes[0];
  const runner::SweepAxis& y_axis = plan.axes[1];
  const auto seconds = [](const runner::SweepAxis& axis, std::size_t index) {
    return runner::value_number(axis, axis.values[index]);
  };
  // Cell centres sit at evenly spaced values, so value → pixel is linear.
  const LinearScale x{seconds(x_axis, 0), seconds(x_axis, grid.columns - 1), left + grid.cell_width / 2,
                      left + grid.width() - grid.cell_width / 2};
  const LinearScale y{seconds(y_axis, 0), seconds(y_axis, grid.rows - 1), top + grid.height() - grid.cell_height / 2,
                      top + grid.cell_height / 2};
  const double low = std::max(x.data_low, y.data_low);
  const double high = std::min(x.data_high, y.data_high);
  if (!(low < high)) return;
  SvgElement line = svg_line(x(low), y(low), x(high), y(high), "#222222", 1.5);
  // Translucent, so the cells' numbers under it stay legible.
  line.set("stroke-dasharray", "4 3").set("stroke-opacity", "0.6").set("class", "reference");
  svg.add(std::move(line));
}

// The subtitle's note on the diagonal, "" when there is none.
std::string diagonal_note(const runner::SweepPlan& plan) {
  if (!has_lease_diagonal(plan)) return "";
  return fmt::format("; dashed diagonal: {} = {}", plan.axes[0].pointer, plan.axes[1].pointer);
}

// One panel; only the first (leftmost) carries the y axis's title, the
// panels share it.
void draw_panel(SvgDocument& svg, const runner::SweepResult& result,
                const std::map<std::pair<std::int64_t, std::int64_t>, runner::SweepRow>& cells, model::Fencing mode,
                const Grid& grid, double left) {
  const runner::SweepPlan& plan = result.plan;
  const double top = kPanelTop;
  svg.add(svg_text(left + grid.width() / 2, top - 10, mode == model::Fencing::kOn ? "fencing on" : "fencing off",
                   "middle", 14))
      .set("font-weight", "bold");
  for (std::size_t column = 0; column < grid.columns; ++column) {
    for (std::size_t row = 0; row < grid.rows; ++row) {
      const std::int64_t x_value = plan.axes[0].values[column];
      const std::int64_t y_value = plan.axes[1].values[row];
      const runner::SweepRow& cell = cells.at({x_value, y_value});
      const double x = left + static_cast<double>(column) * grid.cell_width;
      const double y = top + grid.height() - static_cast<double>(row + 1) * grid.cell_height;
      SvgElement rect = svg_rect(x, y, grid.cell_width, grid.cell_height, share_colour(cell.share.rate));
      rect.set("stroke", "white").set("stroke-width", 0.5).set("class", "cell");
      rect.add("title").text(fmt::format("{} = {}, {} = {}: {} of {} runs", plan.axes[0].pointer,
                                         runner::value_text(plan.axes[0], x_value), plan.axes[1].pointer,
                                         runner::value_text(plan.axes[1], y_value), cell.runs_with, cell.runs));
      svg.add(std::move(rect));
      if (grid.labels_fit()) {
        const long percent = std::lround(cell.share.rate * 100);
        svg.add(svg_text(x + grid.cell_width / 2, y + grid.cell_height / 2 + 4,
                         grid.cell_width >= 36 ? fmt::format("{}%", percent) : fmt::format("{}", percent), "middle", 11))
            .set("fill", text_colour_on(cell.share.rate));
      }
    }
  }
  const std::size_t x_every = label_every(grid.cell_width, 44);
  for (std::size_t column = 0; column < grid.columns; column += x_every) {
    const double x = left + (static_cast<double>(column) + 0.5) * grid.cell_width;
    svg.add(svg_line(x, top + grid.height(), x, top + grid.height() + 4, kAxisColour));
    svg.add(svg_text(x, top + grid.height() + 17, runner::value_text(plan.axes[0], plan.axes[0].values[column]),
                     "middle", 11));
  }
  const std::size_t y_every = label_every(grid.cell_height, 14);
  for (std::size_t row = 0; row < grid.rows; row += y_every) {
    const double y = top + grid.height() - (static_cast<double>(row) + 0.5) * grid.cell_height;
    svg.add(svg_line(left - 4, y, left, y, kAxisColour));
    svg.add(svg_text(left - 6, y + 4, runner::value_text(plan.axes[1], plan.axes[1].values[row]), "end", 11));
  }
  svg.add(svg_text(left + grid.width() / 2, top + grid.height() + 38, axis_title(plan.axes[0]), "middle", 13));
  if (left == kPanelLeft) {
    SvgElement y_title = svg_text(0, 0, axis_title(plan.axes[1]), "middle", 13);
    y_title.set("transform", fmt::format("translate({} {}) rotate(-90)", svg_number(left - 62),
                                         svg_number(top + grid.height() / 2)));
    svg.add(std::move(y_title));
  }
  draw_lease_diagonal(svg, plan, grid, left, top);
}

void draw_colour_scale(SvgDocument& svg, const Grid& grid, double left) {
  constexpr int kSteps = 20;
  const double step_height = grid.height() / kSteps;
  for (int step = 0; step < kSteps; ++step) {
    const double share = (step + 0.5) / kSteps;
    const double y = kPanelTop + grid.height() - (step + 1) * step_height;
    svg.add(svg_rect(left, y, kLegendWidth, step_height + 0.2, share_colour(share)));
  }
  for (int percent = 0; percent <= 100; percent += 25) {
    const double y = kPanelTop + grid.height() - percent / 100.0 * grid.height();
    svg.add(svg_line(left + kLegendWidth, y, left + kLegendWidth + 4, y, kAxisColour));
    svg.add(svg_text(left + kLegendWidth + 7, y + 4, fmt::format("{}%", percent), "start", 11));
  }
  svg.add(svg_text(left, kPanelTop - 10, "share of runs", "start", 12));
}

}  // namespace

std::string heat_map_svg(const runner::SweepResult& result, checker::ViolationKind kind) {
  const Grid grid = grid_for(result.plan);
  std::map<model::Fencing, std::map<std::pair<std::int64_t, std::int64_t>, runner::SweepRow>> cells;
  for (runner::SweepRow& row : runner::sweep_rows(result)) {
    if (row.kind == kind) cells[row.mode].emplace(std::pair{row.values[0], row.values[1]}, std::move(row));
  }
  const double second_left = kPanelLeft + grid.width() + kPanelGap;
  const double legend_left = second_left + grid.width() + kLegendGap;
  const double width = legend_left + kLegendWidth + 80;
  const double height = kPanelTop + grid.height() + 60;

  SvgDocument svg{width, height};
  svg.add(svg_text(20, 26,
                   fmt::format("{}: share of runs with {}", result.plan.scenario_name, checker::violation_kind_name(kind)),
                   "start", 16))
      .set("font-weight", "bold");
  svg.add(svg_text(20, 44,
                   fmt::format("{} seeds per cell and fencing mode{}", result.seeds_per_point, diagonal_note(result.plan)),
                   "start", 12));
  draw_panel(svg, result, cells[model::Fencing::kOff], model::Fencing::kOff, grid, kPanelLeft);
  draw_panel(svg, result, cells[model::Fencing::kOn], model::Fencing::kOn, grid, second_left);
  draw_colour_scale(svg, grid, legend_left);
  return svg.to_xml();
}

}  // namespace locksim::reports
