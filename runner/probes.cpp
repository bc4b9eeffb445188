#include "runner/probes.h"

#include "runner/record_fields.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::runner {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

void ProbeCounter::observe(std::string_view proc, EventKind event, std::span<const sim::Field> fields) {
  if (event == EventKind::kFaultBegin || event == EventKind::kFaultEnd) {
    const std::string_view kind = text_field(fields, field::kKind);
    const std::string_view target = text_field(fields, field::kTarget);
    if (kind == fault_kind_name(FaultKind::kPause)) {
      if (event == EventKind::kFaultBegin) {
        paused_.emplace(target);
      } else if (const auto found = paused_.find(target); found != paused_.end()) {
        paused_.erase(found);
      }
    } else if (kind == fault_kind_name(FaultKind::kClockJump) && event == EventKind::kFaultBegin) {
      const std::int64_t by = integer_field(fields, field::kByNs).value_or(0);
      if ((by < 0 ? -by : by) > drift_allowance_.count_ns()) ++counts_["clock_jump_beyond_drift"];
    }
  } else if (event == EventKind::kLeaseExpire) {
    if (paused_.contains(text_field(fields, field::kOwner))) ++counts_["pause_past_lease"];
    current_owner_.clear();
  } else if (event == EventKind::kLeaseGrant) {
    latest_owner_ = std::string{text_field(fields, field::kOwner)};
    current_owner_ = latest_owner_;
    granted_before_.emplace(latest_owner_);
  } else if (const bool write = event == EventKind::kWriteAccept || event == EventKind::kWriteReject;
             write || event == EventKind::kReadAccept || event == EventKind::kReadReject) {
    // Storage records every read, but only a fenced one (it carries a token)
    // can be turned away: an unfenced late read is no late operation here.
    const bool fenced_or_write = write || integer_field(fields, field::kToken).has_value();
    if (!fenced_or_write) return;
    const std::string_view worker = text_field(fields, write ? field::kWriter : field::kReader);
    if (granted_before_.contains(worker) && latest_owner_ != worker) ++counts_["late_op_at_storage"];
  } else if (event == EventKind::kLeaseLost) {
    if (text_field(fields, field::kReason) == reason::kFailover) ++counts_["failover_lost_lease"];
    current_owner_.clear();
  } else if (event == EventKind::kLeaseRelease) {
    if (text_field(fields, field::kBy) != text_field(fields, field::kOwner)) ++counts_["foreign_key_release"];
    current_owner_.clear();
  } else if (event == EventKind::kReleaseFail) {
    // Refused by compare-and-delete because someone else holds the key now
    // (not merely because it expired with nobody after it).
    if (text_field(fields, field::kReason) == reason::kNotOwner && !current_owner_.empty() && current_owner_ != proc) {
      ++counts_["foreign_key_release"];
    }
  }
}

std::map<std::string, std::int64_t> ProbeCounter::counts() const {
  std::map<std::string, std::int64_t> all;
  for (std::string_view name : kProbeNames) {
    const auto found = counts_.find(std::string{name});
    all[std::string{name}] = found == counts_.end() ? 0 : found->second;
  }
  return all;
}

}  // namespace locksim::runner
