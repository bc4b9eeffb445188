#include "reports/timeline.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "reports/readable_duration.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/reason.h"

namespace locksim::reports {

using vocabulary::EventKind;
using vocabulary::FaultKind;
using vocabulary::event_kind_name;
using vocabulary::fault_kind_name;
namespace field = vocabulary::field;

namespace {

using checker::EventKind;

// What a proc is, from the events it records (a name is only a fallback:
// a recorded real history may name its procs anything).
std::optional<LaneKind> kind_by_event(EventKind kind) {
  switch (vocabulary::emitter_of(kind)) {
    case vocabulary::Emitter::kWorker: return LaneKind::kWorker;
    case vocabulary::Emitter::kService: return LaneKind::kService;
    case vocabulary::Emitter::kStorage: return LaneKind::kStorage;
    case vocabulary::Emitter::kExternal: return LaneKind::kExternal;
    default: return std::nullopt;  // run, nemesis, and crash/restart (any node)
  }
}

std::optional<LaneKind> kind_by_name(std::string_view proc) {
  if (proc.starts_with("worker")) return LaneKind::kWorker;
  if (proc.starts_with("redis") || proc.starts_with("consensus")) return LaneKind::kService;
  if (proc == "storage") return LaneKind::kStorage;
  return std::nullopt;
}

// "worker-2" before "worker-10": the name without its trailing digits, then their number.
std::tuple<std::string_view, std::size_t, std::string_view> natural_key(std::string_view name) {
  std::size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  const std::string_view number = name.substr(digits);
  return {name.substr(0, digits), number.size(), number};
}

std::vector<Lane> lanes_of(const std::vector<TraceEntry>& entries) {
  std::map<std::string, std::optional<LaneKind>> procs;
  for (const TraceEntry& entry : entries) {
    if (entry.proc == "run" || entry.proc == "nemesis") continue;
    std::optional<LaneKind>& kind = procs[entry.proc];
    if (!kind && entry.kind) kind = kind_by_event(*entry.kind);
  }
  std::vector<Lane> lanes;
  for (const auto& [proc, kind] : procs) {
    const std::optional<LaneKind> chosen = kind ? kind : kind_by_name(proc);
    if (chosen) lanes.push_back({proc, *chosen});
  }
  std::sort(lanes.begin(), lanes.end(), [](const Lane& left, const Lane& right) {
    return std::tuple{left.kind, natural_key(left.name)} < std::tuple{right.kind, natural_key(right.name)};
  });
  return lanes;
}

// Builds the model in one pass over the history.
class TimelineBuilder {
 public:
  TimelineBuilder(Timeline& timeline, const checker::HistoryVerdict& verdict) : timeline_{timeline} {
    for (const checker::Violation& violation : verdict.violations) {
      if (violation.kind == checker::ViolationKind::kStaleWrite) stale_events_.insert(violation.detected_at);
      if (violation.kind == checker::ViolationKind::kDuplicateEffect) duplicate_events_.insert(violation.detected_at);
    }
    late_events_.insert(verdict.counts.late_write_events.begin(), verdict.counts.late_write_events.end());
  }

  void observe(const TraceEntry& entry) {
    if (!entry.kind) return;
    switch (*entry.kind) {
      case EventKind::kRunBegin: observe_run_begin(entry); break;
      case EventKind::kLeaseGrant:
      case EventKind::kLeaseAdopt: open_lease(entry); break;
      case EventKind::kLeaseRenew: renew_lease(entry); break;
      case EventKind::kLeaseExpire:
      case EventKind::kLeaseRelease:
      case EventKind::kLeaseLost: close_lease(entry, entry.event); break;
      case EventKind::kAcquireOk: {
        const std::optional<std::int64_t> validity = entry.integer(field::kValidityNs);
        if (validity) {
          valid_until_[entry.proc] = entry.time_ns + *validity;
        } else {
          valid_until_.erase(entry.proc);
        }
        break;
      }
      case EventKind::kHoldBegin: open_belief(entry); break;
      case EventKind::kHoldEnd:
        close_belief(entry.proc, entry.time_ns, entry.text(field::kReason));
        break;
      case EventKind::kCrash:
        close_belief(entry.proc, entry.time_ns, vocabulary::reason::kCrash);
        break;
      case EventKind::kReadInvoke: pending_reads_[entry.proc].push_back(entry.time_ns); break;
      case EventKind::kReadAccept:
      case EventKind::kReadReject: land_read(entry); break;
      case EventKind::kWriteInvoke: invoke_write(entry); break;
      case EventKind::kWriteOk: acknowledge_write(entry); break;
      case EventKind::kWriteAccept:
      case EventKind::kWriteReject: land_write(entry); break;
      case EventKind::kEffectInvoke: pending_effects_[entry.proc].push_back(entry.time_ns); break;
      case EventKind::kEffectAccept:
      case EventKind::kEffectReject: land_effect(entry); break;
      case EventKind::kFaultBegin: begin_fault(entry); break;
      case EventKind::kFaultEnd: end_fault(entry); break;
      default: break;
    }
  }

