#include "live/live_history.h"

#include <algorithm>
#include <optional>
#include <set>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"
#include "vocabulary/proc_name.h"
#include "vocabulary/reason.h"

namespace locksim::live {

using vocabulary::EventKind;
using vocabulary::event_kind_name;
namespace field = vocabulary::field;
namespace reason = vocabulary::reason;

namespace {

using Json = nlohmann::ordered_json;

enum class Rank : int { kRunBegin, kServer, kWorker, kCoordinator, kRunEnd };

struct Placed {
  std::int64_t t = 0;
  Rank rank = Rank::kWorker;
  std::size_t order = 0;  // keeps each source's own order at equal times
  Json line;              // proc, ev and fields, without i and t
};

struct CallTimes {
  std::optional<std::int64_t> invoke_ns;
  std::optional<std::int64_t> reply_ns;
};

// What a worker line is to its call: an invocation, a completion, or
// neither (hold.begin, live's own lines).
vocabulary::CallPart call_part(const std::string& event) {
  const std::optional<EventKind> kind = vocabulary::event_kind_from_name(event);
  return kind ? vocabulary::event_info(*kind).call : vocabulary::CallPart::kNone;
}

std::map<std::string, CallTimes> call_times(const std::vector<nlohmann::json>& worker_lines) {
  std::map<std::string, CallTimes> calls;
  for (const nlohmann::json& line : worker_lines) {
    if (!line.contains(field::kCall)) continue;
    CallTimes& times = calls[line[field::kCall].get<std::string>()];
    const vocabulary::CallPart part = call_part(line[field::kEvent].get<std::string>());
    const std::int64_t t = line[field::kTime].get<std::int64_t>();
    if (part == vocabulary::CallPart::kInvoke) times.invoke_ns = t;
    // A call that timed out or lost its connection had no answer: the server
    // may still carry it out later (a request a spike or partition held), so
    // the worker's giving up bounds nothing.
    const std::string why = line.value(field::kReason, std::string{});
    const bool answered = why != reason::kTimeout && why != reason::kConnection;
    if (part == vocabulary::CallPart::kCompletion && answered) times.reply_ns = t;
  }
  return calls;
}

// Places one server's records, in script order, within their calls' send and reply.
class ServerClock {
 public:
  ServerClock(const std::map<std::string, CallTimes>& calls, std::int64_t realtime_minus_run_ns)
      : calls_{calls}, realtime_minus_run_ns_{realtime_minus_run_ns} {}

  // The server's TIME of `record`, as the run's time.
  [[nodiscard]] std::int64_t server_time(const nlohmann::json& record) const {
    const std::int64_t seconds = std::stoll(record["s"].get<std::string>());
    const std::int64_t micros = std::stoll(record["us"].get<std::string>());
    return seconds * 1'000'000'000 + micros * 1'000 - realtime_minus_run_ns_;
  }

  // An event the coordinator saw at `t`, kept in order after this server's previous one.
  std::int64_t place_at(std::int64_t t) {
    previous_ = std::max(previous_ + 1, t);
    return previous_;
  }

  std::int64_t place(const nlohmann::json& record) {
    std::int64_t lower = previous_ + 1;
    std::optional<std::int64_t> upper;
    if (const auto call = calls_.find(record.value("call", std::string{})); call != calls_.end()) {
      if (call->second.invoke_ns) lower = std::max(lower, *call->second.invoke_ns + 1);
      upper = call->second.reply_ns;
    }
    std::int64_t t = std::max(lower, server_time(record));
    if (upper && t > *upper) t = std::max(lower, *upper);
    previous_ = t;
    return t;
  }

