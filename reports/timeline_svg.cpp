#include "reports/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "checker/violation.h"
#include "reports/plot_scale.h"
#include "reports/svg_document.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/reason.h"

namespace locksim::reports {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::event_kind_name;
using vocabulary::fault_kind_name;

namespace {

constexpr double kWidth = 1000;
constexpr double kPlotLeft = 120;
constexpr double kPlotRight = 975;
constexpr double kLanesTop = 78;
constexpr double kLaneHeight = 52;
// Storage is taller: its writes' labels take up to three rows.
constexpr double kStorageLaneHeight = 76;
constexpr std::array<double, 3> kLabelRowOffsets = {-10, 21, 35};  // from the storage lane's marks
constexpr double kLabelFont = 11;
constexpr std::size_t kListedViolations = 4;

constexpr std::string_view kOkColour = "#555555";
constexpr std::string_view kLateColour = "#f0a202";
constexpr std::string_view kLateTextColour = "#8a5a00";
constexpr std::string_view kStaleColour = "#d62728";
constexpr std::string_view kRejectedColour = "#333333";
constexpr std::string_view kClockColour = "#7b2cbf";
constexpr std::string_view kNoteColour = "#1d3557";
constexpr std::string_view kGridColour = "#e8e8e8";
constexpr std::string_view kAxisColour = "#333333";

// The holders' colours: none of them red or amber, which mean stale and late.
constexpr std::array<std::string_view, 8> kHolderColours = {"#1f77b4", "#2ca02c", "#9467bd", "#17becf",
                                                            "#8c564b", "#e377c2", "#bcbd22", "#7f7f7f"};

double text_width(std::string_view text, double font_size) {
  return static_cast<double>(text.size()) * font_size * 0.58;
}

std::string seconds_label(std::int64_t time_ns) { return checker::format_seconds(time_ns); }

// For the picture: hundredths of a second are enough to find the event in the trace.
std::string short_seconds(std::int64_t time_ns) { return fmt::format("{:.2f}s", static_cast<double>(time_ns) / 1e9); }

std::string_view class_name(WriteClass write_class) {
  switch (write_class) {
    case WriteClass::kOk: return "ok";
    case WriteClass::kLate: return "late";
    case WriteClass::kStale: return "stale";
    case WriteClass::kRejected: return "rejected";
  }
  return "ok";
}

std::string_view class_colour(WriteClass write_class) {
  switch (write_class) {
    case WriteClass::kOk: return kOkColour;
    case WriteClass::kLate: return kLateColour;
    case WriteClass::kStale: return kStaleColour;
    case WriteClass::kRejected: return kRejectedColour;
  }
  return kOkColour;
}

std::string_view lane_kind_text(LaneKind kind) {
  switch (kind) {
    case LaneKind::kWorker: return "worker";
    case LaneKind::kService: return "lock service";
    case LaneKind::kStorage: return "storage";
    case LaneKind::kExternal: return "external service";
  }
  return "";
}

// Label rows beside the storage lane's markers, so that labels of writes
// close in time do not print over each other.
class LabelRows {
 public:
  explicit LabelRows(std::size_t rows) : taken_(rows) {}

