#include "checker/double_holder_check.h"

#include <fmt/format.h>

namespace locksim::checker {

void DoubleHolderCheck::observe(const Event& event, std::vector<Violation>& violations) {
  switch (event.kind) {
    case EventKind::kHoldBegin: {
      auto holds = holds_by_lock_.find(event.lock);
      if (holds == holds_by_lock_.end()) {
        holds = holds_by_lock_.emplace(std::string{event.lock}, decltype(holds_by_lock_)::mapped_type{}).first;
      }
      for (const auto& [other_worker, other] : holds->second) {
        if (other_worker == event.process) {
          continue;
        }
        violations.push_back(make_violation(
            ViolationKind::kDoubleHolder, {other.event_index, event.index}, event.time_ns, event.index,
            fmt::format("{} began holding lock {}{} while {} had held it since {}{}", event.process, event.lock,
                        token_suffix(Token::of(event)), other_worker, format_seconds(other.time_ns),
                        token_suffix(other.token))));
      }
      auto& hold = holds->second[std::string{event.process}];
      hold = Hold{event.index, event.time_ns, Token::of(event)};
      break;
    }
    case EventKind::kHoldEnd: {
      const auto holds = holds_by_lock_.find(event.lock);
      if (holds != holds_by_lock_.end()) {
        const auto hold = holds->second.find(event.process);
        if (hold != holds->second.end()) {
          holds->second.erase(hold);
        }
        if (holds->second.empty()) {
          holds_by_lock_.erase(holds);
        }
      }
      break;
    }
    case EventKind::kCrash:
      // A crash ends every hold of the crashed worker (there are few locks).
      for (auto holds = holds_by_lock_.begin(); holds != holds_by_lock_.end();) {
        const auto hold = holds->second.find(event.process);
        if (hold != holds->second.end()) {
          holds->second.erase(hold);
        }
        holds = holds->second.empty() ? holds_by_lock_.erase(holds) : std::next(holds);
      }
      break;
    default:
      break;
  }
}

}  // namespace locksim::checker