 private:
  const std::map<std::string, CallTimes>& calls_;
  std::int64_t realtime_minus_run_ns_;
  std::int64_t previous_ = 0;
};

std::vector<nlohmann::json> by_sequence(std::vector<nlohmann::json> records) {
  std::ranges::sort(records, {}, [](const nlohmann::json& record) { return record["seq"].get<std::int64_t>(); });
  return records;
}

// A lock-service instance's records, each incarnation's in script order,
// with each restart between the incarnations it separates.
struct LockStep {
  const nlohmann::json* record = nullptr;  // or, when null:
  const LockRestart* restart = nullptr;    // or, when null too:
  const LockRoleChange* role_change = nullptr;
  std::size_t instance = 0;                // whose record or restart
};

std::vector<LockStep> lock_steps(const LockInstanceRecords& instance, const ServerClock& clock) {
  const auto incarnation = [&](const nlohmann::json& record) {
    const std::int64_t t = clock.server_time(record);
    return std::ranges::count_if(instance.restarts, [&](const LockRestart& restart) { return restart.crashed_ns < t; });
  };
  std::vector<const nlohmann::json*> ordered;
  for (const nlohmann::json& record : instance.log) ordered.push_back(&record);
  std::ranges::sort(ordered, {}, [&](const nlohmann::json* record) {
    return std::pair{incarnation(*record), (*record)["seq"].get<std::int64_t>()};
  });
  std::vector<LockStep> steps;
  std::size_t restarts_done = 0;
  for (const nlohmann::json* record : ordered) {
    while (restarts_done < static_cast<std::size_t>(incarnation(*record))) {
      steps.push_back({nullptr, &instance.restarts[restarts_done++]});
    }
    steps.push_back({record, nullptr});
  }
  while (restarts_done < instance.restarts.size()) steps.push_back({nullptr, &instance.restarts[restarts_done++]});
  return steps;
}

// A redis-failover run's records and restarts of every instance and its
// role changes, in the order they happened: the servers share the machine's
// clock, and each server's own records keep their script order.
std::vector<LockStep> failover_steps(const LiveRecords& records, const ServerClock& clock) {
  std::vector<LockStep> ordered;
  for (std::size_t index = 0; index < records.lock_instances.size(); ++index) {
    for (const nlohmann::json& record : records.lock_instances[index].log) ordered.push_back({&record, nullptr, nullptr, index});
    for (const LockRestart& restart : records.lock_instances[index].restarts) ordered.push_back({nullptr, &restart, nullptr, index});
  }
  // A restart at its crash: the records before it are the old process's.
  const auto time_of = [&](const LockStep& step) {
    return step.record != nullptr ? clock.server_time(*step.record) : step.restart->crashed_ns;
  };
  std::ranges::sort(ordered, {}, [&](const LockStep& step) {
    return std::tuple{time_of(step), step.instance, step.record != nullptr ? (*step.record)["seq"].get<std::int64_t>() : 0};
  });
  std::vector<LockStep> steps;
  std::size_t changes_done = 0;
  for (const LockStep& step : ordered) {
    while (changes_done < records.role_changes.size() && records.role_changes[changes_done].t < time_of(step)) {
      steps.push_back({nullptr, nullptr, &records.role_changes[changes_done++]});
    }
    steps.push_back(step);
  }
  while (changes_done < records.role_changes.size()) steps.push_back({nullptr, nullptr, &records.role_changes[changes_done++]});
  return steps;
}

struct OpenLease {
  std::string owner;
  std::int64_t token = 0;
  std::int64_t lease_ns = 0;  // 0: no expiry
  std::int64_t deadline_ns = 0;
  bool adopted_unrenewed = false;  // a promoted replica's copy of the old primary's lease, not renewed since
};

class LeaseEvents {
 public:
  LeaseEvents(const LiveRecords& records, std::string instance, ServerClock& clock, std::vector<Placed>& out)
      : records_{records}, instance_{std::move(instance)}, clock_{clock}, out_{out} {}