  // Whatever is still open runs to the end of the run.
  void finish() {
    for (const auto& [key, index] : open_leases_) end_lease(index, timeline_.end_ns, "end of run");
    for (const auto& [worker, index] : open_beliefs_) end_belief(index, timeline_.end_ns, "end of run");
    for (const OpenFault& fault : open_faults_) {
      for (const std::size_t index : fault.spans) timeline_.spans[index].end_ns = timeline_.end_ns;
    }
  }

 private:
  using LeaseKey = std::tuple<std::string, std::string, std::string, std::string>;  // instance, lock, owner, token

  struct OpenFault {
    std::string kind;
    std::vector<std::string> targets;
    std::vector<std::size_t> spans;
  };

  void observe_run_begin(const TraceEntry& entry) {
    timeline_.scenario = entry.text(field::kScenario);
    timeline_.seed = entry.integer(field::kSeed);
    const std::string fencing = entry.text(field::kFencing);
    if (fencing == "true" || fencing == "false") timeline_.fencing = fencing == "true";
  }

  static LeaseKey lease_key(const TraceEntry& entry) {
    return {entry.proc, entry.text(field::kLock), entry.text(field::kOwner), entry.text(field::kToken)};
  }

  void open_lease(const TraceEntry& entry) {
    const std::optional<std::size_t> lane = timeline_.lane_of(entry.proc);
    if (!lane) return;
    const LeaseKey key = lease_key(entry);
    // A second grant of the same lease (a lost key granted again) starts a new bar.
    if (const auto open = open_leases_.find(key); open != open_leases_.end()) {
      end_lease(open->second, entry.time_ns, entry.event);
      open_leases_.erase(open);
    }
    open_leases_.emplace(key, timeline_.leases.size());
    timeline_.leases.push_back(LeaseBar{.lane = *lane,
                                        .owner = std::get<2>(key),
                                        .token = std::get<3>(key),
                                        .begin_ns = entry.time_ns,
                                        .end_ns = entry.time_ns,
                                        .ended_by = {},
                                        .renewals = 0});
  }

  void renew_lease(const TraceEntry& entry) {
    if (const auto open = open_leases_.find(lease_key(entry)); open != open_leases_.end()) {
      ++timeline_.leases[open->second].renewals;
    }
  }

  void close_lease(const TraceEntry& entry, std::string_view ended_by) {
    const auto open = open_leases_.find(lease_key(entry));
    if (open == open_leases_.end()) return;
    end_lease(open->second, entry.time_ns, ended_by);
    open_leases_.erase(open);
  }

  void end_lease(std::size_t index, std::int64_t time_ns, std::string_view ended_by) {
    timeline_.leases[index].end_ns = time_ns;
    timeline_.leases[index].ended_by = ended_by;
  }

  void open_belief(const TraceEntry& entry) {
    const std::optional<std::size_t> lane = timeline_.lane_of(entry.proc);
    if (!lane) return;
    close_belief(entry.proc, entry.time_ns, event_kind_name(EventKind::kHoldBegin));
    open_beliefs_[entry.proc] = timeline_.beliefs.size();
    timeline_.beliefs.push_back(BeliefBar{.lane = *lane,
                                          .token = entry.text(field::kToken),
                                          .begin_ns = entry.time_ns,
                                          .end_ns = entry.time_ns,
                                          .ended_by = {},
                                          .valid_until_ns = {}});
    if (const auto valid = valid_until_.find(entry.proc); valid != valid_until_.end()) {
      timeline_.beliefs.back().valid_until_ns = valid->second;
    }
    hold_token_[entry.proc] = entry.text(field::kToken);
  }

