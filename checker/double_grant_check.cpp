#include "checker/double_grant_check.h"

#include <fmt/format.h>

namespace locksim::checker {

void DoubleGrantCheck::observe(const QuorumChange& change, int quorum, const NameIds& names,
                               std::vector<Violation>& violations) {
  if (change.direction == QuorumChange::Direction::kRegained) {
    return;  // the owner still holds: overlapping its own older lease is no double grant
  }
  BusyLock& busy = busy_locks_[change.lock];
  auto& holders = busy.holders;
  const std::string_view owner = names.name(change.owner);
  if (change.direction == QuorumChange::Direction::kLost) {
    holders.erase(owner);
    if (holders.empty()) {
      busy.incident.reset();  // the busy period is over; the entry stays for the next
    }
    return;
  }
  for (const auto& [other_owner, other] : holders) {
    if (other_owner == owner) {
      continue;
    }
    std::string what;
    if (quorum <= 1) {
      what = fmt::format("{} granted lock {} to {}{} while {}'s lease{}, granted at {} by {}, was still promised",
                         names.name(change.instance), names.name(change.lock), owner, token_suffix(change.token),
                         other_owner, token_suffix(other.token), format_seconds(other.time_ns),
                         names.name(other.instance));
    } else {
      what = fmt::format(
          "{} reached a quorum ({} instances) for lock {} with {}'s promise while {} still had one (since {})",
          owner, quorum, names.name(change.lock), names.name(change.instance), other_owner,
          format_seconds(other.time_ns));
    }
    Violation& violation = violations.emplace_back(make_violation(
        ViolationKind::kDoubleGrant, {other.event_index, change.event_index}, change.time_ns, change.event_index, what));
    violation.incident = busy.incident.value_or(change.event_index);
    busy.incident = violation.incident;
  }
  holders[owner] = Holding{change.event_index, change.time_ns, change.instance, change.token};
}

}  // namespace locksim::checker