  void add(const nlohmann::json& record) {
    const std::string event = record["ev"].get<std::string>();
    const std::string value = record["value"].get<std::string>();
    const std::int64_t t = clock_.place(record);
    if (event == "grant") {
      expire_before(t);
      const std::int64_t lease_ns = record["lease_ms"].get<std::string>().empty()
                                        ? 0
                                        : std::stoll(record["lease_ms"].get<std::string>()) * 1'000'000;
      OpenLease lease{record["owner"].get<std::string>(), record["token"].get<std::int64_t>(), lease_ns,
                      clock_.server_time(record) + lease_ns};
      Json line{{field::kProc, instance_},
                {field::kEvent, event_kind_name(EventKind::kLeaseGrant)},
                {field::kLock, records_.lock_name},
                {field::kOwner, lease.owner},
                {field::kToken, lease.token}};
      if (lease_ns > 0) line[field::kLeaseNs] = lease_ns;
      emit(t, std::move(line));
      open_[value] = lease;
      return;
    }
    const auto open = open_.find(value);
    if (open == open_.end()) return;  // a record of a lease the log does not hold: nothing to end
    OpenLease& lease = open->second;
    if (event == "renew") {
      const std::int64_t lease_ns = std::stoll(record["lease_ms"].get<std::string>()) * 1'000'000;
      lease.deadline_ns = clock_.server_time(record) + lease_ns;
      lease.adopted_unrenewed = false;
      emit(t, Json{{field::kProc, instance_},
                   {field::kEvent, event_kind_name(EventKind::kLeaseRenew)},
                   {field::kLock, records_.lock_name},
                   {field::kOwner, lease.owner},
                   {field::kToken, lease.token},
                   {field::kLeaseNs, lease_ns}});
    } else if (event == "lost") {
      // A plain SET replaced the key (get-then-set, H9): the promise runs on
      // to its deadline, which the checker knows; no expire of it follows.
      emit(t, Json{{field::kProc, instance_},
                   {field::kEvent, event_kind_name(EventKind::kLeaseLost)},
                   {field::kLock, records_.lock_name},
                   {field::kOwner, lease.owner},
                   {field::kToken, lease.token},
                   {field::kReason, record["reason"].get<std::string>()}});
      open_.erase(open);
    } else if (event == "release") {
      emit(t, Json{{field::kProc, instance_},
                   {field::kEvent, event_kind_name(EventKind::kLeaseRelease)},
                   {field::kLock, records_.lock_name},
                   {field::kOwner, lease.owner},
                   {field::kToken, lease.token},
                   {field::kBy, record["by"].get<std::string>()}});
      open_.erase(open);
    }
  }

  // The lock server came back without a lease's key: the restart lost it,
  // as the simulator records it (also when its deadline passed meanwhile).
  void restart(const LockRestart& restart) {
    const std::int64_t t = clock_.place_at(restart.restarted_ns + 1);  // just after the restart line
    for (auto open = open_.begin(); open != open_.end();) {
      if (restart.kept_value == open->first) {
        ++open;
        continue;
      }
      emit(t, Json{{field::kProc, instance_},
                   {field::kEvent, event_kind_name(EventKind::kLeaseLost)},
                   {field::kLock, records_.lock_name},
                   {field::kOwner, open->second.owner},
                   {field::kToken, open->second.token},
                   {field::kReason, reason::kRestart}});
      open = open_.erase(open);
    }
  }

  // redis-failover, on the old primary's events: the replica of `promoted`
  // took over, as the simulator records it (docs/models.md):
  // `replica.promote`; the old primary's lease whose key the replica held is
  // the same lease, now the replica's (`lease.adopt`, with what its PTTL
  // said was left); one it lacked is `lease.lost` reason failover — unless
  // the old primary lives on (a split brain), which still keeps its promises.
  void promote(const LockRoleChange& change, LeaseEvents& promoted) {
    const std::int64_t t = promoted.clock_.place_at(change.t);
    promoted.emit(
        t, Json{{field::kProc, promoted.instance_}, {field::kEvent, event_kind_name(EventKind::kReplicaPromote)}});
    for (auto open = open_.begin(); open != open_.end();) {
      const OpenLease lease = open->second;
      const bool ran_out = lease.lease_ns > 0 && lease.deadline_ns <= t;
      if (ran_out && change.old_primary_alive) {
        ++open;
        continue;
      }
      if (ran_out) {
        expire(lease, lease.deadline_ns);
      } else if (change.kept_value == open->first) {
        Json line{{field::kProc, promoted.instance_},
                  {field::kEvent, event_kind_name(EventKind::kLeaseAdopt)},
                  {field::kLock, records_.lock_name},
                  {field::kOwner, lease.owner},
                  {field::kToken, lease.token}};
        if (change.kept_lease_ns > 0) line[field::kLeaseNs] = change.kept_lease_ns;
        promoted.emit(t, std::move(line));
        promoted.open_[open->first] = OpenLease{lease.owner, lease.token, change.kept_lease_ns, t + change.kept_lease_ns, true};
      } else if (!change.old_primary_alive) {
        lost(lease, t);
      }
      open = change.old_primary_alive ? std::next(open) : open_.erase(open);
    }
  }