  void close_belief(const std::string& worker, std::int64_t time_ns, std::string_view ended_by) {
    const auto open = open_beliefs_.find(worker);
    if (open == open_beliefs_.end()) return;
    end_belief(open->second, time_ns, ended_by);
    open_beliefs_.erase(open);
  }

  void end_belief(std::size_t index, std::int64_t time_ns, std::string_view ended_by) {
    timeline_.beliefs[index].end_ns = time_ns;
    timeline_.beliefs[index].ended_by = ended_by;
  }

  void invoke_write(const TraceEntry& entry) {
    const std::optional<std::size_t> lane = timeline_.lane_of(entry.proc);
    if (!lane) return;
    std::string token = entry.text(field::kToken);
    if (token.empty()) token = hold_token_[entry.proc];
    pending_writes_[entry.proc].push_back(timeline_.writes.size());
    last_landed_or_invoked_[entry.proc] = timeline_.writes.size();
    timeline_.writes.push_back(TimelineWrite{.writer_lane = *lane,
                                             .invoke_ns = entry.time_ns,
                                             .storage_ns = std::nullopt,
                                             .storage_index = -1,
                                             .key = entry.text(field::kKey),
                                             .value = entry.text(field::kValue),
                                             .token = std::move(token),
                                             .write_class = WriteClass::kOk,
                                             .reject_reason = {}});
  }

  // Black-box late writes are named by the writer's write.ok.
  void acknowledge_write(const TraceEntry& entry) {
    if (!late_events_.contains(entry.index)) return;
    const auto last = last_landed_or_invoked_.find(entry.proc);
    if (last != last_landed_or_invoked_.end()) timeline_.writes[last->second].write_class = WriteClass::kLate;
  }

  void land_write(const TraceEntry& entry) {
    const std::string writer = entry.text(field::kWriter);
    std::deque<std::size_t>& pending = pending_writes_[writer];
    std::size_t index = 0;
    if (!pending.empty()) {
      // One write at a time per worker: an older one still waiting never arrived (it stays unlanded).
      index = pending.back();
      pending.clear();
    } else {
      const std::optional<std::size_t> lane = timeline_.lane_of(writer);
      if (!lane) return;
      index = timeline_.writes.size();
      timeline_.writes.push_back(TimelineWrite{.writer_lane = *lane,
                                               .invoke_ns = std::nullopt,
                                               .storage_ns = std::nullopt,
                                               .storage_index = -1,
                                               .key = entry.text(field::kKey),
                                               .value = entry.text(field::kValue),
                                               .token = hold_token_[writer],
                                               .write_class = WriteClass::kOk,
                                               .reject_reason = {}});
    }
    TimelineWrite& write = timeline_.writes[index];
    write.storage_ns = entry.time_ns;
    write.storage_index = entry.index;
    if (const std::string token = entry.text(field::kToken); !token.empty()) write.token = token;
    if (*entry.kind == EventKind::kWriteReject) {
      write.write_class = WriteClass::kRejected;
      write.reject_reason = entry.text(field::kReason);
    } else if (stale_events_.contains(entry.index)) {
      write.write_class = WriteClass::kStale;
    } else if (late_events_.contains(entry.index)) {
      write.write_class = WriteClass::kLate;
    }
    last_landed_or_invoked_[writer] = index;
  }

  void land_read(const TraceEntry& entry) {
    const std::string reader = entry.text(field::kReader);
    std::optional<std::int64_t> invoke_ns;
    // A worker reads one thing at a time: an older read still waiting never arrived.
    if (std::deque<std::int64_t>& pending = pending_reads_[reader]; !pending.empty()) {
      invoke_ns = pending.back();
      pending.clear();
    }
    const std::optional<std::size_t> lane = timeline_.lane_of(reader);
    if (*entry.kind != EventKind::kReadReject || !lane) return;
    std::string token = entry.text(field::kToken);
    if (token.empty()) token = hold_token_[reader];
    timeline_.turned_away_reads.push_back(TurnedAwayRead{.reader_lane = *lane,
                                                         .invoke_ns = invoke_ns,
                                                         .storage_ns = entry.time_ns,
                                                         .key = entry.text(field::kKey),
                                                         .token = std::move(token),
                                                         .reason = entry.text(field::kReason)});
  }

