#include "runner/probes.h"

#include "runner/record_fields.h"

namespace locksim::runner {

void ProbeCounter::observe(std::string_view proc, std::string_view event, std::span<const sim::Field> fields) {
  if (event == "fault.begin" || event == "fault.end") {
    const std::string_view kind = text_field(fields, "kind");
    const std::string_view target = text_field(fields, "target");
    if (kind == "pause") {
      if (event == "fault.begin") {
        paused_.emplace(target);
      } else if (const auto found = paused_.find(target); found != paused_.end()) {
        paused_.erase(found);
      }
    } else if (kind == "clock-jump" && event == "fault.begin") {
      const std::int64_t by = integer_field(fields, "by_ns").value_or(0);
      if ((by < 0 ? -by : by) > drift_allowance_.count_ns()) ++counts_["clock_jump_beyond_drift"];
    }
  } else if (event == "lease.expire") {
    if (paused_.contains(text_field(fields, "owner"))) ++counts_["pause_past_lease"];
    current_owner_.clear();
  } else if (event == "lease.grant") {
    latest_owner_ = std::string{text_field(fields, "owner")};
    current_owner_ = latest_owner_;
    granted_before_.emplace(latest_owner_);
  } else if (event == "write.accept" || event == "write.reject" || event == "read.accept" || event == "read.reject") {
    // Storage records every read, but only a fenced one (it carries a token)
    // can be turned away: an unfenced late read is no late operation here.
    const bool fenced_or_write = event.starts_with("write") || integer_field(fields, "token").has_value();
    if (!fenced_or_write) return;
    const std::string_view worker = text_field(fields, event.starts_with("write") ? "writer" : "reader");
    if (granted_before_.contains(worker) && latest_owner_ != worker) ++counts_["late_op_at_storage"];
  } else if (event == "lease.lost") {
    if (text_field(fields, "reason") == "failover") ++counts_["failover_lost_lease"];
    current_owner_.clear();
  } else if (event == "lease.release") {
    if (text_field(fields, "by") != text_field(fields, "owner")) ++counts_["foreign_key_release"];
    current_owner_.clear();
  } else if (event == "release.fail") {
    // Refused by compare-and-delete because someone else holds the key now
    // (not merely because it expired with nobody after it).
    if (text_field(fields, "reason") == "not-owner" && !current_owner_.empty() && current_owner_ != proc) {
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