  // redis-failover, on the old primary's events: it became the replica of
  // `promoted` and took over its data, so what it still promised is lost —
  // but for a lease the new primary adopted and nobody renewed since.
  void rejoin(const LockRoleChange& change, const LeaseEvents& promoted) {
    const std::int64_t t = clock_.place_at(change.t);
    for (const auto& [value, lease] : open_) {
      if (lease.lease_ns > 0 && lease.deadline_ns <= t) {
        expire(lease, lease.deadline_ns);
        continue;
      }
      const auto copy = promoted.open_.find(value);
      if (copy == promoted.open_.end() || !copy->second.adopted_unrenewed) lost(lease, t);
    }
    open_.clear();
  }

  // Leases whose deadline passed by the end of the run expire at it.
  void finish() {
    for (const auto& [value, lease] : open_) {
      if (lease.lease_ns > 0 && lease.deadline_ns <= records_.end_ns) expire(lease, lease.deadline_ns);
    }
    open_.clear();
  }

 private:
  // A grant of the lock at `grant_ns`: Redis granted it because the key was
  // gone, so every open lease with a deadline expired before it.
  void expire_before(std::int64_t grant_ns) {
    for (auto lease = open_.begin(); lease != open_.end();) {
      if (lease->second.lease_ns > 0) {
        expire(lease->second, std::min(lease->second.deadline_ns, grant_ns - 1));
        lease = open_.erase(lease);
      } else {
        ++lease;
      }
    }
  }

  void lost(const OpenLease& lease, std::int64_t t) {
    emit(t, Json{{field::kProc, instance_},
                 {field::kEvent, event_kind_name(EventKind::kLeaseLost)},
                 {field::kLock, records_.lock_name},
                 {field::kOwner, lease.owner},
                 {field::kToken, lease.token},
                 {field::kReason, reason::kFailover}});
  }

  void expire(const OpenLease& lease, std::int64_t t) {
    emit(t, Json{{field::kProc, instance_},
                 {field::kEvent, event_kind_name(EventKind::kLeaseExpire)},
                 {field::kLock, records_.lock_name},
                 {field::kOwner, lease.owner},
                 {field::kToken, lease.token}});
  }

  void emit(std::int64_t t, Json line) { out_.push_back({t, Rank::kServer, out_.size(), std::move(line)}); }

