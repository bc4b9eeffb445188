#include "checker/duplicate_effect_check.h"
#include "vocabulary/setup_name.h"

#include <fmt/format.h>

namespace locksim::checker {

void DuplicateEffectCheck::observe(const Event& event) {
  if (event.kind == EventKind::kRunBegin) {
    declared_workload_ = std::string{event.workload_kind};
    return;
  }
  const bool external = event.kind == EventKind::kEffectAccept;
  if ((event.kind != EventKind::kWriteAccept && !external) || event.job.empty()) {
    return;
  }
  saw_job_ = true;
  const auto first = first_accept_by_job_.find(event.job);
  if (first == first_accept_by_job_.end()) {
    first_accept_by_job_.emplace(std::string{event.job},
                                 FirstAccept{event.index, event.time_ns, std::string{event.writer}, external, std::nullopt});
    return;
  }
  const char* what = external ? "performed another effect" : "accepted another write";
  // Name the first one's kind only when it differs from this one's.
  const char* first_what = first->second.external == external ? ""
                           : first->second.external           ? " an external effect"
                                                              : " a storage write";
  Violation& violation = violations_.emplace_back(make_violation(
      ViolationKind::kDuplicateEffect, {first->second.event_index, event.index}, event.time_ns, event.index,
      fmt::format("{} {} for job {} from {} (the first was{} from {} at {})", event.process, what, event.job,
                  event.writer, first_what, first->second.writer, format_seconds(first->second.time_ns))));
  violation.incident = first->second.incident.value_or(violation.incident);
  first->second.incident = violation.incident;
}

std::optional<std::string> DuplicateEffectCheck::why_skipped() const {
  if (!declared_workload_.empty() && declared_workload_ != vocabulary::workload_kind::kBilling) {
    return fmt::format("run.begin declares the {} workload, not billing", declared_workload_);
  }
  if (declared_workload_.empty() && !saw_job_) {
    return "no accepted write or effect carries a `job` (not a billing workload)";
  }
  return std::nullopt;
}

}  // namespace locksim::checker
