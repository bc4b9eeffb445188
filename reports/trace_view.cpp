#include "reports/trace_view.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/duration_text.h"

namespace locksim::reports {
namespace {

// "a,b" and "c" -> a, b, c. An empty name stays, to be reported.
std::vector<std::string> split_names(const std::vector<std::string>& lists) {
  std::vector<std::string> names;
  for (const std::string& list : lists) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = list.find(',', start);
      names.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return names;
}

// Every `ev` of the contract, in checker::EventKind's order (the one list).
std::vector<std::string_view> event_names() {
  std::vector<std::string_view> names;
  for (auto value = static_cast<int>(checker::EventKind::kRunBegin); value <= static_cast<int>(checker::EventKind::kFaultEnd);
       ++value) {
    names.push_back(checker::event_kind_name(static_cast<checker::EventKind>(value)));
  }
  return names;
}

std::vector<std::string_view> violation_names() {
  std::vector<std::string_view> names;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) names.push_back(checker::violation_kind_name(kind));
  return names;
}

std::string parse_procs(const std::vector<std::string>& lists, const std::vector<std::string>& proc_names,
                        TraceView& view) {
  for (const std::string& name : split_names(lists)) {
    if (std::find(proc_names.begin(), proc_names.end(), name) == proc_names.end()) {
      return fmt::format("--procs: unknown proc \"{}\"; this scenario's procs are {}", name, fmt::join(proc_names, ", "));
    }
    view.procs.insert(name);
  }
  return {};
}

std::string parse_hide(const std::vector<std::string>& lists, TraceView& view) {
  for (const std::string& name : split_names(lists)) {
    const std::optional<checker::EventKind> kind = checker::event_kind_from_name(name);
    if (!kind) return fmt::format("--hide: unknown event \"{}\"; the events are {}", name, fmt::join(event_names(), ", "));
    if (std::find(view.hidden.begin(), view.hidden.end(), *kind) == view.hidden.end()) view.hidden.push_back(*kind);
  }
  return {};
}

std::optional<checker::ViolationKind> violation_kind_from_name(std::string_view name) {
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (checker::violation_kind_name(kind) == name) return kind;
  }
  return std::nullopt;
}

// "2", "0.5" (seconds) or "500ms" (a duration), not negative.
std::optional<std::int64_t> window_ns(std::string_view text) {
  const bool plain_number = !text.empty() && std::isdigit(static_cast<unsigned char>(text.back())) != 0;
  const sim::DurationParse parsed = sim::parse_duration(plain_number ? std::string{text} + "s" : std::string{text});
  if (!parsed.duration || parsed.duration->count_ns() < 0) return std::nullopt;
  return parsed.duration->count_ns();
}

std::string parse_around(const std::string& text, TraceView& view) {
  if (text.empty()) return {};
  const std::size_t colon = text.find(':');
  const std::string kind_name = text.substr(0, colon);
  const std::optional<checker::ViolationKind> kind = violation_kind_from_name(kind_name);
  if (!kind) {
    return fmt::format("--around: unknown violation \"{}\"; the violations are {}", kind_name,
                       fmt::join(violation_names(), ", "));
  }
  TraceWindow window{.kind = *kind};
  if (colon != std::string::npos) {
    const std::string seconds = text.substr(colon + 1);
    const std::optional<std::int64_t> within_ns = window_ns(seconds);
    if (!within_ns) {
      return fmt::format("--around: \"{}\" after \"{}:\" is not a time; expected seconds like 2 or 0.5, or a duration like 500ms",
                         seconds, kind_name);
    }
    window.within_ns = *within_ns;
  }
  view.around = window;
  return {};
}

}  // namespace

std::vector<std::string> trace_proc_names(const std::vector<std::string>& node_names) {
  std::vector<std::string> names = node_names;
  names.emplace_back("nemesis");
  names.emplace_back("run");
  return names;
}

TraceViewParse parse_trace_view(const TraceFlags& flags, const std::vector<std::string>& proc_names) {
  TraceView view;
  view.numbers = flags.raw ? NumberStyle::kRaw : NumberStyle::kReadable;
  for (std::string error : {parse_procs(flags.procs, proc_names, view), parse_hide(flags.hide, view),
                            parse_around(flags.around, view)}) {
    if (!error.empty()) return {.view = std::nullopt, .error = std::move(error)};
  }
  return {.view = std::move(view), .error = {}};
}

}  // namespace locksim::reports