  void land_effect(const TraceEntry& entry) {
    const std::string caller = entry.text(field::kWriter);
    std::optional<std::int64_t> invoke_ns;
    // A worker makes one call at a time: an older call still waiting never arrived.
    if (std::deque<std::int64_t>& pending = pending_effects_[caller]; !pending.empty()) {
      invoke_ns = pending.back();
      pending.clear();
    }
    const std::optional<std::size_t> service_lane = timeline_.lane_of(entry.proc);
    const std::optional<std::size_t> caller_lane = timeline_.lane_of(caller);
    if (!service_lane || !caller_lane) return;
    timeline_.effects.push_back(TimelineEffect{.service_lane = *service_lane,
                                               .caller_lane = *caller_lane,
                                               .invoke_ns = invoke_ns,
                                               .landed_ns = entry.time_ns,
                                               .job = entry.text(field::kJob),
                                               .accepted = *entry.kind == EventKind::kEffectAccept,
                                               .duplicate = duplicate_events_.contains(entry.index)});
  }

  static std::string fault_label(const TraceEntry& entry, const std::string& kind) {
    if (kind == fault_kind_name(FaultKind::kClockJump)) {
      const std::int64_t by = entry.integer(field::kByNs).value_or(0);
      return fmt::format("clock {}{}", by > 0 ? "+" : "", readable_duration(by));
    }
    if (kind == fault_kind_name(FaultKind::kClockDrift))
      return fmt::format("clock drift {} ppm", entry.text(field::kPpm));
    if (kind == fault_kind_name(FaultKind::kMemoryPressure)) {
      const std::int64_t lasting = entry.integer(field::kForNs).value_or(0);
      if (lasting == 0) return fmt::format("memory pressure (evict {})", entry.text(field::kEvict));
      return fmt::format("memory pressure (evict {}) {}", entry.text(field::kEvict), readable_duration(lasting));
    }
    if (kind == fault_kind_name(FaultKind::kDelaySpike)) {
      return fmt::format("delay +{}", readable_duration(entry.integer(field::kExtraNs).value_or(0)));
    }
    if (kind == fault_kind_name(FaultKind::kFailover) && !entry.text(field::kPrimary).empty()) {
      return fmt::format("failover ({})", entry.text(field::kPrimary));
    }
    if (const std::optional<std::int64_t> lasting = entry.integer(field::kForNs)) {
      return fmt::format("{} {}", kind, readable_duration(*lasting));
    }
    return kind;
  }

  // Faults over at once are markers; the others spans until their fault.end.
  void begin_fault(const TraceEntry& entry) {
    const std::string kind = entry.text(field::kKind);
    const std::string label = fault_label(entry, kind);
    const std::vector<std::string> targets = checker::proc_names(entry, field::kTarget);
    const bool lasting_pressure =
        kind == fault_kind_name(FaultKind::kMemoryPressure) && entry.integer(field::kForNs).value_or(0) > 0;
    if (kind == fault_kind_name(FaultKind::kClockJump) || kind == fault_kind_name(FaultKind::kClockDrift) ||
        (kind == fault_kind_name(FaultKind::kMemoryPressure) && !lasting_pressure)) {
      for (const std::string& target : targets) {
        if (const auto lane = timeline_.lane_of(target)) {
          timeline_.markers.push_back(FaultMarker{*lane, kind, entry.time_ns, label});
        }
      }
      return;
    }
    OpenFault fault{kind, targets, {}};
    for (const std::string& target : targets) {
      if (const auto lane = timeline_.lane_of(target)) {
        fault.spans.push_back(timeline_.spans.size());
        timeline_.spans.push_back(FaultSpan{*lane, kind, entry.time_ns, entry.time_ns, label});
      }
    }
    open_faults_.push_back(std::move(fault));
  }

