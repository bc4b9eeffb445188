#include "live/client_side_leases.h"

#include <algorithm>
#include <map>
#include <optional>

#include "vocabulary/event_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::live {

using vocabulary::EventKind;
using vocabulary::event_kind_name;
namespace field = vocabulary::field;

namespace {

using Json = nlohmann::json;

struct DerivedLease {
  Json token;                  // as the acquire.ok printed it (null: none)
  std::int64_t deadline_ns = 0;  // INT64_MAX: no expiry
  bool releasing = false;        // release.invoke seen: no renewal counts any more
};

// One worker's promises, followed line by line.
class WorkerLeases {
 public:
  WorkerLeases(std::string owner, const ClientSideLeaseInputs& inputs, std::vector<Json>& out)
      : owner_{std::move(owner)}, inputs_{inputs}, out_{out} {}

  void add(const Json& line) {
    const std::string event = line.value(field::kEvent, std::string{});
    const std::int64_t t = line.value(field::kTime, std::int64_t{0});
    const std::string call = line.value(field::kCall, std::string{});
    if (event == event_kind_name(EventKind::kAcquireInvoke) || event == event_kind_name(EventKind::kRenewInvoke) ||
        event == event_kind_name(EventKind::kReleaseInvoke)) {
      invoked_[call] = t;
      if (event == event_kind_name(EventKind::kReleaseInvoke) && open_) open_->releasing = true;
      return;
    }
    const auto invoked = invoked_.find(call);
    if (invoked == invoked_.end()) return;  // a reply to no invoke this process printed
    const std::int64_t invoke_ns = invoked->second;
    if (event == event_kind_name(EventKind::kAcquireOk)) grant(line, invoke_ns, t);
    if (event == event_kind_name(EventKind::kRenewOk)) renew(line, invoke_ns, t);
    if (event == event_kind_name(EventKind::kReleaseOk)) release(invoke_ns + 1);
  }

  void finish() {
    if (open_ && open_->deadline_ns <= inputs_.end_ns) expire(open_->deadline_ns);
    open_.reset();
  }

 private:
  [[nodiscard]] std::int64_t lease_of(const Json& line) const {
    return line.contains(field::kLeaseNs) && line[field::kLeaseNs].is_number_integer()
               ? line[field::kLeaseNs].get<std::int64_t>()
               : inputs_.default_lease_ns;
  }

  void grant(const Json& line, std::int64_t invoke_ns, std::int64_t ok_ns) {
    if (open_) expire(std::min(open_->deadline_ns, ok_ns - 1));  // its own next grant: the old key was gone
    open_.reset();
    const std::int64_t lease_ns = lease_of(line);
    Json event = lease_line(ok_ns, EventKind::kLeaseGrant);
    if (line.contains(field::kToken) && !line[field::kToken].is_null()) event[field::kToken] = line[field::kToken];
    DerivedLease lease{line.value(field::kToken, Json{}), INT64_MAX, false};
    if (lease_ns > 0) {
      const std::int64_t promised = std::max<std::int64_t>(1, invoke_ns + lease_ns - ok_ns);
      event[field::kLeaseNs] = promised;
      lease.deadline_ns = ok_ns + promised;
    }
    out_.push_back(std::move(event));
    open_ = std::move(lease);
  }

  void renew(const Json& line, std::int64_t invoke_ns, std::int64_t ok_ns) {
    if (!open_ || open_->releasing || open_->deadline_ns == INT64_MAX) return;
    if (open_->deadline_ns <= ok_ns) {
      expire(open_->deadline_ns);  // ran out by the derived deadline: a renewal cannot revive it here
      open_.reset();
      return;
    }
    const std::int64_t deadline = invoke_ns + lease_of(line);
    if (deadline <= open_->deadline_ns) return;
    open_->deadline_ns = deadline;
    Json event = lease_line(ok_ns, EventKind::kLeaseRenew);
    with_token(event);
    event[field::kLeaseNs] = deadline - ok_ns;
    out_.push_back(std::move(event));
  }

  void release(std::int64_t effect_ns) {
    if (!open_) return;
    if (open_->deadline_ns <= effect_ns) {
      expire(open_->deadline_ns);
    } else {
      Json event = lease_line(effect_ns, EventKind::kLeaseRelease);
      with_token(event);
      event[field::kBy] = owner_;
      out_.push_back(std::move(event));
    }
    open_.reset();
  }

  void expire(std::int64_t t) {
    Json event = lease_line(t, EventKind::kLeaseExpire);
    with_token(event);
    out_.push_back(std::move(event));
  }

  [[nodiscard]] Json lease_line(std::int64_t t, EventKind event) const {
    return Json{{field::kTime, t},
                {field::kProc, inputs_.instance},
                {field::kEvent, event_kind_name(event)},
                {field::kLock, inputs_.lock_name},
                {field::kOwner, owner_}};
  }
  void with_token(Json& event) const {
    if (!open_->token.is_null()) event[field::kToken] = open_->token;
  }

  std::string owner_;
  const ClientSideLeaseInputs& inputs_;
  std::vector<Json>& out_;
  std::map<std::string, std::int64_t> invoked_;  // call → its invoke's t
  std::optional<DerivedLease> open_;
};

}  // namespace

std::vector<Json> client_side_leases(const std::vector<Json>& worker_lines, const ClientSideLeaseInputs& inputs) {
  std::vector<Json> out;
  std::map<std::string, WorkerLeases> workers;
  for (const Json& line : worker_lines) {
    const std::string owner = line.value(field::kProc, std::string{});
    auto worker = workers.find(owner);
    if (worker == workers.end()) worker = workers.emplace(owner, WorkerLeases{owner, inputs, out}).first;
    worker->second.add(line);
  }
  for (auto& [owner, worker] : workers) worker.finish();
  return out;
}

}  // namespace locksim::live
