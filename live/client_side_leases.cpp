#include "live/client_side_leases.h"

#include <algorithm>
#include <map>
#include <optional>

namespace locksim::live {
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
    const std::string event = line.value("ev", std::string{});
    const std::int64_t t = line.value("t", std::int64_t{0});
    const std::string call = line.value("call", std::string{});
    if (event == "acquire.invoke" || event == "renew.invoke" || event == "release.invoke") {
      invoked_[call] = t;
      if (event == "release.invoke" && open_) open_->releasing = true;
      return;
    }
    const auto invoked = invoked_.find(call);
    if (invoked == invoked_.end()) return;  // a reply to no invoke this process printed
    const std::int64_t invoke_ns = invoked->second;
    if (event == "acquire.ok") grant(line, invoke_ns, t);
    if (event == "renew.ok") renew(line, invoke_ns, t);
    if (event == "release.ok") release(invoke_ns + 1);
  }

  void finish() {
    if (open_ && open_->deadline_ns <= inputs_.end_ns) expire(open_->deadline_ns);
    open_.reset();
  }

 private:
  [[nodiscard]] std::int64_t lease_of(const Json& line) const {
    return line.contains("lease_ns") && line["lease_ns"].is_number_integer() ? line["lease_ns"].get<std::int64_t>()
                                                                             : inputs_.default_lease_ns;
  }

  void grant(const Json& line, std::int64_t invoke_ns, std::int64_t ok_ns) {
    if (open_) expire(std::min(open_->deadline_ns, ok_ns - 1));  // its own next grant: the old key was gone
    open_.reset();
    const std::int64_t lease_ns = lease_of(line);
    Json event = lease_line(ok_ns, "lease.grant");
    if (line.contains("token") && !line["token"].is_null()) event["token"] = line["token"];
    DerivedLease lease{line.value("token", Json{}), INT64_MAX, false};
    if (lease_ns > 0) {
      const std::int64_t promised = std::max<std::int64_t>(1, invoke_ns + lease_ns - ok_ns);
      event["lease_ns"] = promised;
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
    Json event = lease_line(ok_ns, "lease.renew");
    with_token(event);
    event["lease_ns"] = deadline - ok_ns;
    out_.push_back(std::move(event));
  }

  void release(std::int64_t effect_ns) {
    if (!open_) return;
    if (open_->deadline_ns <= effect_ns) {
      expire(open_->deadline_ns);
    } else {
      Json event = lease_line(effect_ns, "lease.release");
      with_token(event);
      event["by"] = owner_;
      out_.push_back(std::move(event));
    }
    open_.reset();
  }

  void expire(std::int64_t t) {
    Json event = lease_line(t, "lease.expire");
    with_token(event);
    out_.push_back(std::move(event));
  }

  [[nodiscard]] Json lease_line(std::int64_t t, const char* event) const {
    return Json{{"t", t}, {"proc", inputs_.instance}, {"ev", event}, {"lock", inputs_.lock_name}, {"owner", owner_}};
  }
  void with_token(Json& event) const {
    if (!open_->token.is_null()) event["token"] = open_->token;
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
    const std::string owner = line.value("proc", std::string{});
    auto worker = workers.find(owner);
    if (worker == workers.end()) worker = workers.emplace(owner, WorkerLeases{owner, inputs, out}).first;
    worker->second.add(line);
  }
  for (auto& [owner, worker] : workers) worker.finish();
  return out;
}

}  // namespace locksim::live
