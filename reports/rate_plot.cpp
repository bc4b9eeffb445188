#include "reports/rate_plot.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reports/plot_scale.h"
#include "reports/svg_document.h"
#include "sim/duration_text.h"

namespace locksim::reports {
namespace {

constexpr double kWidth = 880;
constexpr double kHeight = 500;
constexpr double kPlotLeft = 70;
constexpr double kPlotTop = 60;
constexpr double kPlotRight = 640;
constexpr double kPlotBottom = 430;
constexpr double kLegendLeft = 665;
constexpr std::string_view kAxisColour = "#333333";
constexpr std::string_view kGridColour = "#e5e5e5";

using Point = std::pair<double, double>;

struct Frame {
  LinearScale x;
  LinearScale y;  // a share 0..1 to pixels
};

std::string mode_label(model::Fencing mode) { return mode == model::Fencing::kOn ? "fencing on" : "fencing off"; }

// The kinds that any point, in any mode, had in at least one run.
std::vector<checker::ViolationKind> kinds_seen(const std::vector<runner::SweepRow>& rows) {
  std::vector<checker::ViolationKind> kinds;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (std::any_of(rows.begin(), rows.end(),
                    [kind](const runner::SweepRow& row) { return row.kind == kind && row.runs_with > 0; })) {
      kinds.push_back(kind);
    }
  }
  return kinds;
}

std::vector<runner::SweepRow> rows_of(const std::vector<runner::SweepRow>& rows, model::Fencing mode,
                                      checker::ViolationKind kind) {
  std::vector<runner::SweepRow> selected;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(selected),
               [&](const runner::SweepRow& row) { return row.mode == mode && row.kind == kind; });
  return selected;
}

void draw_axes(SvgDocument& svg, const Frame& frame, const runner::SweepAxis& axis) {
  const double low = frame.x.data_low;
  const double high = frame.x.data_high;
  for (const double tick : round_ticks(low, high, 9, axis.unit == runner::AxisUnit::kInteger)) {
    const double x = frame.x(tick);
    svg.add(svg_line(x, kPlotTop, x, kPlotBottom, kGridColour));
    svg.add(svg_line(x, kPlotBottom, x, kPlotBottom + 5, kAxisColour));
    svg.add(svg_text(x, kPlotBottom + 19, tick_label(tick), "middle", 12));
  }
  for (int percent = 0; percent <= 100; percent += 20) {
    const double y = frame.y(percent / 100.0);
    svg.add(svg_line(kPlotLeft, y, kPlotRight, y, kGridColour));
    svg.add(svg_line(kPlotLeft - 5, y, kPlotLeft, y, kAxisColour));
    svg.add(svg_text(kPlotLeft - 8, y + 4, fmt::format("{}%", percent), "end", 12));
  }
  svg.add(svg_line(kPlotLeft, kPlotBottom, kPlotRight, kPlotBottom, kAxisColour));
  svg.add(svg_line(kPlotLeft, kPlotTop, kPlotLeft, kPlotBottom, kAxisColour));
  const std::string_view unit = runner::axis_unit_symbol(axis);
  const std::string x_title = unit.empty() ? axis.pointer : fmt::format("{} ({})", axis.pointer, unit);
  svg.add(svg_text((kPlotLeft + kPlotRight) / 2, kPlotBottom + 45, x_title, "middle", 14));
  SvgElement y_title = svg_text(0, 0, "runs with the violation (%)", "middle", 14);
  y_title.set("transform", fmt::format("translate(20 {}) rotate(-90)", svg_number((kPlotTop + kPlotBottom) / 2)));
  svg.add(std::move(y_title));
}

// The lock's lease as a vertical line, when the varied value is a duration
// other than the lease and the lease lies inside the swept range.
void draw_lease(SvgDocument& svg, const Frame& frame, const runner::SweepPlan& plan) {
  const runner::SweepAxis& axis = plan.axes.front();
  if (axis.unit != runner::AxisUnit::kDuration || axis.pointer == "/lock/lease" || !plan.lease) return;
  const double lease = plan.lease->seconds_double();
  if (lease < frame.x.data_low || lease > frame.x.data_high) return;
  const double x = frame.x(lease);
  SvgElement line = svg_line(x, kPlotTop, x, kPlotBottom, "#555555", 1.5);
  line.set("stroke-dasharray", "2 3").set("class", "reference");
  svg.add(std::move(line));
  svg.add(svg_text(x + 4, kPlotTop + 12, "lease " + sim::format_duration(*plan.lease), "start", 12));
}

// One (kind, mode) curve. Curves that coincide (double holders with and
// without fencing, say) would hide each other, so the kinds drawn first are
// drawn wider: a curve under another shows as its coloured edge.
struct Series {
  checker::ViolationKind kind = checker::ViolationKind::kDoubleGrant;
  model::Fencing mode = model::Fencing::kOff;
  std::vector<runner::SweepRow> rows;
  double line_width = 2;
};

std::string series_label(const Series& series) {
  return fmt::format("{}, {}", checker::violation_kind_name(series.kind), mode_label(series.mode));
}

SvgElement marker(double x, double y, const Series& series) {
  const std::string colour{kind_colour(series.kind)};
  SvgElement circle{"circle"};
  circle.set("cx", x).set("cy", y).set("r", series.line_width / 2 + 2).set("stroke", colour).set("stroke-width", 1.5);
  circle.set("fill", series.mode == model::Fencing::kOn ? "white" : colour);
  return circle;
}

