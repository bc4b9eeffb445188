#include "reports/timeline_text.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "text/character_count.h"
#include "text/terminal_escape.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/reason.h"

namespace locksim::reports {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::event_kind_name;
using vocabulary::fault_kind_name;

namespace {

constexpr std::size_t kColumnWidth = 18;
constexpr std::size_t kStorageColumnWidth = 26;  // storage names the write: "● STALE qty=11 t6 +2"
constexpr std::size_t kTimeWidth = 9;

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kRed = "\x1b[1;31m";
constexpr std::string_view kAmber = "\x1b[33m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kPurple = "\x1b[35m";
// The holders' colours, as in the SVG: none of them red or amber.
constexpr std::array<std::string_view, 6> kHolderColours = {"\x1b[34m", "\x1b[32m", "\x1b[36m",
                                                            "\x1b[94m", "\x1b[92m", "\x1b[96m"};

// Characters, not bytes: every glyph used here is one column wide.
std::size_t display_width(std::string_view text) { return text::character_count(text); }

// At most `width` characters of `raw` (user text: escaped for the terminal first).
std::string cut_to(std::string_view raw, std::size_t width) {
  const std::string text = text::terminal_escaped(raw);
  std::string cut;
  std::size_t shown = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const bool starts_character = (static_cast<unsigned char>(text[at]) & 0xC0U) != 0x80U;
    if (starts_character && shown == width) break;
    if (starts_character) ++shown;
    cut += text[at];
  }
  return cut;
}

// One cell of the table: its text with and without colour codes.
class Cell {
 public:
  explicit Cell(bool colour) : colour_{colour} {}

  void add(std::string_view text, std::string_view colour = {}) {
    width_ += display_width(text);
    if (colour_ && !colour.empty()) {
      text_ += fmt::format("{}{}{}", colour, text, kReset);
    } else {
      text_ += text;
    }
  }
  [[nodiscard]] std::size_t width() const { return width_; }
  [[nodiscard]] std::string padded(std::size_t width) const {
    return text_ + std::string(width > width_ ? width - width_ : 0, ' ');
  }

 private:
  bool colour_;
  std::string text_;
  std::size_t width_ = 0;
};

struct Row {
  std::int64_t from_ns = 0;
  std::int64_t to_ns = 0;  // exclusive, except for the last row
  bool last = false;

  [[nodiscard]] bool holds(std::int64_t time_ns) const {
    return from_ns <= time_ns && (time_ns < to_ns || (last && time_ns == to_ns));
  }
  [[nodiscard]] bool overlaps(std::int64_t begin_ns, std::int64_t end_ns) const {
    return begin_ns <= to_ns && end_ns >= from_ns && (begin_ns < to_ns || last);
  }
};

int importance(WriteClass write_class) {
  switch (write_class) {
    case WriteClass::kStale: return 0;
    case WriteClass::kRejected: return 1;
    case WriteClass::kLate: return 2;
    case WriteClass::kOk: return 3;
  }
  return 3;
}

std::string_view write_colour(WriteClass write_class) {
  switch (write_class) {
    case WriteClass::kStale: return kRed;
    case WriteClass::kLate: return kAmber;
    case WriteClass::kRejected: return kDim;
    case WriteClass::kOk: return {};
  }
  return {};
}

std::string write_text(const TimelineWrite& write) {
  switch (write.write_class) {
    case WriteClass::kStale: return "STALE " + write.label();
    case WriteClass::kLate: return "late " + write.label();
    case WriteClass::kRejected: return "✗ " + write.label();
    case WriteClass::kOk: return write.label();
  }
  return write.label();
}

std::size_t column_width(const Lane& lane) {
  return lane.kind == LaneKind::kStorage ? kStorageColumnWidth : kColumnWidth;
}

class TextPainter {
 public:
  TextPainter(const Timeline& timeline, const TimelineTextOptions& options) : timeline_{timeline}, options_{options} {}

  std::string paint() const {
    const std::int64_t end_ns = std::max<std::int64_t>(timeline_.end_ns, 1);
    const auto rows = static_cast<std::int64_t>(std::max(options_.rows, 1));
    const std::int64_t step = (end_ns + rows - 1) / rows;
    std::string text = header();
    for (std::int64_t row = 0; row < rows; ++row) {
      const Row span{row * step, std::min(end_ns, (row + 1) * step), row == rows - 1};
      text += line(span);
      if (span.to_ns >= end_ns) break;
    }
    return text + legend();
  }