  // The first row where [left, right] is free, taking it; nullopt when none is.
  std::optional<std::size_t> take(double left, double right) {
    for (std::size_t row = 0; row < taken_.size(); ++row) {
      const bool free = std::none_of(taken_[row].begin(), taken_[row].end(), [&](const auto& span) {
        return left < span.second + 4 && span.first < right + 4;
      });
      if (free) {
        taken_[row].emplace_back(left, right);
        return row;
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<std::vector<std::pair<double, double>>> taken_;
};

class TimelinePainter {
 public:
  TimelinePainter(const Timeline& timeline, const TimelineOptions& options)
      : timeline_{timeline}, options_{options}, window_{timeline_window(timeline, options)} {}

  std::string paint() {
    SvgDocument svg{kWidth, height()};
    add_definitions(svg);
    add_title(svg);
    add_lanes(svg);
    add_axis(svg);
    add_spans(svg);
    add_leases(svg);
    add_beliefs(svg);
    add_markers(svg);
    add_storage_traffic(svg);
    add_effects(svg);
    add_note(svg);
    add_legend(svg);
    add_violation_list(svg);
    return svg.to_xml();
  }

 private:
  // Ids are prefixed so that several pictures can share one HTML page.
  [[nodiscard]] std::string id(std::string_view name) const { return options_.id_prefix + std::string{name}; }
  [[nodiscard]] std::string url(std::string_view name) const { return fmt::format("url(#{})", id(name)); }

  [[nodiscard]] double lanes_bottom() const {
    return lane_top(timeline_.lanes.size());
  }
  [[nodiscard]] double axis_y() const { return lanes_bottom() + 4; }
  [[nodiscard]] double legend_y() const { return axis_y() + 44; }
  [[nodiscard]] std::size_t listed_violations() const {
    return std::min(timeline_.callouts.size(), kListedViolations + 1);
  }
  [[nodiscard]] double height() const {
    return legend_y() + 26 + 16 * static_cast<double>(listed_violations()) + 8;
  }
  // lane == lanes.size() is the bottom of the last lane.
  [[nodiscard]] double lane_top(std::size_t lane) const {
    double top = kLanesTop;
    for (std::size_t above = 0; above < lane && above < timeline_.lanes.size(); ++above) top += lane_height(above);
    return top;
  }
  [[nodiscard]] double lane_height(std::size_t lane) const {
    return timeline_.lanes[lane].kind == LaneKind::kStorage ? kStorageLaneHeight : kLaneHeight;
  }
  // Where a lane's bars and marks sit: the middle, or on storage high enough to leave rows for labels below.
  [[nodiscard]] double lane_middle(std::size_t lane) const {
    return lane_top(lane) + (timeline_.lanes[lane].kind == LaneKind::kStorage ? 30 : kLaneHeight / 2);
  }
  [[nodiscard]] double x(std::int64_t time_ns) const { return timeline_x(window_, time_ns); }

  [[nodiscard]] bool visible(std::int64_t time_ns) const {
    return time_ns >= window_.begin_ns && time_ns <= window_.end_ns;
  }
  // [begin, end] clipped to the window, or nullopt when it lies outside.
  [[nodiscard]] std::optional<std::pair<double, double>> clipped(std::int64_t begin_ns, std::int64_t end_ns) const {
    if (end_ns < window_.begin_ns || begin_ns > window_.end_ns) return std::nullopt;
    return std::pair{x(std::max(begin_ns, window_.begin_ns)), x(std::min(end_ns, window_.end_ns))};
  }

  [[nodiscard]] std::string_view holder_colour(std::string_view worker) const {
    std::size_t workers = 0;
    for (const Lane& lane : timeline_.lanes) {
      if (lane.kind != LaneKind::kWorker) continue;
      if (lane.name == worker) return kHolderColours[workers % kHolderColours.size()];
      ++workers;
    }
    return "#999999";
  }

  [[nodiscard]] std::size_t service_lanes() const {
    return static_cast<std::size_t>(std::count_if(timeline_.lanes.begin(), timeline_.lanes.end(),
                                                  [](const Lane& lane) { return lane.kind == LaneKind::kService; }));
  }

  void add_definitions(SvgDocument& svg) const {
    SvgElement& defs = svg.add(SvgElement{"defs"});
    SvgElement& hatch = defs.add(SvgElement{"pattern"});
    hatch.set("id", id("pause-hatch")).set("patternUnits", "userSpaceOnUse").set("width", 7).set("height", 7);
    hatch.set("patternTransform", "rotate(45)");
    hatch.add(svg_rect(0, 0, 7, 7, "#f1f1f1"));
    hatch.add(svg_line(0, 0, 0, 7, "#8d8d8d", 2.5));
    for (const WriteClass write_class : {WriteClass::kOk, WriteClass::kLate, WriteClass::kStale, WriteClass::kRejected}) {
      SvgElement& arrow = defs.add(SvgElement{"marker"});
      arrow.set("id", id(fmt::format("arrow-{}", class_name(write_class)))).set("viewBox", "0 0 8 8");
      arrow.set("refX", 7).set("refY", 4).set("markerWidth", 7).set("markerHeight", 7).set("orient", "auto");
      arrow.add(SvgElement{"path"}).set("d", "M0,0 L8,4 L0,8 z").set("fill", class_colour(write_class));
    }
  }

  void add_title(SvgDocument& svg) const {
    std::string title = timeline_.scenario.empty() ? "a run" : timeline_.scenario;
    if (timeline_.seed) title += fmt::format(" — seed {}", *timeline_.seed);
    if (timeline_.fencing) title += *timeline_.fencing ? ", fencing on" : ", fencing off";
    svg.add(svg_text(16, 26, title, "start", 16)).set("font-weight", "bold").set("class", "title");
    std::string window = fmt::format("true time {} to {}", short_seconds(window_.begin_ns), short_seconds(window_.end_ns));
    if (window_.begin_ns > 0 || window_.end_ns < timeline_.end_ns) {
      window += fmt::format(" (of {}), around the first violation", short_seconds(timeline_.end_ns));
    }
    svg.add(svg_text(16, 46, fmt::format("{} · {}", window, violation_summary()), "start", 12));
    svg.add(svg_text(16, 63,
                     "a lease as the lock service promised it (service lanes, faint on the holder's lane) against the "
                     "worker's belief that it holds the lock (thin bar): the gap is the hazard",
                     "start", 11))
        .set("fill", "#555555");
  }

  [[nodiscard]] std::string violation_summary() const {
    std::vector<std::pair<checker::ViolationKind, int>> counts;
    for (const TimelineCallout& callout : timeline_.callouts) {
      auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& entry) { return entry.first == callout.kind; });
      if (found == counts.end()) {
        counts.emplace_back(callout.kind, 1);
      } else {
        ++found->second;
      }
    }
    if (counts.empty()) return "no violation";
    std::string text = "incidents:";
    for (const auto& [kind, count] : counts) text += fmt::format(" {} {}", checker::violation_kind_name(kind), count);
    return text;
  }

  void add_lanes(SvgDocument& svg) const {
    for (std::size_t lane = 0; lane < timeline_.lanes.size(); ++lane) {
      const double top = lane_top(lane);
      svg.add(svg_rect(kPlotLeft, top, kPlotRight - kPlotLeft, lane_height(lane), lane % 2 == 0 ? "#fafafa" : "#f2f4f7"));
      svg.add(svg_text(kPlotLeft - 10, lane_middle(lane) + 1, timeline_.lanes[lane].name, "end", 13))
          .set("font-weight", "bold")
          .set("class", "lane-label");
      svg.add(svg_text(kPlotLeft - 10, lane_middle(lane) + 14, lane_kind_text(timeline_.lanes[lane].kind), "end", 10))
          .set("fill", "#777777");
    }
  }

  void add_axis(SvgDocument& svg) const {
    const double low = static_cast<double>(window_.begin_ns) / 1e9;
    const double high = static_cast<double>(window_.end_ns) / 1e9;
    for (const double tick : round_ticks(low, high, 10)) {
      const double tick_x = x(static_cast<std::int64_t>(tick * 1e9));
      svg.add(svg_line(tick_x, kLanesTop, tick_x, axis_y(), kGridColour));
      svg.add(svg_line(tick_x, axis_y(), tick_x, axis_y() + 5, kAxisColour));
      svg.add(svg_text(tick_x, axis_y() + 18, tick_label(tick) + "s", "middle", 11));
    }
    svg.add(svg_line(kPlotLeft, axis_y(), kPlotRight, axis_y(), kAxisColour));
    svg.add(svg_text((kPlotLeft + kPlotRight) / 2, axis_y() + 34, "true time (seconds since the run began)", "middle", 12));
  }

  // Pauses hatched over the lane; other lasting faults as a band at its foot.
  // A label that would print over another on its lane, or off the picture, is
  // left to the shape's tooltip.
  void add_spans(SvgDocument& svg) const {
    for (const FaultSpan& span : timeline_.spans) {
      const auto range = clipped(span.begin_ns, span.end_ns);
      if (!range) continue;
      const double top = lane_top(span.lane);
      const double width = std::max(range->second - range->first, 1.5);
      const bool down =
          span.kind == fault_kind_name(FaultKind::kCrash) || span.kind == fault_kind_name(FaultKind::kPowerLoss);
      if (span.kind == fault_kind_name(FaultKind::kPause)) {
        SvgElement& rect = svg.add(svg_rect(range->first, top + 3, width, lane_height(span.lane) - 6, url("pause-hatch")));
        rect.set("stroke", "#8d8d8d").set("class", "pause");
        rect.set("data-begin-ns", fmt::format("{}", span.begin_ns)).set("data-end-ns", fmt::format("{}", span.end_ns));
        rect.add("title").text(span.label);
      } else {
        SvgElement& band =
            svg.add(svg_rect(range->first, top + lane_height(span.lane) - 9, width, 6, down ? "#444444" : "#9aa5b1"));
        band.set("class", "fault").set("data-kind", span.kind);
        band.add("title").text(span.label);
      }
    }
    // Labels after every shape, so that no later shape covers one.
    std::map<std::pair<std::size_t, bool>, double> label_end;  // (lane, pause?) -> right edge of its last label
    for (const FaultSpan& span : timeline_.spans) {
      const auto range = clipped(span.begin_ns, span.end_ns);
      if (!range) continue;
      const double top = lane_top(span.lane);
      const bool pause = span.kind == fault_kind_name(FaultKind::kPause);
      const bool down =
          span.kind == fault_kind_name(FaultKind::kCrash) || span.kind == fault_kind_name(FaultKind::kPowerLoss);
      const std::string text = down ? span.label + " (down)" : span.label;
      const double font_size = pause ? 10 : 9;
      const double left = range->first + 3;
      double& previous_end = label_end.try_emplace({span.lane, pause}, 0.0).first->second;
      if (left < previous_end + 6 || left + text_width(text, font_size) > kWidth - 4) continue;
      previous_end = left + text_width(text, font_size);
      svg.add(svg_text(left, pause ? top + 13 : top + lane_height(span.lane) - 11, text, "start", font_size))
          .set("fill", "#444444");
    }
  }

  void add_leases(SvgDocument& svg) const {
    const double projection_opacity = std::max(0.06, 0.22 / static_cast<double>(std::max<std::size_t>(1, service_lanes())));
    for (const LeaseBar& lease : timeline_.leases) {
      const auto range = clipped(lease.begin_ns, lease.end_ns);
      if (!range) continue;
      const double width = std::max(range->second - range->first, 1.0);
      const std::string_view colour = holder_colour(lease.owner);
      // The promise, faint, on the holder's own lane: where its belief runs past it is the gap.
      if (const auto holder = timeline_.lane_of(lease.owner)) {
        svg.add(svg_rect(range->first, lane_middle(*holder) - 13, width, 26, colour))
            .set("fill-opacity", projection_opacity)
            .set("class", "lease-projection");
      }
      const double middle = lane_middle(lease.lane);
      SvgElement& bar = svg.add(svg_rect(range->first, middle - 9, width, 18, colour));
      if (width > 3) bar.set("stroke", "white").set("stroke-width", 0.5);  // a seam between bars, not a wash over thin ones
      bar.set("class", "lease");
      bar.set("data-owner", lease.owner).set("data-token", lease.token).set("data-ended-by", lease.ended_by);
      bar.set("data-begin-ns", fmt::format("{}", lease.begin_ns)).set("data-end-ns", fmt::format("{}", lease.end_ns));
      bar.add("title").text(fmt::format("lease t{} to {} from {} to {} ({})", lease.token, lease.owner,
                                        seconds_label(lease.begin_ns), seconds_label(lease.end_ns), lease.ended_by));
      const std::string token = lease.token.empty() ? std::string{} : "t" + lease.token;
      if (!token.empty() && width > text_width(token, 10) + 4) {
        svg.add(svg_text(range->first + width / 2, middle + 3.5, token, "middle", 10)).set("fill", "white");
      }
      add_lease_end(svg, lease, middle);
    }
  }

  // A lease that ran out or vanished (not a plain release) is where the gap opens: mark and name its end.
  void add_lease_end(SvgDocument& svg, const LeaseBar& lease, double middle) const {
    if ((lease.ended_by != event_kind_name(EventKind::kLeaseExpire) &&
         lease.ended_by != event_kind_name(EventKind::kLeaseLost)) ||
        !visible(lease.end_ns))
      return;
    const double end = x(lease.end_ns);
    svg.add(svg_line(end, middle - 13, end, middle + 13, "#222222", 2)).set("class", "lease-end");
    const std::string text = lease.ended_by == event_kind_name(EventKind::kLeaseExpire) ? "expired" : "lost";
    svg.add(svg_text(end + 3, middle - 12, text, "start", 10)).set("fill", "#222222");
  }

  void add_beliefs(SvgDocument& svg) const {
    for (const BeliefBar& belief : timeline_.beliefs) {
      const auto range = clipped(belief.begin_ns, belief.end_ns);
      if (!range) continue;
      const double middle = lane_middle(belief.lane);
      const std::string_view colour = holder_colour(timeline_.lanes[belief.lane].name);
      SvgElement& bar = svg.add(svg_rect(range->first, middle - 4, std::max(range->second - range->first, 1.0), 8, colour));
      if (range->second - range->first > 3) bar.set("stroke", "white").set("stroke-width", 0.5);
      bar.set("class", "belief").set("data-token", belief.token).set("data-ended-by", belief.ended_by);
      bar.set("data-begin-ns", fmt::format("{}", belief.begin_ns)).set("data-end-ns", fmt::format("{}", belief.end_ns));
      bar.add("title").text(fmt::format("{} believes it holds t{} from {} to {} ({})", timeline_.lanes[belief.lane].name,
                                        belief.token, seconds_label(belief.begin_ns), seconds_label(belief.end_ns),
                                        belief.ended_by));
      if (belief.valid_until_ns && *belief.valid_until_ns < belief.end_ns && visible(*belief.valid_until_ns)) {
        // Redlock: past here the client's own validity had run out while it still acted as the holder.
        SvgElement& tick = svg.add(svg_line(x(*belief.valid_until_ns), middle - 7, x(*belief.valid_until_ns), middle + 7,
                                            "#222222", 1.5));
        tick.set("class", "validity-end");
        tick.add("title").text(fmt::format("{}'s Redlock validity ran out at {}", timeline_.lanes[belief.lane].name,
                                           seconds_label(*belief.valid_until_ns)));
      }
      if (belief.ended_by == vocabulary::reason::kCrash && visible(belief.end_ns)) {
        svg.add(svg_text(x(belief.end_ns), middle + 4, "✕", "middle", 12)).set("fill", "#222222");
      }
    }
  }

  void add_markers(SvgDocument& svg) const {
    for (const FaultMarker& marker : timeline_.markers) {
      if (!visible(marker.time_ns)) continue;
      const double marker_x = x(marker.time_ns);
      const double top = lane_top(marker.lane);
      const bool clock = marker.kind != fault_kind_name(FaultKind::kMemoryPressure);
      const std::string_view colour = clock ? kClockColour : "#555555";
      svg.add(svg_line(marker_x, top + 2, marker_x, top + lane_height(marker.lane) - 2, colour, 2))
          .set("stroke-dasharray", clock ? "none" : "3 2")
          .set("class", marker.kind);
      svg.add(SvgElement{"polygon"})
          .set("points", svg_points({{marker_x - 5, top + 2}, {marker_x + 5, top + 2}, {marker_x, top + 9}}))
          .set("fill", colour);
      svg.add(svg_text(marker_x + 6, top + 11, marker.label, "start", 10)).set("fill", colour).set("font-weight", "bold");
    }
  }

  // Stale, rejected and late writes first, so their labels get the room.
  [[nodiscard]] std::vector<const TimelineWrite*> writes_by_importance() const {
    std::vector<const TimelineWrite*> writes;
    for (const TimelineWrite& write : timeline_.writes) writes.push_back(&write);
    const auto rank = [](const TimelineWrite* write) {
      switch (write->write_class) {
        case WriteClass::kStale: return 0;
        case WriteClass::kRejected: return 1;
        case WriteClass::kLate: return 2;
        case WriteClass::kOk: return 3;
      }
      return 3;
    };
    std::stable_sort(writes.begin(), writes.end(),
                     [&](const TimelineWrite* left, const TimelineWrite* right) { return rank(left) < rank(right); });
    return writes;
  }

  // Marks first, then labels by importance: stale, rejected and late
  // writes and turned-away reads beside their marks, then the violations'
  // names, then ordinary writes' labels where room is left.
  void add_storage_traffic(SvgDocument& svg) const {
    const std::optional<std::size_t> storage = first_lane(LaneKind::kStorage);
    LabelRows rows{kLabelRowOffsets.size()};
    OkMarks drawn;
    for (const TimelineWrite& write : timeline_.writes) add_write_marks(svg, write, storage, drawn);
    if (storage) {
      for (const TurnedAwayRead& read : timeline_.turned_away_reads) add_read_marks(svg, read, *storage);
    }
    const std::vector<const TimelineWrite*> writes = writes_by_importance();
    for (const TimelineWrite* write : writes) {
      if (write->write_class != WriteClass::kOk) add_write_label(svg, *write, storage, rows);
    }
    if (storage) {
      for (const TurnedAwayRead& read : timeline_.turned_away_reads) add_read_label(svg, read, *storage, rows);
    }
    add_callouts(svg, storage, rows);
    for (const TimelineWrite* write : writes) {
      if (write->write_class == WriteClass::kOk) add_write_label(svg, *write, storage, rows);
    }
  }

  // Effects on their external service's lane: a dot per accepted call, the
  // duplicate red, a call turned away (a repeated idempotency key) crossed
  // out; an arrow from the call when it is not an ordinary one.
  void add_effects(SvgDocument& svg) const {
    LabelRows rows{kLabelRowOffsets.size()};
    for (const TimelineEffect& effect : timeline_.effects) {
      if (!visible(effect.landed_ns)) continue;
      const double marker_x = x(effect.landed_ns);
      const double middle = lane_middle(effect.service_lane);
      const bool ordinary = effect.accepted && !effect.duplicate;
      const std::string_view colour = effect.duplicate ? kStaleColour : ordinary ? kOkColour : kRejectedColour;
      if (!ordinary && effect.invoke_ns && visible(*effect.invoke_ns)) {
        const double caller_middle = lane_middle(effect.caller_lane);
        svg.add(svg_line(x(*effect.invoke_ns), caller_middle + 5, marker_x, middle + (caller_middle < middle ? -8 : 8),
                         colour, 1.4))
            .set("marker-end", url(effect.duplicate ? "arrow-stale" : "arrow-rejected"))
            .set("class", "effect-arrow");
      }
      SvgElement mark{"circle"};
      mark.set("cx", marker_x).set("cy", middle).set("r", effect.duplicate ? 7 : 5);
      mark.set("fill", effect.accepted ? colour : "white").set("stroke", effect.duplicate ? "#7f0000" : colour);
      mark.set("class", effect.duplicate ? "effect duplicate" : effect.accepted ? "effect" : "effect rejected");
      mark.add("title").text(fmt::format("{} at {}", effect.label(), short_seconds(effect.landed_ns)));
      svg.add(std::move(mark));
      if (!effect.accepted) add_cross(svg, marker_x, middle);
      const std::string text = effect.label();
      if (const std::optional<Placed> placed = place_beside(marker_x, effect.service_lane, text, kLabelFont, rows, !ordinary)) {
        SvgElement& label = svg.add(svg_text(placed->x, placed->y, text, placed->anchor, kLabelFont));
        label.set("fill", effect.duplicate ? kStaleColour : "#444444").set("class", "effect-label");
        if (effect.duplicate) label.set("font-weight", "bold");
      }
    }
  }

  void add_read_marks(SvgDocument& svg, const TurnedAwayRead& read, std::size_t storage) const {
    if (!visible(read.storage_ns)) return;
    const double marker_x = x(read.storage_ns);
    const double middle = lane_middle(storage);
    if (read.invoke_ns && visible(*read.invoke_ns)) {
      const double reader_middle = lane_middle(read.reader_lane);
      svg.add(svg_line(x(*read.invoke_ns), reader_middle + 5, marker_x, middle + (reader_middle < middle ? -8 : 8),
                       kRejectedColour, 1.4))
          .set("stroke-dasharray", "4 2")
          .set("marker-end", url("arrow-rejected"))
          .set("class", "read-arrow");
    }
    SvgElement mark{"circle"};
    mark.set("cx", marker_x).set("cy", middle).set("r", 6).set("fill", "white").set("stroke", kRejectedColour);
    mark.set("class", "read rejected").set("data-token", read.token);
    mark.add("title").text(fmt::format("{} turned away at {} ({})", read.label(), short_seconds(read.storage_ns), read.reason));
    svg.add(std::move(mark));
    add_cross(svg, marker_x, middle);
  }

  static void add_cross(SvgDocument& svg, double centre_x, double centre_y) {
    svg.add(svg_line(centre_x - 6, centre_y - 6, centre_x + 6, centre_y + 6, kRejectedColour, 2)).set("class", "cross-out");
    svg.add(svg_line(centre_x - 6, centre_y + 6, centre_x + 6, centre_y - 6, kRejectedColour, 2)).set("class", "cross-out");
  }

  // A label beside a mark (right of it, or left at the picture's edge), in the first free row; an
  // important one goes in the top row even when that is taken.
  struct Placed {
    double x = 0;
    double y = 0;
    std::string_view anchor;
  };
  std::optional<Placed> place_beside(double marker_x, std::size_t lane, std::string_view text, double font_size,
                                     LabelRows& rows, bool important) const {
    const double width = text_width(text, font_size);
    const bool fits_right = marker_x + 9 + width < kWidth - 4;
    const bool fits_left = marker_x - 9 - width > kPlotLeft;
    // The side with room, else the other side, else (important labels only) over another label.
    bool right = fits_right;
    std::optional<std::size_t> row = rows.take(right ? marker_x + 9 : marker_x - 9 - width,
                                               right ? marker_x + 9 + width : marker_x - 9);
    if (!row && (right ? fits_left : fits_right)) {
      right = !right;
      row = rows.take(right ? marker_x + 9 : marker_x - 9 - width, right ? marker_x + 9 + width : marker_x - 9);
      if (!row) right = !right;
    }
    if (!row && !important) return std::nullopt;
    const double middle = lane_middle(lane);
    return Placed{right ? marker_x + 9 : marker_x - 9, middle + kLabelRowOffsets.at(row.value_or(0)),
                  right ? "start" : "end"};
  }

  void add_read_label(SvgDocument& svg, const TurnedAwayRead& read, std::size_t storage, LabelRows& rows) const {
    if (!visible(read.storage_ns)) return;
    const std::string text = read.label();
    const std::optional<Placed> placed = place_beside(x(read.storage_ns), storage, text, kLabelFont, rows, true);
    svg.add(svg_text(placed->x, placed->y, text, placed->anchor, kLabelFont))
        .set("fill", kRejectedColour)
        .set("text-decoration", "line-through")
        .set("class", "read-label rejected");
  }

  [[nodiscard]] std::optional<std::size_t> first_lane(LaneKind kind) const {
    for (std::size_t lane = 0; lane < timeline_.lanes.size(); ++lane) {
      if (timeline_.lanes[lane].kind == kind) return lane;
    }
    return std::nullopt;
  }

  // Where the last ordinary write's marks went, per lane: in a dense run one
  // mark every few pixels looks the same as all of them and keeps the file small.
  struct OkMarks {
    std::map<std::size_t, double> invoke_x;
    double storage_x = -100;
  };
  static bool crowded(double& last_x, double next_x) {
    if (next_x - last_x < 3) return true;
    last_x = next_x;
    return false;
  }

  void add_write_marks(SvgDocument& svg, const TimelineWrite& write, std::optional<std::size_t> storage,
                       OkMarks& drawn) const {
    const std::string_view colour = class_colour(write.write_class);
    const bool reached = write.storage_ns && storage;
    const double writer_middle = lane_middle(write.writer_lane);
    const bool important = write.write_class != WriteClass::kOk;
    if (write.invoke_ns && visible(*write.invoke_ns)) {
      const double invoke_x = x(*write.invoke_ns);
      if (important || !crowded(drawn.invoke_x.try_emplace(write.writer_lane, -100.0).first->second, invoke_x)) {
        svg.add(svg_line(invoke_x, writer_middle + 5, invoke_x, writer_middle + 14, colour, 2)).set("class", "write-invoke");
      }
      if (reached && visible(*write.storage_ns) && (important || x(*write.storage_ns) - invoke_x >= 4)) {
        const double storage_y = lane_middle(*storage) + (writer_middle < lane_middle(*storage) ? -8 : 8);
        svg.add(svg_line(invoke_x, writer_middle + 14, x(*write.storage_ns), storage_y, colour, important ? 1.6 : 1))
            .set("marker-end", url(fmt::format("arrow-{}", class_name(write.write_class))))
            .set("class", "write-arrow");
      }
    }
    if (!reached || !visible(*write.storage_ns)) return;
    const double marker_x = x(*write.storage_ns);
    if (!important && crowded(drawn.storage_x, marker_x)) return;
    const double middle = lane_middle(*storage);
    SvgElement mark{"circle"};
    mark.set("cx", marker_x).set("cy", middle);
    switch (write.write_class) {
      case WriteClass::kOk: mark.set("r", 3).set("fill", kOkColour); break;
      case WriteClass::kLate: mark.set("r", 6).set("fill", kLateColour).set("stroke", kLateTextColour); break;
      case WriteClass::kStale: mark.set("r", 7).set("fill", kStaleColour).set("stroke", "#7f0000"); break;
      case WriteClass::kRejected: mark.set("r", 6).set("fill", "white").set("stroke", kRejectedColour); break;
    }
    mark.set("class", fmt::format("write {}", class_name(write.write_class)));
    mark.set("data-token", write.token).set("data-storage-ns", fmt::format("{}", *write.storage_ns));
    mark.add("title").text(write_title(write));
    svg.add(std::move(mark));
    if (write.write_class == WriteClass::kRejected) add_cross(svg, marker_x, middle);
  }

  static std::string write_title(const TimelineWrite& write) {
    std::string title = fmt::format("{} ({})", write.label(), class_name(write.write_class));
    if (write.invoke_ns) title += fmt::format(", sent {}", seconds_label(*write.invoke_ns));
    if (write.storage_ns) title += fmt::format(", at storage {}", seconds_label(*write.storage_ns));
    if (!write.reject_reason.empty()) title += fmt::format(", rejected: {}", write.reject_reason);
    return title;
  }

  void add_write_label(SvgDocument& svg, const TimelineWrite& write, std::optional<std::size_t> storage,
                       LabelRows& rows) const {
    if (!write.storage_ns || !storage || !visible(*write.storage_ns)) return;
    const std::string text = write.label();
    const double marker_x = x(*write.storage_ns);
    std::optional<Placed> placed;
    if (write.write_class == WriteClass::kOk) {
      // Centred over an ordinary write's dot, and left out where the writes are dense: the dots say enough.
      const double width = text_width(text, kLabelFont);
      const double centre = std::clamp(marker_x, kPlotLeft + width / 2, kWidth - 4 - width / 2);  // off the lane names
      const std::optional<std::size_t> row = rows.take(centre - width / 2, centre + width / 2);
      if (!row) return;
      const double middle = lane_middle(*storage);
      placed = Placed{centre, middle + kLabelRowOffsets.at(*row), "middle"};
    } else {
      placed = place_beside(marker_x, *storage, text, kLabelFont, rows, true);
    }
    SvgElement& label = svg.add(svg_text(placed->x, placed->y, text, placed->anchor, kLabelFont));
    label.set("class", fmt::format("write-label {}", class_name(write.write_class)));
    switch (write.write_class) {
      case WriteClass::kOk: label.set("fill", "#444444"); break;
      case WriteClass::kLate: label.set("fill", kLateTextColour).set("font-weight", "bold"); break;
      case WriteClass::kStale: label.set("fill", kStaleColour).set("font-weight", "bold"); break;
      case WriteClass::kRejected: label.set("fill", kRejectedColour).set("text-decoration", "line-through"); break;
    }
  }

  // Each incident's name at the event that shows it: on storage in a free label row, elsewhere at the lane's foot.
  // Incidents of one kind on one lane whose names would print over each
  // other are named once, with their number ("⚠ foreign_release 11.01s ×2").
  struct CalloutGroup {
    const TimelineCallout* first = nullptr;
    int count = 0;
  };
  [[nodiscard]] std::vector<CalloutGroup> callout_groups() const {
    std::vector<CalloutGroup> groups;
    for (const TimelineCallout& callout : timeline_.callouts) {
      if (!visible(callout.time_ns) || !callout.lane) continue;
      const auto same = std::find_if(groups.begin(), groups.end(), [&](const CalloutGroup& group) {
        return group.first->kind == callout.kind && group.first->lane == callout.lane &&
               std::abs(x(group.first->time_ns) - x(callout.time_ns)) < 40;
      });
      if (same != groups.end()) {
        ++same->count;
      } else {
        groups.push_back({&callout, 1});
      }
    }
    return groups;
  }

  void add_callouts(SvgDocument& svg, std::optional<std::size_t> storage, LabelRows& rows) const {
    for (const CalloutGroup& group : callout_groups()) {
      const TimelineCallout& callout = *group.first;
      const double callout_x = x(callout.time_ns);
      std::string text =
          fmt::format("⚠ {} {}", checker::violation_kind_name(callout.kind), short_seconds(callout.time_ns));
      if (group.count > 1) text += fmt::format(" ×{}", group.count);
      Placed placed;
      if (callout.lane == storage) {
        placed = *place_beside(callout_x, *storage, text, 10, rows, true);
      } else {
        const bool right = callout_x + 4 + text_width(text, 10) < kWidth - 4;
        placed = Placed{right ? callout_x + 4 : callout_x - 4, lane_top(*callout.lane) + lane_height(*callout.lane) - 4,
                        right ? "start" : "end"};
      }
      SvgElement& label = svg.add(svg_text(placed.x, placed.y, text, placed.anchor, 10));
      label.set("fill", kStaleColour).set("font-weight", "bold").set("class", "violation");
      label.set("data-kind", checker::violation_kind_name(callout.kind));
      label.add("title").text(callout.detail);
    }
  }

  void add_note(SvgDocument& svg) const {
    if (!options_.note || !visible(options_.note->time_ns)) return;
    const TimelineNote& note = *options_.note;
    const double note_x = x(note.time_ns);
    const std::optional<std::size_t> lane = timeline_.lane_of(note.lane);
    const double top = lane ? lane_top(*lane) : kLanesTop;
    const double bottom = lane ? top + lane_height(*lane) : lanes_bottom();
    svg.add(svg_line(note_x, top, note_x, bottom, kNoteColour, 2)).set("stroke-dasharray", "5 3").set("class", "note");
    const bool fits_right = note_x + 6 + text_width(note.text, 11) < kWidth - 4;
    svg.add(svg_text(fits_right ? note_x + 6 : note_x - 6, top + 24, note.text, fits_right ? "start" : "end", 11))
        .set("fill", kNoteColour)
        .set("font-weight", "bold")
        .set("class", "note-text");
  }

  void add_legend(SvgDocument& svg) const {
    double left = 16;
    const double y = legend_y();
    const auto entry = [&](std::string_view text) {
      svg.add(svg_text(left + 24, y + 4, text, "start", 11));
      left += 24 + text_width(text, 11) + 16;
    };
    svg.add(svg_rect(left, y - 7, 20, 14, kHolderColours[0]));
    entry("lease the service promised");
    svg.add(svg_rect(left, y - 9, 20, 18, kHolderColours[0])).set("fill-opacity", 0.22);
    svg.add(svg_rect(left, y - 3, 20, 6, kHolderColours[0]));
    entry("worker's belief it holds");
    svg.add(svg_rect(left, y - 7, 20, 14, url("pause-hatch"))).set("stroke", "#8d8d8d");
    entry("pause");
    svg.add(svg_line(left + 10, y - 8, left + 10, y + 8, kClockColour, 2));
    entry("clock jump");
    svg.add(SvgElement{"circle"}).set("cx", left + 10).set("cy", y).set("r", 3).set("fill", kOkColour);
    entry("write");
    svg.add(SvgElement{"circle"}).set("cx", left + 10).set("cy", y).set("r", 6).set("fill", kLateColour);
    entry("late (harmless)");
    svg.add(SvgElement{"circle"}).set("cx", left + 10).set("cy", y).set("r", 6).set("fill", kStaleColour);
    entry("stale");
    svg.add(SvgElement{"circle"}).set("cx", left + 10).set("cy", y).set("r", 6).set("fill", "white").set("stroke",
                                                                                                          kRejectedColour);
    svg.add(svg_line(left + 4, y - 6, left + 16, y + 6, kRejectedColour, 2));
    svg.add(svg_line(left + 4, y + 6, left + 16, y - 6, kRejectedColour, 2));
    entry("rejected (fenced)");
  }

  void add_violation_list(SvgDocument& svg) const {
    double y = legend_y() + 28;
    for (std::size_t index = 0; index < listed_violations(); ++index) {
      if (index == kListedViolations) {
        svg.add(svg_text(16, y, fmt::format("… and {} more incidents (locksim replay prints them all)",
                                            timeline_.callouts.size() - kListedViolations),
                         "start", 11));
        break;
      }
      std::string detail = timeline_.callouts[index].detail;
      constexpr std::size_t kLongest = 165;
      if (detail.size() > kLongest) {
        std::size_t cut = kLongest;
        while (cut > 0 && (static_cast<unsigned char>(detail[cut]) & 0xC0U) == 0x80U) --cut;  // not inside a UTF-8 character
        detail = detail.substr(0, cut) + "…";
      }
      svg.add(svg_text(16, y, detail, "start", 11)).set("fill", kStaleColour).set("class", "violation-detail");
      y += 16;
    }
  }

  const Timeline& timeline_;
  const TimelineOptions& options_;
  TimelineWindow window_;
};

}  // namespace

TimelineWindow timeline_window(const Timeline& timeline, const TimelineOptions& options) {
  TimelineWindow window{0, std::max<std::int64_t>(timeline.end_ns, 1)};
  if (!options.around_first_violation_ns || timeline.callouts.empty()) return window;
  std::int64_t first = timeline.callouts.front().time_ns;
  for (const TimelineCallout& callout : timeline.callouts) first = std::min(first, callout.time_ns);
  const std::int64_t margin = std::clamp<std::int64_t>(*options.around_first_violation_ns, 1, INT64_MAX / 4);
  window.begin_ns = std::max<std::int64_t>(0, first - margin);
  window.end_ns = std::min(window.end_ns, first + margin);
  if (window.end_ns <= window.begin_ns) window.end_ns = window.begin_ns + 1;
  return window;
}

double timeline_x(const TimelineWindow& window, std::int64_t time_ns) {
  const LinearScale scale{static_cast<double>(window.begin_ns), static_cast<double>(window.end_ns), kPlotLeft, kPlotRight};
  return scale(static_cast<double>(time_ns));
}

std::string timeline_svg(const Timeline& timeline, const TimelineOptions& options) {
  return TimelinePainter{timeline, options}.paint();
}

}  // namespace locksim::reports