void draw_band(SvgDocument& svg, const Frame& frame, const runner::SweepAxis& axis, const Series& series) {
  std::vector<Point> band;
  for (const runner::SweepRow& row : series.rows) {
    band.emplace_back(frame.x(runner::value_number(axis, row.values.front())), frame.y(row.share.high));
  }
  for (auto row = series.rows.rbegin(); row != series.rows.rend(); ++row) {
    band.emplace_back(frame.x(runner::value_number(axis, row->values.front())), frame.y(row->share.low));
  }
  SvgElement area{"polygon"};
  area.set("points", svg_points(band)).set("fill", kind_colour(series.kind)).set("fill-opacity", "0.12");
  area.set("class", "interval").set("data-series", series_label(series));
  svg.add(std::move(area));
}

void draw_curve(SvgDocument& svg, const Frame& frame, const runner::SweepAxis& axis, const Series& series) {
  std::vector<Point> line;
  for (const runner::SweepRow& row : series.rows) {
    line.emplace_back(frame.x(runner::value_number(axis, row.values.front())), frame.y(row.share.rate));
  }
  SvgElement polyline{"polyline"};
  polyline.set("points", svg_points(line)).set("fill", "none").set("stroke", kind_colour(series.kind));
  polyline.set("stroke-width", series.line_width).set("stroke-linejoin", "round");
  if (series.mode == model::Fencing::kOn) polyline.set("stroke-dasharray", "7 4");
  polyline.set("class", "rate").set("data-series", series_label(series));
  polyline.add("title").text(series_label(series));
  svg.add(std::move(polyline));
  for (const auto& [x, y] : line) svg.add(marker(x, y, series));
}

// Two curves with the same runs at every point are one line on the plot.
bool same_counts(const Series& one, const Series& other) {
  return std::ranges::equal(one.rows, other.rows, [](const runner::SweepRow& a, const runner::SweepRow& b) {
    return a.runs_with == b.runs_with && a.runs == b.runs;
  });
}

void draw_legend_entry(SvgDocument& svg, double y, const Series& series) {
  SvgElement sample = svg_line(kLegendLeft, y, kLegendLeft + 30, y, kind_colour(series.kind), series.line_width);
  if (series.mode == model::Fencing::kOn) sample.set("stroke-dasharray", "7 4");
  svg.add(std::move(sample));
  svg.add(marker(kLegendLeft + 15, y, series));
  svg.add(svg_text(kLegendLeft + 38, y + 4, series_label(series), "start", 12));
}

}  // namespace

std::string rate_plot_svg(const runner::SweepResult& result) {
  const runner::SweepPlan& plan = result.plan;
  const runner::SweepAxis& axis = plan.axes.front();
  const std::vector<runner::SweepRow> rows = runner::sweep_rows(result);
  const Frame frame{{runner::value_number(axis, axis.values.front()), runner::value_number(axis, axis.values.back()),
                     kPlotLeft, kPlotRight},
                    {0, 1, kPlotBottom, kPlotTop}};

  SvgDocument svg{kWidth, kHeight};
  svg.add(svg_text(kPlotLeft, 28, fmt::format("{}: share of runs with each violation", plan.scenario_name), "start", 16))
      .set("font-weight", "bold");
  svg.add(svg_text(kPlotLeft, 47,
                   fmt::format("{} seeds per point and fencing mode; bands: 95% Wilson interval", result.seeds_per_point),
                   "start", 12));
  draw_axes(svg, frame, axis);
  draw_lease(svg, frame, plan);

  const std::vector<checker::ViolationKind> kinds = kinds_seen(rows);
  std::vector<Series> all_series;
  for (std::size_t index = 0; index < kinds.size(); ++index) {
    const double width = 2.0 + 2.0 * static_cast<double>(kinds.size() - 1 - index);
    for (const model::Fencing mode : runner::kSweepModes) {
      all_series.push_back({kinds[index], mode, rows_of(rows, mode, kinds[index]), width});
    }
  }
  // Every band first, so no band veils a curve.
  for (const Series& series : all_series) draw_band(svg, frame, axis, series);
  double legend_y = kPlotTop + 6;
  for (std::size_t index = 0; index < all_series.size(); ++index) {
    const Series& series = all_series[index];
    draw_curve(svg, frame, axis, series);
    draw_legend_entry(svg, legend_y, series);
    legend_y += 20;
    // A curve drawn over an earlier one with the same counts at every point hides it: the legend says so.
    const auto same = std::find_if(all_series.begin(), all_series.begin() + static_cast<std::ptrdiff_t>(index),
                                   [&](const Series& earlier) { return same_counts(earlier, series); });
    if (same != all_series.begin() + static_cast<std::ptrdiff_t>(index)) {
      svg.add(svg_text(kLegendLeft + 38, legend_y - 2,
                       fmt::format("same line as {} {}", checker::violation_kind_name(same->kind),
                                   same->mode == model::Fencing::kOn ? "on" : "off"),
                       "start", 10))
          .set("fill", "#555555")
          .set("class", "coincides");
      legend_y += 16;
    }
  }
  if (kinds.empty()) {
    svg.add(svg_text((kPlotLeft + kPlotRight) / 2, (kPlotTop + kPlotBottom) / 2, "no violation at any value", "middle", 14));
  }
  return svg.to_xml();
}

}  // namespace locksim::reports
