#include "reports/trace.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "reports/readable_duration.h"
#include "scenario/fencing_modes.h"
#include "text/terminal_escape.h"

namespace locksim::reports {
namespace {

constexpr std::string_view kDurationSuffix = "_ns";
// docs/history-format.md: a time a node read from its own clock, in nanoseconds.
constexpr std::string_view kLocalTimeField = "local_t";
constexpr std::string_view kMarkPrefix = "   <<< ";
constexpr std::string_view kColumnGap = "  ";

// Violation kinds by the history index of the event that shows them (the
// last of its evidence).
std::map<std::int64_t, std::vector<std::string_view>> violation_marks(const std::vector<checker::Violation>& violations) {
  std::map<std::int64_t, std::vector<std::string_view>> marks;
  for (const checker::Violation& violation : violations) {
    if (!violation.events.empty()) marks[violation.events.back()].push_back(checker::violation_kind_name(violation.kind));
  }
  return marks;
}

struct Interval {
  std::int64_t from_ns;
  std::int64_t to_ns;
};

// The true-time windows of `around`, sorted and merged where they overlap.
std::vector<Interval> windows(const TraceWindow& around, const std::vector<checker::Violation>& violations) {
  std::vector<Interval> intervals;
  for (const checker::Violation& violation : violations) {
    if (violation.kind != around.kind) continue;
    const std::int64_t within_ns = std::min<std::int64_t>(around.within_ns, INT64_MAX / 4);
    intervals.push_back({violation.time_ns - within_ns, violation.time_ns + within_ns});
  }
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) { return a.from_ns < b.from_ns; });
  std::vector<Interval> merged;
  for (const Interval& interval : intervals) {
    if (!merged.empty() && interval.from_ns <= merged.back().to_ns) {
      merged.back().to_ns = std::max(merged.back().to_ns, interval.to_ns);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

bool within(const std::vector<Interval>& intervals, std::int64_t time_ns) {
  return std::any_of(intervals.begin(), intervals.end(),
                     [time_ns](const Interval& interval) { return interval.from_ns <= time_ns && time_ns <= interval.to_ns; });
}

// What happens to each entry under the view, decided once.
enum class Fate : std::uint8_t { kShown, kOutsideWindow, kOtherProc, kHidden };

std::vector<Fate> fates(const std::vector<TraceEntry>& entries, const std::vector<checker::Violation>& violations,
                        const std::map<std::int64_t, std::vector<std::string_view>>& marks, const TraceView& view) {
  const std::vector<Interval> intervals = view.around ? windows(*view.around, violations) : std::vector<Interval>{};
  std::vector<Fate> result;
  result.reserve(entries.size());
  for (const TraceEntry& entry : entries) {
    const bool marked = marks.contains(entry.index);
    if (view.around && !within(intervals, entry.time_ns)) {
      result.push_back(Fate::kOutsideWindow);
    } else if (!marked && !view.procs.empty() && !view.procs.contains(entry.proc)) {
      result.push_back(Fate::kOtherProc);
    } else if (!marked && entry.kind &&
               std::find(view.hidden.begin(), view.hidden.end(), *entry.kind) != view.hidden.end()) {
      result.push_back(Fate::kHidden);
    } else {
      result.push_back(Fate::kShown);
    }
  }
  return result;
}

// Milliseconds unless two shown lines at different true times would read
// the same; then the coarsest precision that tells them apart.
SecondsPrecision time_precision(const std::vector<const TraceEntry*>& shown, NumberStyle numbers) {
  if (numbers == NumberStyle::kRaw) return SecondsPrecision::kNanoseconds;
  for (const SecondsPrecision precision : {SecondsPrecision::kMilliseconds, SecondsPrecision::kMicroseconds}) {
    bool distinct = true;
    for (std::size_t line = 1; line < shown.size() && distinct; ++line) {
      distinct = shown[line - 1]->time_ns == shown[line]->time_ns ||
                 seconds_text(shown[line - 1]->time_ns, precision) != seconds_text(shown[line]->time_ns, precision);
    }
    if (distinct) return precision;
  }
  return SecondsPrecision::kNanoseconds;
}

// "lock=l token=3 lease=10s local_t=8.049782s": durations readable, clock
// readings in the time columns' precision, unless raw.
std::string fields_text(const TraceEntry& entry, SecondsPrecision precision, NumberStyle numbers) {
  std::vector<std::string> fields;
  for (const checker::HistoryField& field : entry.fields) {
    const std::string_view key = field.key;
    if (numbers == NumberStyle::kRaw || !field.integer) {
      fields.push_back(fmt::format("{}={}", text::terminal_escaped(key), text::terminal_escaped(field.text)));
    } else if (key.size() > kDurationSuffix.size() && key.ends_with(kDurationSuffix)) {
      fields.push_back(
          fmt::format("{}={}", key.substr(0, key.size() - kDurationSuffix.size()), readable_duration(*field.integer)));
    } else if (key == kLocalTimeField) {
      fields.push_back(fmt::format("{}={}", key, seconds_text(*field.integer, precision)));
    } else {
      fields.push_back(fmt::format("{}={}", key, field.text));
    }
  }
  return fmt::format("{}", fmt::join(fields, " "));
}

// The printed columns of one line, before padding.
struct Columns {
  std::string index;
  std::string true_time;
  std::string local_time;
  std::string proc;
  std::string event;
  std::string fields;
  std::string mark;  // "   <<< stale_write", or empty
};

Columns columns(const TraceEntry& entry, SecondsPrecision precision, NumberStyle numbers,
                const std::map<std::int64_t, std::vector<std::string_view>>& marks) {
  Columns line{.index = std::to_string(entry.index),
               .true_time = seconds_text(entry.time_ns, precision),
               .local_time = entry.local_time_ns ? seconds_text(*entry.local_time_ns, precision) : std::string{},
               .proc = text::terminal_escaped(entry.proc),
               .event = text::terminal_escaped(entry.event),
               .fields = fields_text(entry, precision, numbers),
               .mark = {}};
  if (const auto mark = marks.find(entry.index); mark != marks.end()) {
    line.mark = fmt::format("{}{}", kMarkPrefix, fmt::join(mark->second, ", "));
  }
  return line;
}

struct Widths {
  std::size_t index = 1;
  std::size_t true_time = 4;   // "true"
  std::size_t local_time = 5;  // "local"
  std::size_t proc = 4;        // "proc"
  std::size_t event = 5;       // "event"
};

Widths widths(const std::vector<Columns>& lines) {
  Widths result;
  for (const Columns& line : lines) {
    result.index = std::max(result.index, line.index.size());
    result.true_time = std::max(result.true_time, line.true_time.size());
    result.local_time = std::max(result.local_time, line.local_time.size());
    result.proc = std::max(result.proc, line.proc.size());
    result.event = std::max(result.event, line.event.size());
  }
  return result;
}

std::string row(const Columns& line, const Widths& width) {
  std::string text = fmt::format("{:>{}}{}{:>{}}{}{:>{}}{}{:<{}}{}{:<{}}{}{}{}", line.index, width.index, kColumnGap,
                                 line.true_time, width.true_time, kColumnGap, line.local_time, width.local_time,
                                 kColumnGap, line.proc, width.proc, kColumnGap, line.event, width.event, kColumnGap,
                                 line.fields, line.mark);
  text.erase(text.find_last_not_of(' ') + 1);
  return text + "\n";
}

std::string left_out_line(std::int64_t count) {
  return fmt::format("…  {} line{} left out\n", count, count == 1 ? "" : "s");
}

std::string hidden_line(const std::vector<TraceEntry>& entries, const std::vector<Fate>& fate, const TraceView& view) {
  std::vector<std::string> counts;
  for (const checker::EventKind kind : view.hidden) {
    std::int64_t count = 0;
    for (std::size_t entry = 0; entry < entries.size(); ++entry) {
      if (fate[entry] == Fate::kHidden && entries[entry].kind == kind) ++count;
    }
    counts.push_back(fmt::format("{} {}", checker::event_kind_name(kind), count));
  }
  return fmt::format("hidden lines: {}\n", fmt::join(counts, ", "));
}

}  // namespace

TraceEntry trace_entry(std::string_view history_line) {
  return TraceEntry{checker::read_history_line(history_line), std::nullopt};
}

std::string trace_text(const std::vector<TraceEntry>& entries, const std::vector<checker::Violation>& violations,
                       const TraceView& view) {
  if (view.around && std::none_of(violations.begin(), violations.end(), [&](const checker::Violation& violation) {
        return violation.kind == view.around->kind;
      })) {
    return fmt::format("no {} in this run: nothing to show around\n", checker::violation_kind_name(view.around->kind));
  }
  const std::map<std::int64_t, std::vector<std::string_view>> marks = violation_marks(violations);
  const std::vector<Fate> fate = fates(entries, violations, marks, view);
  std::vector<const TraceEntry*> shown;
  for (std::size_t entry = 0; entry < entries.size(); ++entry) {
    if (fate[entry] == Fate::kShown) shown.push_back(&entries[entry]);
  }
  const SecondsPrecision precision = time_precision(shown, view.numbers);
  std::vector<Columns> lines;
  lines.reserve(shown.size() + 1);
  lines.push_back({.index = "i", .true_time = "true", .local_time = "local", .proc = "proc", .event = "event", .fields = "fields", .mark = {}});
  for (const TraceEntry* entry : shown) lines.push_back(columns(*entry, precision, view.numbers, marks));
  const Widths width = widths(lines);

  std::string text = row(lines.front(), width);
  std::size_t next_line = 1;
  std::int64_t left_out = 0;  // lines outside every window since the last line shown
  for (std::size_t entry = 0; entry < entries.size(); ++entry) {
    if (fate[entry] == Fate::kOutsideWindow) ++left_out;
    if (fate[entry] != Fate::kShown) continue;
    if (left_out > 0) text += left_out_line(left_out);
    left_out = 0;
    text += row(lines[next_line++], width);
  }
  if (left_out > 0) text += left_out_line(left_out);
  if (!view.hidden.empty()) text += hidden_line(entries, fate, view);
  return text;
}

namespace {

// The trace lines of the replay page, with the window they show.
std::string trace_body(const std::vector<TraceEntry>& entries, const runner::SeedRun& run, const TraceView& view) {
  std::string text;
  if (view.around) {
    text += fmt::format("lines within {} of true time of each {}\n", readable_duration(view.around->within_ns),
                        checker::violation_kind_name(view.around->kind));
  }
  return text + trace_text(entries, run.verdict.violations, view);
}

}  // namespace

std::string replay_text(const scenario::Scenario& scenario, const runner::SeedRun& run,
                        const std::vector<TraceEntry>& entries, const TraceView& view,
                        const std::optional<std::string>& swimlanes) {
  // Names, keys and descriptions are the user's: each escaped for the
  // terminal on its own, so that a line break in one cannot start a line. The
  // swimlanes escape their own cells (they carry colour codes).
  std::string text = fmt::format("{} — seed {}, fencing {}\n{}\n\n", text::terminal_escaped(scenario.name), run.seed,
                                 scenario::fencing_switch_name(run.fencing), text::terminal_escaped(scenario.description));
  if (swimlanes) {
    text += *swimlanes;
  } else {
    text += text::terminal_escaped_lines(trace_body(entries, run, view));
  }
  std::string end = fmt::format("\n{} events, {} history lines, history hash {:016x}\n{}\n", run.events,
                                // The text's hash when the trace's run wrote text (replay's always does).
                                run.history_events, run.text_hash.value_or(run.history_hash), run.why_stopped);
  for (const std::string& waiting : run.blocked) end += fmt::format("  still waiting: {}\n", waiting);
  if (run.verdict.violations.empty()) end += "no violation\n";
  for (const checker::Violation& violation : run.verdict.violations) {
    end += text::terminal_escaped(violation.detail) + "\n";
  }
  return text + text::terminal_escaped_lines(end);
}

}  // namespace locksim::reports