 private:
  [[nodiscard]] std::string header() const {
    std::string names = std::string(kTimeWidth, ' ');
    for (const Lane& lane : timeline_.lanes) {
      const std::string name = cut_to(lane.name, column_width(lane) - 1);
      names += name + std::string(column_width(lane) - display_width(name), ' ');
    }
    names += "violations\n";
    std::string rule;
    std::size_t width = kTimeWidth + 10;
    for (const Lane& lane : timeline_.lanes) width += column_width(lane);
    for (std::size_t at = 0; at < width; ++at) rule += "─";
    return names + rule + "\n";
  }

  [[nodiscard]] std::string line(const Row& row) const {
    std::string text = fmt::format("{:>{}} ", fmt::format("{:.2f}s", static_cast<double>(row.from_ns) / 1e9), kTimeWidth - 1);
    for (std::size_t lane = 0; lane < timeline_.lanes.size(); ++lane) {
      Cell cell{options_.colour};
      switch (timeline_.lanes[lane].kind) {
        case LaneKind::kWorker: worker_cell(cell, lane, row); break;
        case LaneKind::kService: service_cell(cell, lane, row); break;
        case LaneKind::kStorage: storage_cell(cell, row); break;
        case LaneKind::kExternal: break;
      }
      text += cell.padded(column_width(timeline_.lanes[lane]));
    }
    Cell notes{options_.colour};
    for (const TimelineCallout& callout : timeline_.callouts) {
      if (!row.holds(callout.time_ns)) continue;
      notes.add(fmt::format("{}{}", notes.width() == 0 ? "!! " : ", ", checker::violation_kind_name(callout.kind)), kRed);
    }
    text += notes.padded(0);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  }

  [[nodiscard]] std::string_view holder_colour(std::string_view worker) const {
    std::size_t workers = 0;
    for (const Lane& lane : timeline_.lanes) {
      if (lane.kind != LaneKind::kWorker) continue;
      if (lane.name == worker) return kHolderColours[workers % kHolderColours.size()];
      ++workers;
    }
    return {};
  }

  // "█┃ text": the promise, the belief, then what happened on the worker in this row.
  void worker_cell(Cell& cell, std::size_t lane, const Row& row) const {
    const std::string& name = timeline_.lanes[lane].name;
    const std::string_view colour = holder_colour(name);
    const bool promised = std::any_of(timeline_.leases.begin(), timeline_.leases.end(), [&](const LeaseBar& lease) {
      return lease.owner == name && row.overlaps(lease.begin_ns, lease.end_ns);
    });
    const bool believes = std::any_of(timeline_.beliefs.begin(), timeline_.beliefs.end(), [&](const BeliefBar& belief) {
      return belief.lane == lane && row.overlaps(belief.begin_ns, belief.end_ns);
    });
    cell.add(promised ? "█" : " ", colour);
    cell.add(believes ? "┃" : " ", colour);
    cell.add(" ");
    const std::size_t room = kColumnWidth - 4;
    const TimelineWrite* write = most_important_write([&](const TimelineWrite& candidate) {
      return candidate.writer_lane == lane && candidate.invoke_ns && row.holds(*candidate.invoke_ns);
    });
    if (write != nullptr && write->write_class != WriteClass::kOk) {
      cell.add(cut_to("→" + write->label(), room), write_colour(write->write_class));
      return;
    }
    for (const BeliefBar& belief : timeline_.beliefs) {
      if (belief.lane == lane && belief.ended_by == vocabulary::reason::kCrash && row.holds(belief.end_ns)) {
        cell.add("✕ crash");
        return;
      }
    }
    if (const std::string marker = marker_text(lane, row); !marker.empty()) {
      cell.add(cut_to(marker, room), kPurple);
      return;
    }
    for (const FaultSpan& span : timeline_.spans) {
      if (span.lane != lane || !row.overlaps(span.begin_ns, span.end_ns)) continue;
      const std::string_view shade = span.kind == fault_kind_name(FaultKind::kPause) ? "▒" : "~";
      cell.add(row.holds(span.begin_ns) ? cut_to(fmt::format("{} {}", shade, span.label), room)
                                        : fmt::format("{0}{0}{0}{0}{0}{0}", shade),
               kDim);
      return;
    }
    if (write != nullptr) cell.add(cut_to("→" + write->label(), room));
  }

