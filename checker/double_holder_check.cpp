#include "checker/double_holder_check.h"

#include <fmt/format.h>

namespace locksim::checker {
namespace {

template <class BusyLock>
void end_hold(BusyLock& busy, std::string_view worker) {
  const auto hold = busy.holds.find(worker);
  if (hold != busy.holds.end()) {
    busy.holds.erase(hold);
  }
}

}  // namespace

void DoubleHolderCheck::observe(const Event& event, std::vector<Violation>& violations) {
  switch (event.kind) {
    case EventKind::kHoldBegin: {
      auto busy = busy_locks_.find(event.lock);
      if (busy == busy_locks_.end()) {
        busy = busy_locks_.emplace(std::string{event.lock}, BusyLock{}).first;
      }
      for (const auto& [other_worker, other] : busy->second.holds) {
        if (other_worker == event.process) {
          continue;
        }
        Violation& violation = violations.emplace_back(make_violation(
            ViolationKind::kDoubleHolder, {other.event_index, event.index}, event.time_ns, event.index,
            fmt::format("{} began holding lock {}{} while {} had held it since {}{}", event.process, event.lock,
                        token_suffix(Token::of(event)), other_worker, format_seconds(other.time_ns),
                        token_suffix(other.token))));
        violation.incident = busy->second.incident.value_or(event.index);
        busy->second.incident = violation.incident;
      }
      auto& hold = busy->second.holds[std::string{event.process}];
      hold = Hold{event.index, event.time_ns, Token::of(event)};
      break;
    }
    case EventKind::kHoldEnd: {
      const auto busy = busy_locks_.find(event.lock);
      if (busy != busy_locks_.end()) {
        end_hold(busy->second, event.process);
        if (busy->second.holds.empty()) {
          busy->second.incident.reset();  // the busy period is over
        }
      }
      break;
    }
    case EventKind::kCrash:
      // A crash ends every hold of the crashed worker (there are few locks).
      for (auto& [lock, busy] : busy_locks_) {
        end_hold(busy, event.process);
        if (busy.holds.empty()) {
          busy.incident.reset();
        }
      }
      break;
    default:
      break;
  }
}

}  // namespace locksim::checker