  const LiveRecords& records_;
  std::string instance_;
  ServerClock& clock_;
  std::vector<Placed>& out_;
  std::map<std::string, OpenLease> open_;  // by the key's value
};

// A storage record as the model writes it: key, value, writer/reader, token, request_id, job, reason;
// the payments script's effect.accept/reject (it runs on the storage server) as the payments node's.
Json storage_line(const nlohmann::json& record) {
  const std::string event = record[field::kEvent].get<std::string>();
  const std::optional<EventKind> kind = vocabulary::event_kind_from_name(event);
  const bool external = kind && vocabulary::emitter_of(*kind) == vocabulary::Emitter::kExternal;
  Json line{{field::kProc, external ? vocabulary::proc::kPayments : vocabulary::proc::kStorage},
            {field::kEvent, event}};
  for (const char* name : {field::kKey, field::kJob, field::kValue, field::kWriter, field::kReader, field::kToken,
                           field::kRequestId, field::kReason}) {
    if (record.contains(name)) line[name] = record[name];
  }
  return line;
}

// A worker's or the coordinator's line as the history has it: proc and ev
// first, then the event's fields; no `t` (placed apart) and no `call`.
Json history_fields(const nlohmann::json& source) {
  Json line{{field::kProc, source[field::kProc]}, {field::kEvent, source[field::kEvent]}};
  for (const auto& [key, value] : source.items()) {
    if (key != field::kTime && key != field::kCall && key != field::kProc && key != field::kEvent) line[key] = value;
  }
  return line;
}

// Each instance's lease events from its own records and restarts.
void place_leases(const LiveRecords& records, const std::map<std::string, CallTimes>& calls, std::vector<Placed>& placed) {
  for (const LockInstanceRecords& instance : records.lock_instances) {
    ServerClock clock{calls, records.realtime_minus_run_ns};
    LeaseEvents leases{records, instance.name, clock, placed};
    for (const LockStep& step : lock_steps(instance, clock)) {
      if (step.record != nullptr) {
        leases.add(*step.record);
      } else {
        leases.restart(*step.restart);
      }
    }
    leases.finish();
  }
}

// redis-failover: both instances' records in the order they happened, the
// role changes handing leases from the old primary (redis-0) to the promoted one.
void place_failover_leases(const LiveRecords& records, const std::map<std::string, CallTimes>& calls,
                           std::vector<Placed>& placed) {
  std::vector<ServerClock> clocks(records.lock_instances.size(), ServerClock{calls, records.realtime_minus_run_ns});
  std::vector<LeaseEvents> leases;
  std::map<std::string, std::size_t> index_of;
  for (std::size_t index = 0; index < records.lock_instances.size(); ++index) {
    leases.emplace_back(records, records.lock_instances[index].name, clocks[index], placed);
    index_of[records.lock_instances[index].name] = index;
  }
  for (const LockStep& step : failover_steps(records, clocks.front())) {
    if (step.record != nullptr) {
      leases[step.instance].add(*step.record);
      continue;
    }
    if (step.restart != nullptr) {
      leases[step.instance].restart(*step.restart);
      continue;
    }
    const LockRoleChange& change = *step.role_change;
    LeaseEvents& old_primary = leases.at(index_of.at(change.old_primary));
    LeaseEvents& promoted = leases.at(index_of.at(change.promoted));
    if (change.kind == LockRoleChange::Kind::kPromotion) {
      old_primary.promote(change, promoted);
    } else {
      old_primary.rejoin(change, promoted);
    }
  }
  for (LeaseEvents& instance : leases) instance.finish();
}

}  // namespace

std::vector<std::string> live_history(const LiveRecords& records) {
  const std::map<std::string, CallTimes> calls = call_times(records.worker_lines);
  std::vector<Placed> placed;
  Json begin{{field::kProc, vocabulary::proc::kRun}, {field::kEvent, event_kind_name(EventKind::kRunBegin)}};
  for (const auto& [key, value] : records.run_begin.items()) begin[key] = value;
  placed.push_back({0, Rank::kRunBegin, 0, std::move(begin)});

  if (!records.role_changes.empty()) {
    place_failover_leases(records, calls, placed);
  } else {
    place_leases(records, calls, placed);
  }

  for (const nlohmann::json& lease_line : records.lease_lines) {
    placed.push_back(
        {lease_line[field::kTime].get<std::int64_t>(), Rank::kServer, placed.size(), history_fields(lease_line)});
  }

  ServerClock storage_clock{calls, records.realtime_minus_run_ns};
  for (const nlohmann::json& record : by_sequence(records.storage_log)) {
    const std::int64_t t = storage_clock.place(record);
    placed.push_back({t, Rank::kServer, placed.size(), storage_line(record)});
  }

  for (const nlohmann::json& worker_line : records.worker_lines) {
    const std::string event = worker_line[field::kEvent].get<std::string>();
    if (event.starts_with("live.")) continue;  // the worker's word to the coordinator, not a history event
    placed.push_back(
        {worker_line[field::kTime].get<std::int64_t>(), Rank::kWorker, placed.size(), history_fields(worker_line)});
  }
  for (const nlohmann::json& coordinator_line : records.coordinator_lines) {
    placed.push_back({coordinator_line[field::kTime].get<std::int64_t>(), Rank::kCoordinator, placed.size(),
                      history_fields(coordinator_line)});
  }

  std::int64_t last = records.end_ns;
  for (const Placed& event : placed) last = std::max(last, event.t);
  placed.push_back({last, Rank::kRunEnd, placed.size(),
                    Json{{field::kProc, vocabulary::proc::kRun},
                         {field::kEvent, event_kind_name(EventKind::kRunEnd)},
                         {field::kFinal, records.final_values}}});

  std::ranges::sort(placed, [](const Placed& left, const Placed& right) {
    return std::tuple{left.t, left.rank, left.order} < std::tuple{right.t, right.rank, right.order};
  });
  std::vector<std::string> lines;
  lines.reserve(placed.size());
  for (std::size_t index = 0; index < placed.size(); ++index) {
    Json line{{field::kIndex, index}, {field::kTime, std::max<std::int64_t>(0, placed[index].t)}};
    for (const auto& [key, value] : placed[index].line.items()) line[key] = value;
    lines.push_back(line.dump());
  }
  return lines;
}

}  // namespace locksim::live
