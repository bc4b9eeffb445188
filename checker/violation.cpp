#include "checker/violation.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace locksim::checker {

std::string_view violation_kind_name(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kDoubleGrant: return "double_grant";
    case ViolationKind::kDoubleHolder: return "double_holder";
    case ViolationKind::kStaleWrite: return "stale_write";
    case ViolationKind::kForeignRelease: return "foreign_release";
    case ViolationKind::kStuckLock: return "stuck_lock";
    case ViolationKind::kLostUpdate: return "lost_update";
    case ViolationKind::kDuplicateEffect: return "duplicate_effect";
    case ViolationKind::kTokenOrder: return "token_order";
  }
  return "?";
}

Violation make_violation(ViolationKind kind, std::vector<std::int64_t> events, std::int64_t time_ns,
                         std::int64_t detected_at, std::string_view what) {
  std::erase_if(events, [](std::int64_t index) { return index < 0; });
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  Violation violation;
  violation.kind = kind;
  violation.events = std::move(events);
  violation.time_ns = time_ns;
  violation.detected_at = detected_at;
  violation.incident = detected_at;
  violation.detail = fmt::format("{} at {}: {}", violation_kind_name(kind), format_seconds(time_ns), what);
  return violation;
}

std::string format_seconds(std::int64_t time_ns) {
  const char* sign = time_ns < 0 ? "-" : "";
  // Magnitude as unsigned, so that INT64_MIN does not overflow.
  const std::uint64_t magnitude =
      time_ns < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(time_ns) : static_cast<std::uint64_t>(time_ns);
  const std::uint64_t seconds = magnitude / 1'000'000'000;
  const std::uint64_t nanoseconds = magnitude % 1'000'000'000;
  if (nanoseconds % 1'000'000 == 0) {
    return fmt::format("{}{}.{:03}s", sign, seconds, nanoseconds / 1'000'000);
  }
  return fmt::format("{}{}.{:09}s", sign, seconds, nanoseconds);
}

}  // namespace locksim::checker