  // "██ t6 worker-1" where a lease begins, "██ expired" where the service let it go.
  void service_cell(Cell& cell, std::size_t lane, const Row& row) const {
    std::vector<const LeaseBar*> promised;
    for (const LeaseBar& lease : timeline_.leases) {
      if (lease.lane == lane && row.overlaps(lease.begin_ns, lease.end_ns)) promised.push_back(&lease);
    }
    for (std::size_t shown = 0; shown < 2; ++shown) {
      cell.add(shown < promised.size() ? "█" : " ", shown < promised.size() ? holder_colour(promised[shown]->owner) : "");
    }
    cell.add(" ");
    const std::size_t room = kColumnWidth - 4;
    if (const std::string marker = marker_text(lane, row); !marker.empty()) {
      cell.add(cut_to(marker, room), kPurple);
      return;
    }
    for (const LeaseBar* lease : promised) {
      if ((lease->ended_by == event_kind_name(EventKind::kLeaseExpire) ||
           lease->ended_by == event_kind_name(EventKind::kLeaseLost)) &&
          row.holds(lease->end_ns)) {
        cell.add(lease->ended_by == event_kind_name(EventKind::kLeaseExpire) ? "expired" : "lost");
        return;
      }
    }
    for (const LeaseBar* lease : promised) {
      if (row.holds(lease->begin_ns)) {
        cell.add(cut_to(fmt::format("t{} {}", lease->token, lease->owner), room));
        return;
      }
    }
  }

  // The most telling write or turned-away read that reached storage in this row, and how many more did.
  void storage_cell(Cell& cell, const Row& row) const {
    std::size_t landed = 0;
    const TimelineWrite* write = most_important_write([&](const TimelineWrite& candidate) {
      const bool here = candidate.storage_ns && row.holds(*candidate.storage_ns);
      landed += here ? 1 : 0;
      return here;
    });
    const TurnedAwayRead* read = nullptr;
    for (const TurnedAwayRead& candidate : timeline_.turned_away_reads) {
      if (row.holds(candidate.storage_ns)) {
        read = read == nullptr ? &candidate : read;
        ++landed;
      }
    }
    const std::size_t room = kStorageColumnWidth - 6;  // after "● ", before " +N"
    if (write != nullptr && (write->write_class != WriteClass::kOk || read == nullptr)) {
      cell.add("●", write_colour(write->write_class));
      cell.add(" ");
      cell.add(cut_to(write_text(*write), room), write_colour(write->write_class));
    } else if (read != nullptr) {
      cell.add(cut_to("✗ " + read->label(), room + 2), kDim);
    }
    if (landed > 1) cell.add(fmt::format(" +{}", landed - 1));
  }

  template <class Predicate>
  const TimelineWrite* most_important_write(Predicate&& matches) const {
    const TimelineWrite* best = nullptr;
    for (const TimelineWrite& write : timeline_.writes) {
      if (!matches(write)) continue;
      if (best == nullptr || importance(write.write_class) < importance(best->write_class)) best = &write;
    }
    return best;
  }

  [[nodiscard]] std::string marker_text(std::size_t lane, const Row& row) const {
    for (const FaultMarker& marker : timeline_.markers) {
      if (marker.lane == lane && row.holds(marker.time_ns)) return marker.label;
    }
    return {};
  }

  [[nodiscard]] std::string legend() const {
    Cell legend{options_.colour};
    legend.add("\n█ lease the service promises  ┃ the worker's belief it holds  ▒ pause  → write sent  ● write at storage: ");
    legend.add("STALE", kRed);
    legend.add(", ");
    legend.add("late", kAmber);
    legend.add(", ");
    legend.add("✗ turned away", kDim);
    legend.add(fmt::format("; one row = {:.2f}s of true time\n",
                           static_cast<double>((std::max<std::int64_t>(timeline_.end_ns, 1) + std::max(options_.rows, 1) - 1) /
                                               std::max(options_.rows, 1)) /
                               1e9));
    return legend.padded(0);
  }

  const Timeline& timeline_;
  const TimelineTextOptions& options_;
};

}  // namespace

std::string timeline_text(const Timeline& timeline, const TimelineTextOptions& options) {
  return TextPainter{timeline, options}.paint();
}

}  // namespace locksim::reports
