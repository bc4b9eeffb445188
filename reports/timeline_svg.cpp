#include "reports/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "checker/violation.h"
#include "reports/label_layout.h"
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
constexpr double kLabelFont = 11;
constexpr double kFaultFont = 10;
constexpr double kCalloutFont = 10;
constexpr double kNoteFont = 11;
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

// The rows of a lane where a label's baseline can sit: above and below its
// bars, or on storage one above its marks and two below.
std::vector<double> label_rows(LaneKind kind, double top, double height) {
  if (kind == LaneKind::kStorage) return {top + 20, top + 51, top + 65};
  return {top + 14, top + height - 5};
}

class TimelinePainter {
 public:
  TimelinePainter(const Timeline& timeline, const TimelineOptions& options)
      : timeline_{timeline}, options_{options}, window_{timeline_window(timeline, options)} {}

  // Painted twice when an important label found no room on the lanes: the
  // second time with rows below the picture for it.
  std::string paint() {
    std::string first = paint_once();
    if (overflow_.empty()) return first;
    overflow_rows_ = overflow_.size();
    return paint_once();
  }

 private:
  std::string paint_once() {
    labels_ = LabelLayout{Box{kPlotLeft, kLanesTop, kWidth - 4, lanes_bottom()}};
    overflow_.clear();
    SvgDocument svg{kWidth, height()};
    add_definitions(svg);
    add_title(svg);
    add_lanes(svg);
    add_axis(svg);
    // Shapes first, each blocking its room; then labels, the most important first.
    add_spans(svg);
    add_leases(svg);
    add_beliefs(svg);
    add_markers(svg);
    add_storage_marks(svg);
    add_effect_marks(svg);
    add_note_line(svg);
    add_note_label(svg);
    add_callouts(svg);
    add_storage_labels(svg, /*ordinary=*/false);
    add_effect_labels(svg, /*ordinary=*/false);
    add_lease_end_labels(svg);
    add_span_labels(svg);
    add_marker_labels(svg);
    add_storage_labels(svg, /*ordinary=*/true);
    add_effect_labels(svg, /*ordinary=*/true);
    add_legend(svg);
    add_violation_list(svg);
    add_overflow(svg);
    return svg.to_xml();
  }

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
  [[nodiscard]] double overflow_y() const { return legend_y() + 28 + 16 * static_cast<double>(listed_violations()); }
  [[nodiscard]] double height() const {
    return overflow_y() - 2 + 16 * static_cast<double>(overflow_rows_) + 8;
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

  // A shape that labels must leave readable.
  void block(double left, double top, double width, double height) {
    labels_.block(Box{left, top, left + width, top + height});
  }
  void block_mark(double centre_x, double centre_y, double radius) {
    labels_.block(Box{centre_x - radius, centre_y - radius, centre_x + radius, centre_y + radius});
  }

  // Where a label beside the point `at_x` of `lane` may go: in each of the
  // lane's rows, right of the point, then left of it (`gap` away); `centred`
  // puts it over the point first.
  [[nodiscard]] std::vector<LabelPlace> beside(double at_x, std::size_t lane, double gap, bool centred = false) const {
    std::vector<LabelPlace> places;
    for (const double row : label_rows(timeline_.lanes[lane].kind, lane_top(lane), lane_height(lane))) {
      if (centred) places.push_back({at_x, row, "middle"});
      places.push_back({at_x + gap, row, "start"});
      places.push_back({at_x - gap, row, "end"});
    }
    return places;
  }

  // Draws `text` at the first free place, or (important) lists it below the
  // picture with where it belongs; returns the drawn label, if any.
  SvgElement* draw_label(SvgDocument& svg, const std::vector<LabelPlace>& places, std::string_view text,
                         double font_size, bool important, std::string_view where) {
    const std::optional<LabelPlace> place = labels_.place(places, font_size, text);
    if (place) return &svg.add(svg_text(place->x, place->baseline, text, place->anchor, font_size));
    if (important) overflow_.push_back(fmt::format("{} ({})", text, where));
    return nullptr;
  }

  [[nodiscard]] std::string where(std::size_t lane, std::int64_t time_ns) const {
    return fmt::format("{}, {}", timeline_.lanes[lane].name, short_seconds(time_ns));
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
      window += fmt::format(" (of {}), {}", short_seconds(timeline_.end_ns),
                            options_.window ? "the critical window enlarged" : "around the first violation");
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
  void add_spans(SvgDocument& svg) {
    for (const FaultSpan& span : timeline_.spans) {
      const auto range = clipped(span.begin_ns, span.end_ns);
      if (!range) continue;
      const double top = lane_top(span.lane);
      const double width = std::max(range->second - range->first, 1.5);
      if (span.kind == fault_kind_name(FaultKind::kPause)) {
        SvgElement& rect = svg.add(svg_rect(range->first, top + 3, width, lane_height(span.lane) - 6, url("pause-hatch")));
        rect.set("stroke", "#8d8d8d").set("class", "pause");
        rect.set("data-begin-ns", fmt::format("{}", span.begin_ns)).set("data-end-ns", fmt::format("{}", span.end_ns));
        rect.add("title").text(span.label);
      } else {
        const double band_top = top + lane_height(span.lane) - 9;
        SvgElement& band = svg.add(svg_rect(range->first, band_top, width, 6, is_down(span) ? "#444444" : "#9aa5b1"));
        band.set("class", "fault").set("data-kind", span.kind);
        band.add("title").text(span.label);
        block(range->first, band_top, width, 6);
      }
    }
  }

  // When a message invoked at `invoke_ns` left `lane`: a pause that began at
  // or before the invoke holds the message back until it ends (the node does
  // nothing while paused), so one that arrived after the pause left then.
  [[nodiscard]] std::int64_t sent_at(std::size_t lane, std::int64_t invoke_ns, std::int64_t arrived_ns) const {
    for (const FaultSpan& span : timeline_.spans) {
      if (span.lane == lane && span.kind == fault_kind_name(FaultKind::kPause) && span.begin_ns <= invoke_ns &&
          invoke_ns < span.end_ns && span.end_ns <= arrived_ns) {
        return span.end_ns;
      }
    }
    return invoke_ns;
  }

  // A message's flight, from when it left its sender to its mark: when a
  // pause held it back, a dotted line along the sender's lane from the invoke
  // to the send, so that the arrow is not drawn as a flight as long as the pause.
  SvgElement& add_flight(SvgDocument& svg, std::size_t from_lane, double from_y, std::int64_t invoke_ns,
                         std::int64_t arrived_ns, double to_y, std::string_view colour, double width) {
    const std::int64_t sent_ns = sent_at(from_lane, invoke_ns, arrived_ns);
    if (sent_ns != invoke_ns) {
      svg.add(svg_line(x(invoke_ns), from_y, x(sent_ns), from_y, colour, 1.2))
          .set("stroke-dasharray", "2 3")
          .set("class", "held-back");
    }
    return svg.add(svg_line(x(sent_ns), from_y, x(arrived_ns), to_y, colour, width));
  }

  static bool is_down(const FaultSpan& span) {
    return span.kind == fault_kind_name(FaultKind::kCrash) || span.kind == fault_kind_name(FaultKind::kPowerLoss);
  }

  // A fault's name at its start, in a free row of its lane; where there is
  // none the shape's tooltip keeps it.
  void add_span_labels(SvgDocument& svg) {
    for (const FaultSpan& span : timeline_.spans) {
      const auto range = clipped(span.begin_ns, span.end_ns);
      if (!range) continue;
      const std::string text = is_down(span) ? span.label + " (down)" : span.label;
      std::vector<LabelPlace> places;
      for (const double row : label_rows(timeline_.lanes[span.lane].kind, lane_top(span.lane), lane_height(span.lane))) {
        places.push_back({range->first + 3, row, "start"});
      }
      if (SvgElement* label = draw_label(svg, places, text, kFaultFont, false, {})) {
        label->set("fill", "#444444").set("class", "fault-label");
      }
    }
  }

  void add_leases(SvgDocument& svg) {
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
      block(range->first, middle - 9, width, 18);
      // The token inside its own bar, where the bar is wide enough.
      const std::string token = lease.token.empty() ? std::string{} : "t" + lease.token;
      if (!token.empty() && width > text_box(0, 0, "start", 10, token).right + 4) {
        svg.add(svg_text(range->first + width / 2, middle + 3.5, token, "middle", 10))
            .set("fill", "white")
            .set("class", "token");
      }
      if (ran_out(lease) && visible(lease.end_ns)) {
        svg.add(svg_line(x(lease.end_ns), middle - 13, x(lease.end_ns), middle + 13, "#222222", 2)).set("class", "lease-end");
      }
    }
  }

  // A lease that ran out or vanished (not a plain release) is where the gap opens.
  static bool ran_out(const LeaseBar& lease) {
    return lease.ended_by == event_kind_name(EventKind::kLeaseExpire) ||
           lease.ended_by == event_kind_name(EventKind::kLeaseLost);
  }

  // "expired" or "lost" beside the end of such a lease.
  void add_lease_end_labels(SvgDocument& svg) {
    for (const LeaseBar& lease : timeline_.leases) {
      if (!ran_out(lease) || !visible(lease.end_ns)) continue;
      const std::string text = lease.ended_by == event_kind_name(EventKind::kLeaseExpire) ? "expired" : "lost";
      if (SvgElement* label = draw_label(svg, beside(x(lease.end_ns), lease.lane, 3), text, kFaultFont, false, {})) {
        label->set("fill", "#222222").set("class", "lease-end-label");
      }
    }
  }

  void add_beliefs(SvgDocument& svg) {
    for (const BeliefBar& belief : timeline_.beliefs) {
      const auto range = clipped(belief.begin_ns, belief.end_ns);
      if (!range) continue;
      const double middle = lane_middle(belief.lane);
      const std::string_view colour = holder_colour(timeline_.lanes[belief.lane].name);
      const double width = std::max(range->second - range->first, 1.0);
      SvgElement& bar = svg.add(svg_rect(range->first, middle - 4, width, 8, colour));
      if (range->second - range->first > 3) bar.set("stroke", "white").set("stroke-width", 0.5);
      bar.set("class", "belief").set("data-token", belief.token).set("data-ended-by", belief.ended_by);
      bar.set("data-begin-ns", fmt::format("{}", belief.begin_ns)).set("data-end-ns", fmt::format("{}", belief.end_ns));
      bar.add("title").text(fmt::format("{} believes it holds t{} from {} to {} ({})", timeline_.lanes[belief.lane].name,
                                        belief.token, seconds_label(belief.begin_ns), seconds_label(belief.end_ns),
                                        belief.ended_by));
      block(range->first, middle - 4, width, 8);
      if (belief.valid_until_ns && *belief.valid_until_ns < belief.end_ns && visible(*belief.valid_until_ns)) {
        // Redlock: past here the client's own validity had run out while it still acted as the holder.
        SvgElement& tick = svg.add(svg_line(x(*belief.valid_until_ns), middle - 7, x(*belief.valid_until_ns), middle + 7,
                                            "#222222", 1.5));
        tick.set("class", "validity-end");
        tick.add("title").text(fmt::format("{}'s Redlock validity ran out at {}", timeline_.lanes[belief.lane].name,
                                           seconds_label(*belief.valid_until_ns)));
      }
      if (belief.ended_by == vocabulary::reason::kCrash && visible(belief.end_ns)) {
        svg.add(svg_text(x(belief.end_ns), middle + 4, "✕", "middle", 12)).set("fill", "#222222").set("class", "crash-mark");
        block_mark(x(belief.end_ns), middle, 7);
      }
    }
  }

  void add_markers(SvgDocument& svg) const {
    for (const FaultMarker& marker : timeline_.markers) {
      if (!visible(marker.time_ns)) continue;
      const double marker_x = x(marker.time_ns);
      const double top = lane_top(marker.lane);
      const std::string_view colour = marker_colour(marker);
      svg.add(svg_line(marker_x, top + 2, marker_x, top + lane_height(marker.lane) - 2, colour, 2))
          .set("stroke-dasharray", colour == kClockColour ? "none" : "3 2")
          .set("class", marker.kind);
      svg.add(SvgElement{"polygon"})
          .set("points", svg_points({{marker_x - 5, top + 2}, {marker_x + 5, top + 2}, {marker_x, top + 9}}))
          .set("fill", colour);
    }
  }

  static std::string_view marker_colour(const FaultMarker& marker) {
    return marker.kind != fault_kind_name(FaultKind::kMemoryPressure) ? kClockColour : std::string_view{"#555555"};
  }

  void add_marker_labels(SvgDocument& svg) {
    for (const FaultMarker& marker : timeline_.markers) {
      if (!visible(marker.time_ns)) continue;
      if (SvgElement* label = draw_label(svg, beside(x(marker.time_ns), marker.lane, 6), marker.label, kFaultFont, false, {})) {
        label->set("fill", marker_colour(marker)).set("font-weight", "bold").set("class", "marker-label");
      }
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

  void add_storage_marks(SvgDocument& svg) {
    const std::optional<std::size_t> storage = first_lane(LaneKind::kStorage);
    OkMarks drawn;
    for (const TimelineWrite& write : timeline_.writes) add_write_marks(svg, write, storage, drawn);
    if (storage) {
      for (const TurnedAwayRead& read : timeline_.turned_away_reads) add_read_marks(svg, read, *storage);
    }
  }

  // Stale, rejected and late writes' labels and turned-away reads' (not
  // ordinary), or ordinary writes' where room is left.
  void add_storage_labels(SvgDocument& svg, bool ordinary) {
    const std::optional<std::size_t> storage = first_lane(LaneKind::kStorage);
    for (const TimelineWrite* write : writes_by_importance()) {
      if ((write->write_class == WriteClass::kOk) == ordinary) add_write_label(svg, *write, storage);
    }
    if (storage && !ordinary) {
      for (const TurnedAwayRead& read : timeline_.turned_away_reads) add_read_label(svg, read, *storage);
    }
  }

  // Effects on their external service's lane: a dot per accepted call, the
  // duplicate red, a call turned away (a repeated idempotency key) crossed
  // out; an arrow from the call when it is not an ordinary one.
  void add_effect_marks(SvgDocument& svg) {
    for (const TimelineEffect& effect : timeline_.effects) {
      if (!visible(effect.landed_ns)) continue;
      const double marker_x = x(effect.landed_ns);
      const double middle = lane_middle(effect.service_lane);
      const bool ordinary = is_ordinary(effect);
      const std::string_view colour = effect.duplicate ? kStaleColour : ordinary ? kOkColour : kRejectedColour;
      if (!ordinary && effect.invoke_ns && visible(*effect.invoke_ns)) {
        const double caller_middle = lane_middle(effect.caller_lane);
        add_flight(svg, effect.caller_lane, caller_middle + 5, *effect.invoke_ns, effect.landed_ns,
                   middle + (caller_middle < middle ? -8 : 8), colour, 1.4)
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
      block_mark(marker_x, middle, 7);
    }
  }

  static bool is_ordinary(const TimelineEffect& effect) { return effect.accepted && !effect.duplicate; }

  void add_effect_labels(SvgDocument& svg, bool ordinary) {
    for (const TimelineEffect& effect : timeline_.effects) {
      if (!visible(effect.landed_ns) || is_ordinary(effect) != ordinary) continue;
      const std::string text = effect.label();
      if (SvgElement* label = draw_label(svg, beside(x(effect.landed_ns), effect.service_lane, 9), text, kLabelFont,
                                         !ordinary, where(effect.service_lane, effect.landed_ns))) {
        label->set("fill", effect.duplicate ? kStaleColour : "#444444").set("class", "effect-label");
        if (effect.duplicate) label->set("font-weight", "bold");
      }
    }
  }

  void add_read_marks(SvgDocument& svg, const TurnedAwayRead& read, std::size_t storage) {
    if (!visible(read.storage_ns)) return;
    const double marker_x = x(read.storage_ns);
    const double middle = lane_middle(storage);
    if (read.invoke_ns && visible(*read.invoke_ns)) {
      const double reader_middle = lane_middle(read.reader_lane);
      add_flight(svg, read.reader_lane, reader_middle + 5, *read.invoke_ns, read.storage_ns,
                 middle + (reader_middle < middle ? -8 : 8), kRejectedColour, 1.4)
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
    block_mark(marker_x, middle, 7);
  }

  static void add_cross(SvgDocument& svg, double centre_x, double centre_y) {
    svg.add(svg_line(centre_x - 6, centre_y - 6, centre_x + 6, centre_y + 6, kRejectedColour, 2)).set("class", "cross-out");
    svg.add(svg_line(centre_x - 6, centre_y + 6, centre_x + 6, centre_y - 6, kRejectedColour, 2)).set("class", "cross-out");
  }

  void add_read_label(SvgDocument& svg, const TurnedAwayRead& read, std::size_t storage) {
    if (!visible(read.storage_ns)) return;
    const std::string text = read.label();
    if (SvgElement* label = draw_label(svg, beside(x(read.storage_ns), storage, 9), text, kLabelFont, true,
                                       where(storage, read.storage_ns))) {
      label->set("fill", kRejectedColour).set("text-decoration", "line-through").set("class", "read-label rejected");
    }
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
                       OkMarks& drawn) {
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
        add_flight(svg, write.writer_lane, writer_middle + 14, *write.invoke_ns, *write.storage_ns, storage_y, colour,
                   important ? 1.6 : 1)
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
    block_mark(marker_x, middle, important ? 7 : 3);
  }

  static std::string write_title(const TimelineWrite& write) {
    std::string title = fmt::format("{} ({})", write.label(), class_name(write.write_class));
    if (write.invoke_ns) title += fmt::format(", sent {}", seconds_label(*write.invoke_ns));
    if (write.storage_ns) title += fmt::format(", at storage {}", seconds_label(*write.storage_ns));
    if (!write.reject_reason.empty()) title += fmt::format(", rejected: {}", write.reject_reason);
    return title;
  }

  // Beside the write's mark; an ordinary write's centred over its dot first,
  // and left out where the writes are dense: the dots say enough.
  void add_write_label(SvgDocument& svg, const TimelineWrite& write, std::optional<std::size_t> storage) {
    if (!write.storage_ns || !storage || !visible(*write.storage_ns)) return;
    const std::string text = write.label();
    const bool ordinary = write.write_class == WriteClass::kOk;
    SvgElement* label = draw_label(svg, beside(x(*write.storage_ns), *storage, 9, ordinary), text, kLabelFont, !ordinary,
                                   where(*storage, *write.storage_ns));
    if (!label) return;
    label->set("class", fmt::format("write-label {}", class_name(write.write_class)));
    switch (write.write_class) {
      case WriteClass::kOk: label->set("fill", "#444444"); break;
      case WriteClass::kLate: label->set("fill", kLateTextColour).set("font-weight", "bold"); break;
      case WriteClass::kStale: label->set("fill", kStaleColour).set("font-weight", "bold"); break;
      case WriteClass::kRejected: label->set("fill", kRejectedColour).set("text-decoration", "line-through"); break;
    }
  }

  // Each incident's name at the event that shows it, in a free row of its lane.
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

  void add_callouts(SvgDocument& svg) {
    for (const CalloutGroup& group : callout_groups()) {
      const TimelineCallout& callout = *group.first;
      std::string text =
          fmt::format("⚠ {} {}", checker::violation_kind_name(callout.kind), short_seconds(callout.time_ns));
      if (group.count > 1) text += fmt::format(" ×{}", group.count);
      SvgElement* label = draw_label(svg, beside(x(callout.time_ns), *callout.lane, 9), text, kCalloutFont, true,
                                     timeline_.lanes[*callout.lane].name);
      if (!label) continue;
      label->set("fill", kStaleColour).set("font-weight", "bold").set("class", "violation");
      label->set("data-kind", checker::violation_kind_name(callout.kind));
      label->add("title").text(callout.detail);
    }
  }

  [[nodiscard]] std::optional<std::size_t> note_lane() const {
    return options_.note ? timeline_.lane_of(options_.note->lane) : std::nullopt;
  }

  void add_note_line(SvgDocument& svg) const {
    if (!options_.note || !visible(options_.note->time_ns)) return;
    const double note_x = x(options_.note->time_ns);
    const std::optional<std::size_t> lane = note_lane();
    const double top = lane ? lane_top(*lane) : kLanesTop;
    const double bottom = lane ? top + lane_height(*lane) : lanes_bottom();
    svg.add(svg_line(note_x, top, note_x, bottom, kNoteColour, 2)).set("stroke-dasharray", "5 3").set("class", "note");
  }

  // The caller's note beside its line: on its lane, else on any lane.
  void add_note_label(SvgDocument& svg) {
    if (!options_.note || !visible(options_.note->time_ns)) return;
    const TimelineNote& note = *options_.note;
    const double note_x = x(note.time_ns);
    std::vector<LabelPlace> places;
    const std::optional<std::size_t> lane = note_lane();
    if (lane) places = beside(note_x, *lane, 6);
    for (std::size_t other = 0; other < timeline_.lanes.size(); ++other) {
      if (other == lane) continue;
      const std::vector<LabelPlace> more = beside(note_x, other, 6);
      places.insert(places.end(), more.begin(), more.end());
    }
    SvgElement* label = draw_label(svg, places, note.text, kNoteFont, true,
                                   lane ? where(*lane, note.time_ns) : short_seconds(note.time_ns));
    if (label) label->set("fill", kNoteColour).set("font-weight", "bold").set("class", "note-text");
  }

  // The legend's entries are spaced by their text's likely width (Chromium
  // measures about 0.52 of the font size a character): the generous estimate
  // that keeps labels apart would push the last entry off the picture.
  static double legend_text_width(std::string_view text) { return static_cast<double>(text.size()) * 11 * 0.56; }

  void add_legend(SvgDocument& svg) const {
    double left = 16;
    const double y = legend_y();
    const auto entry = [&](std::string_view text) {
      svg.add(svg_text(left + 24, y + 4, text, "start", 11));
      left += 24 + legend_text_width(text) + 16;
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

  // Labels that had no room on the lanes, each with where it belongs.
  void add_overflow(SvgDocument& svg) const {
    double y = overflow_y();
    for (const std::string& text : overflow_) {
      svg.add(svg_text(16, y, "▸ " + text, "start", 11)).set("fill", kNoteColour).set("class", "overflow-label");
      y += 16;
    }
  }

  const Timeline& timeline_;
  const TimelineOptions& options_;
  TimelineWindow window_;
  LabelLayout labels_{Box{}};
  std::vector<std::string> overflow_;
  std::size_t overflow_rows_ = 0;
};

}  // namespace

TimelineWindow timeline_window(const Timeline& timeline, const TimelineOptions& options) {
  TimelineWindow window{0, std::max<std::int64_t>(timeline.end_ns, 1)};
  if (options.window) {
    window.begin_ns = std::clamp(options.window->begin_ns, std::int64_t{0}, window.end_ns - 1);
    window.end_ns = std::clamp(options.window->end_ns, window.begin_ns + 1, window.end_ns);
    return window;
  }
  if (!options.around_first_violation_ns || timeline.callouts.empty()) return window;
  std::int64_t first = timeline.callouts.front().time_ns;
  for (const TimelineCallout& callout : timeline.callouts) first = std::min(first, callout.time_ns);
  const std::int64_t margin = std::clamp<std::int64_t>(*options.around_first_violation_ns, 1, INT64_MAX / 4);
  window.begin_ns = std::max<std::int64_t>(0, first - margin);
  window.end_ns = std::min(window.end_ns, first + margin);
  if (window.end_ns <= window.begin_ns) window.end_ns = window.begin_ns + 1;
  return window;
}

std::optional<TimelineWindow> critical_window(const Timeline& timeline) {
  if (timeline.callouts.empty()) return std::nullopt;
  const auto [first, last] = std::ranges::minmax(timeline.callouts, {}, &TimelineCallout::time_ns);
  const std::int64_t pad = std::max<std::int64_t>((last.time_ns - first.time_ns) / 4, 100'000'000);
  const TimelineWindow window{std::max<std::int64_t>(0, first.time_ns - pad), std::min(timeline.end_ns, last.time_ns + pad)};
  if ((window.end_ns - window.begin_ns) * 4 >= timeline.end_ns) return std::nullopt;
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