  // Ends the oldest open fault of this kind that shares a target with it
  // (a failover's end names only the old primary), else the oldest of the kind.
  void end_fault(const TraceEntry& entry) {
    const std::string kind = entry.text(field::kKind);
    const std::vector<std::string> targets = checker::proc_names(entry, field::kTarget);
    const auto shares_target = [&](const OpenFault& fault) {
      return fault.kind == kind && std::any_of(targets.begin(), targets.end(), [&](const std::string& target) {
               return std::find(fault.targets.begin(), fault.targets.end(), target) != fault.targets.end();
             });
    };
    auto found = std::find_if(open_faults_.begin(), open_faults_.end(), shares_target);
    if (found == open_faults_.end()) {
      found = std::find_if(open_faults_.begin(), open_faults_.end(),
                           [&](const OpenFault& fault) { return fault.kind == kind; });
    }
    if (found == open_faults_.end()) return;
    for (const std::size_t index : found->spans) timeline_.spans[index].end_ns = entry.time_ns;
    open_faults_.erase(found);
  }

  Timeline& timeline_;
  std::set<std::int64_t> stale_events_;
  std::set<std::int64_t> late_events_;
  std::set<std::int64_t> duplicate_events_;
  std::map<LeaseKey, std::size_t> open_leases_;
  std::map<std::string, std::size_t> open_beliefs_;
  std::map<std::string, std::int64_t> valid_until_;  // worker -> its last acquire.ok's validity end
  std::map<std::string, std::string> hold_token_;
  std::map<std::string, std::deque<std::size_t>> pending_writes_;
  std::map<std::string, std::deque<std::int64_t>> pending_reads_;
  std::map<std::string, std::deque<std::int64_t>> pending_effects_;
  std::map<std::string, std::size_t> last_landed_or_invoked_;
  std::vector<OpenFault> open_faults_;
};

// One callout per incident: the first violation of each.
std::vector<TimelineCallout> callouts_of(const checker::HistoryVerdict& verdict, const Timeline& timeline,
                                         const std::vector<TraceEntry>& entries) {
  std::map<std::int64_t, const TraceEntry*> by_index;
  for (const TraceEntry& entry : entries) by_index.emplace(entry.index, &entry);
  std::set<std::pair<checker::ViolationKind, std::int64_t>> incidents;
  std::vector<TimelineCallout> callouts;
  for (const checker::Violation& violation : verdict.violations) {
    if (!incidents.emplace(violation.kind, violation.incident).second) continue;
    TimelineCallout callout{violation.kind, violation.time_ns, violation.detail, std::nullopt};
    if (const auto shown = by_index.find(violation.detected_at); shown != by_index.end()) {
      callout.lane = timeline.lane_of(shown->second->proc);
    }
    callouts.push_back(std::move(callout));
  }
  return callouts;
}

}  // namespace

std::string TimelineWrite::label() const {
  std::string text = value.empty() ? key : fmt::format("{}={}", key, value);
  if (!token.empty()) text += fmt::format(" t{}", token);
  return text;
}

std::string TimelineEffect::label() const {
  std::string text = "job " + job;
  if (duplicate) text += " again";
  return text;
}

std::string TurnedAwayRead::label() const {
  std::string text = "read " + key;
  if (!token.empty()) text += fmt::format(" t{}", token);
  return text;
}

std::optional<std::size_t> Timeline::lane_of(std::string_view proc) const {
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    if (lanes[lane].name == proc) return lane;
  }
  return std::nullopt;
}

Timeline build_timeline(const std::vector<TraceEntry>& entries, const checker::HistoryVerdict& verdict) {
  Timeline timeline;
  timeline.lanes = lanes_of(entries);
  for (const TraceEntry& entry : entries) {
    timeline.end_ns = std::max(timeline.end_ns, entry.time_ns);
  }
  TimelineBuilder builder{timeline, verdict};
  for (const TraceEntry& entry : entries) builder.observe(entry);
  builder.finish();
  timeline.callouts = callouts_of(verdict, timeline, entries);
  return timeline;
}

}  // namespace locksim::reports
