#include "checker/lost_update_check.h"
#include "vocabulary/setup_name.h"

#include <fmt/format.h>

namespace locksim::checker {

void LostUpdateCheck::observe(const Event& event) {
  switch (event.kind) {
    case EventKind::kRunBegin:
      declared_workload_ = std::string{event.workload_kind};
      break;
    case EventKind::kWriteAccept: {
      auto found = writes_by_key_.find(event.key);
      if (found == writes_by_key_.end()) {
        found = writes_by_key_.emplace(std::string{event.key}, KeyWrites{}).first;
      }
      ++found->second.accepted;
      found->second.all_integer = found->second.all_integer && event.value_integer.has_value();
      break;
    }
    case EventKind::kRunEnd:
      if (event.has_final && !judged_) {
        judge(event);
      }
      break;
    default:
      break;
  }
}

void LostUpdateCheck::judge(const Event& run_end) {
  judged_ = true;
  if (!declared_workload_.empty() && declared_workload_ != vocabulary::workload_kind::kCounter) {
    return;
  }
  const bool declared_counter = declared_workload_ == vocabulary::workload_kind::kCounter;
  std::int64_t lost_total = 0;
  std::string lost_keys;
  if (declared_counter) {
    // A declared counter that was never written still has a final value to
    // compare with its zero accepted writes.
    for (const FinalValue& entry : run_end.final_values) {
      if (entry.integer && writes_by_key_.find(entry.key) == writes_by_key_.end()) {
        ++keys_judged_;
      }
    }
  }
  for (const auto& [key, writes] : writes_by_key_) {
    if (!declared_counter && !writes.all_integer) {
      continue;
    }
    std::optional<std::int64_t> final_value;
    for (const FinalValue& entry : run_end.final_values) {
      if (entry.key == key) {
        final_value = entry.integer;
      }
    }
    if (!final_value) {
      continue;
    }
    ++keys_judged_;
    const std::int64_t lost = writes.accepted - *final_value;
    if (lost > 0) {
      lost_total += lost;
      lost_keys += fmt::format("{}storage accepted {} writes to {} but its final value is {}",
                               lost_keys.empty() ? "" : "; ", writes.accepted, key, *final_value);
    }
  }
  if (lost_total > 0) {
    Violation violation = make_violation(ViolationKind::kLostUpdate, {run_end.index}, run_end.time_ns, run_end.index,
                                         fmt::format("{} updates lost: {}", lost_total, lost_keys));
    violation.count = lost_total;
    violation_ = std::move(violation);
  }
}

std::optional<std::string> LostUpdateCheck::why_skipped() const {
  if (!judged_) {
    return "no run.end with `final` values (the history may be cut off)";
  }
  if (!declared_workload_.empty() && declared_workload_ != vocabulary::workload_kind::kCounter) {
    return fmt::format("run.begin declares the {} workload, not counter", declared_workload_);
  }
  if (keys_judged_ == 0) {
    return "no counter key: no key has accepted writes and an integer final value"
           " (integer-valued writes when run.begin declares no workload)";
  }
  return std::nullopt;
}

}  // namespace locksim::checker
