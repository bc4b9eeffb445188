#include "bench/same_work_reference.h"

#include <algorithm>
#include <variant>

namespace locksim::bench {
namespace {

// What a heap entry does (the node it is for is the entry's).
enum Kind : std::uint32_t {
  kStart,  // a worker begins its first job
  kRetry,
  kWorkDone,
  kTimeout,  // a = the call
  // Replies, at the worker: a = the call, b = the answer.
  kAcquireReply,
  kReadReply,
  kWriteReply,
  kReleaseReply,
  // Requests, at the server or storage: a = the call, b = the worker, c = token or value.
  kAcquireRequest,
  kReleaseRequest,
  kExpire,  // at the server: a = the token
  kReadRequest,
  kWriteRequest,
};

// History event kinds, as the records carry them.
enum RecordKind : std::uint8_t {
  kRunBegin,
  kAcquireInvoke,
  kAcquireOk,
  kAcquireFail,
  kHoldBegin,
  kHoldEnd,
  kReadInvoke,
  kReadOk,
  kReadFail,
  kWriteInvoke,
  kWriteOk,
  kWriteFail,
  kReleaseInvoke,
  kReleaseOk,
  kReleaseFail,
  kLeaseGrant,
  kLeaseRelease,
  kLeaseExpire,
  kReadAccept,
  kWriteAccept,
  kWriteReject,
  kRunEnd,
};

// The six checks, indexing the violation counts.
enum Check { kDoubleGrant, kDoubleHolder, kStaleWrite, kForeignRelease, kLostUpdate, kStuckLock, kChecks };

constexpr std::int64_t kBillion = 1'000'000'000;

std::uint64_t mix(std::uint64_t hash, std::uint64_t word) {
  hash ^= word + 0x9E3779B97F4A7C15ULL + (hash << 6) + (hash >> 2);
  return hash * 0xBF58476D1CE4E5B9ULL;
}

std::int64_t ns(sim::Duration duration) { return duration.count_ns(); }

// The reply a request waits for; a timeout stands in for it, answering no
// (a read's "no" is -1: 0 is a value).
std::uint32_t reply_to(std::uint32_t request) {
  switch (request) {
    case kAcquireRequest: return kAcquireReply;
    case kReadRequest: return kReadReply;
    case kWriteRequest: return kWriteReply;
    default: return kReleaseReply;
  }
}

}  // namespace

SameWorkReference::SameWorkReference(const scenario::Scenario& scenario) : scenario_{scenario} {
  const model::SystemOptions& system = scenario.system;
  workers_ = system.workers.count;
  jobs_ = std::get<model::CounterWorkload>(system.workload).jobs;
  lease_ns_ = ns(*system.lock.lease);
  timeout_ns_ = ns(system.service.request_timeout);
}

std::int64_t SameWorkReference::local(std::uint32_t node, std::int64_t t) const {
  return t + t * drift_ppb_[node] / kBillion;
}

std::int64_t SameWorkReference::true_time_after(std::uint32_t node, std::int64_t t, std::int64_t local_delay) const {
  return t + local_delay - local_delay * drift_ppb_[node] / (kBillion + drift_ppb_[node]);
}

void SameWorkReference::schedule(std::int64_t time, std::uint32_t kind, std::uint32_t node, std::int64_t a,
                                 std::int64_t b) {
  queue_.push(Event{time, sequence_++, kind, node, a, b});
}

void SameWorkReference::send(std::uint32_t from, std::uint32_t to, std::uint32_t kind, std::int64_t a,
                             std::int64_t b) {
  const std::size_t nodes = drift_ppb_.size();
  std::int64_t& last = link_last_[from * nodes + to];
  const std::int64_t arrival = std::max(now_ + ns(scenario_.network.delay.sample(rng_)), last);
  last = arrival;
  schedule(arrival, kind, to, a, b);
}

std::uint64_t SameWorkReference::call(std::uint32_t worker, std::uint32_t to, std::uint32_t kind, std::int64_t a,
                                      std::int64_t b) {
  const std::uint64_t id = ++next_call_;
  worker_state_[worker].call = id;
  worker_state_[worker].request = kind;
  // The request names its call and its worker; `a` and `b` ride along packed into the event's two words.
  send(worker, to, kind, static_cast<std::int64_t>(id) << 8 | worker, a * 1'000'000 + b);
  schedule(true_time_after(worker, now_, timeout_ns_), kTimeout, worker, static_cast<std::int64_t>(id));
  return id;
}

void SameWorkReference::record(const Record& record) {
  history_.push_back(record);
  std::uint64_t hash = hash_;
  hash = mix(hash, static_cast<std::uint64_t>(record.t));
  hash = mix(hash, static_cast<std::uint64_t>(record.local_t));
  hash = mix(hash, static_cast<std::uint64_t>(record.token));
  hash = mix(hash, static_cast<std::uint64_t>(record.value));
  hash = mix(hash, static_cast<std::uint64_t>(record.key) << 24 | std::uint64_t{record.proc} << 16 |
                       std::uint64_t{record.kind} << 8 | record.other);
  hash_ = mix(hash, static_cast<std::uint64_t>(record.lease_ns));
}

void SameWorkReference::start_acquire(std::uint32_t worker) {
  record({.t = now_, .proc = static_cast<std::uint8_t>(worker), .kind = kAcquireInvoke});
  worker_state_[worker].lease_end_local = local(worker, now_) + lease_ns_;
  call(worker, static_cast<std::uint32_t>(workers_), kAcquireRequest, 0, 0);
}

ReferenceRun SameWorkReference::run(std::uint64_t seed, bool fencing) {
  rng_ = sim::Rng{seed};
  const std::size_t nodes = static_cast<std::size_t>(workers_) + 2;  // the workers, the server, storage
  drift_ppb_.assign(nodes, 0);
  for (std::int64_t& drift : drift_ppb_) drift = rng_.between(-scenario_.drift_ppm * 1000, scenario_.drift_ppm * 1000);
  link_last_.assign(nodes * nodes, 0);
  worker_state_.assign(static_cast<std::size_t>(workers_), Worker{jobs_});
  history_.clear();
  checks_.assign(kChecks, 0);
  sequence_ = next_call_ = heap_events_ = hash_ = 0;
  now_ = 0;
  holder_ = -1;
  held_token_ = deadline_local_ = counter_ = stored_ = highest_token_ = accepted_writes_ = 0;
  promised_token_ = promised_until_ = highest_read_token_ = 0;
  holding_ = -1;

  record({.kind = kRunBegin});
  for (std::uint32_t worker = 0; worker < static_cast<std::uint32_t>(workers_); ++worker) {
    schedule(ns(scenario_.system.workers.start.sample(rng_)), kStart, worker);
  }
  while (!queue_.empty()) {
    const Event event = queue_.top();
    queue_.pop();
    now_ = event.time;
    ++heap_events_;
    handle(event, fencing);
  }
  if (accepted_writes_ != stored_) ++checks_[kLostUpdate];
  if (holder_ != -1) ++checks_[kStuckLock];  // every lease expires: one still held is stuck
  record({.t = now_, .value = stored_, .kind = kRunEnd});

  ReferenceRun result;
  result.history_events = history_.size();
  result.heap_events = heap_events_;
  result.history_hash = hash_;
  for (const std::int64_t count : checks_) result.violations += count;

  return result;
}

void SameWorkReference::handle(const Event& event, bool fencing) {
  if (event.node < static_cast<std::uint32_t>(workers_)) {
    worker_event(event, fencing);
  } else if (event.node == static_cast<std::uint32_t>(workers_)) {
    server_event(event);
  } else {
    storage_event(event, fencing);
  }
}

void SameWorkReference::worker_event(const Event& event, bool fencing) {
  const std::uint32_t me = event.node;
  Worker& worker = worker_state_[me];
  const auto proc = static_cast<std::uint8_t>(me);
  const std::uint32_t server = static_cast<std::uint32_t>(workers_);
  const std::uint32_t storage = server + 1;
  switch (event.kind) {
    case kStart:
    case kRetry: start_acquire(me); return;
    case kTimeout:
      if (worker.call != static_cast<std::uint64_t>(event.a)) return;  // answered in time
      // No answer in time: the call failed, as its reply saying no would have.
      worker_event(Event{now_, 0, reply_to(worker.request), me, event.a, worker.request == kReadRequest ? -1 : 0},
                   fencing);
      return;
    case kWorkDone:
      worker.read_value += 1;
      record({.t = now_, .token = fencing ? worker.token : 0, .value = worker.read_value, .proc = proc,
              .kind = kWriteInvoke});
      call(me, storage, kWriteRequest, worker.token, worker.read_value);
      return;
    default: break;
  }
  if (worker.call != static_cast<std::uint64_t>(event.a)) return;  // a reply after its timeout
  worker.call = 0;
  switch (event.kind) {
    case kAcquireReply:
      if (event.b == 0) {
        record({.t = now_, .proc = proc, .kind = kAcquireFail});
        schedule(true_time_after(me, now_, ns(scenario_.system.workers.retry.sample(rng_))), kRetry, me);
        return;
      }
      worker.token = event.b;
      record({.t = now_, .local_t = local(me, now_), .token = worker.token, .proc = proc, .kind = kAcquireOk,
              .lease_ns = lease_ns_});
      record({.t = now_, .token = worker.token, .proc = proc, .kind = kHoldBegin});
      if (holding_ != -1) ++checks_[kDoubleHolder];
      holding_ = static_cast<int>(me);
      record({.t = now_, .proc = proc, .kind = kReadInvoke});
      call(me, storage, kReadRequest, worker.token, 0);
      return;
    case kReadReply:
      if (event.b < 0) {  // it timed out: the job's hold ends unwritten
        record({.t = now_, .proc = proc, .kind = kReadFail});
        end_hold(me);
        return;
      }
      worker.read_value = event.b;
      record({.t = now_, .value = event.b, .proc = proc, .kind = kReadOk});
      schedule(true_time_after(me, now_, ns(scenario_.system.workers.work.sample(rng_))), kWorkDone, me);
      return;
    case kWriteReply:
      record({.t = now_, .proc = proc, .kind = event.b != 0 ? kWriteOk : kWriteFail});
      end_hold(me);
      return;
    case kReleaseReply:
      record({.t = now_, .proc = proc, .kind = event.b != 0 ? kReleaseOk : kReleaseFail});
      if (--worker.jobs_left > 0) start_acquire(me);
      return;
    default: return;
  }
}

void SameWorkReference::end_hold(std::uint32_t worker) {
  const auto proc = static_cast<std::uint8_t>(worker);
  const std::int64_t token = worker_state_[worker].token;
  record({.t = now_, .token = token, .proc = proc, .kind = kHoldEnd});
  if (holding_ == static_cast<int>(worker)) holding_ = -1;
  record({.t = now_, .token = token, .proc = proc, .kind = kReleaseInvoke});
  call(worker, static_cast<std::uint32_t>(workers_), kReleaseRequest, token, 0);
}

void SameWorkReference::server_event(const Event& event) {
  const auto proc = static_cast<std::uint8_t>(workers_);
  const std::uint32_t worker = static_cast<std::uint32_t>(event.a & 0xFF);
  const std::int64_t token = event.b / 1'000'000;
  const std::int64_t server_now = local(event.node, now_);
  if (holder_ != -1 && server_now >= deadline_local_) {
    record({.t = now_, .token = held_token_, .proc = proc, .kind = kLeaseExpire,
            .other = static_cast<std::uint16_t>(holder_)});
    holder_ = -1;
    promised_token_ = 0;
  }
  switch (event.kind) {
    case kAcquireRequest: {
      std::int64_t granted = 0;
      if (holder_ == -1) {
        granted = held_token_ = ++counter_;
        holder_ = static_cast<int>(worker);
        deadline_local_ = server_now + lease_ns_;
        record({.t = now_, .token = granted, .proc = proc, .kind = kLeaseGrant,
                .other = static_cast<std::uint16_t>(worker), .lease_ns = lease_ns_});
        if (promised_token_ != 0 && promised_until_ > now_) ++checks_[kDoubleGrant];
        promised_token_ = granted;
        promised_until_ = now_ + lease_ns_;
        schedule(true_time_after(event.node, now_, lease_ns_), kExpire, event.node, granted);
      }
      send(event.node, worker, kAcquireReply, event.a >> 8, granted);
      return;
    }
    case kReleaseRequest: {
      const bool mine = holder_ == static_cast<int>(worker) && held_token_ == token;
      if (mine) {
        record({.t = now_, .token = token, .proc = proc, .kind = kLeaseRelease,
                .other = static_cast<std::uint16_t>(worker)});
        if (holder_ != static_cast<int>(worker)) ++checks_[kForeignRelease];
        holder_ = -1;
        promised_token_ = 0;
      }
      send(event.node, worker, kReleaseReply, event.a >> 8, mine ? 1 : 0);
      return;
    }
    default: return;  // kExpire: done above when due
  }
}

void SameWorkReference::storage_event(const Event& event, bool fencing) {
  const auto proc = static_cast<std::uint8_t>(workers_ + 1);
  const std::uint32_t worker = static_cast<std::uint32_t>(event.a & 0xFF);
  const std::int64_t token = event.b / 1'000'000;
  const std::int64_t value = event.b % 1'000'000;
  if (event.kind == kReadRequest) {
    record({.t = now_, .proc = proc, .kind = kReadAccept, .other = static_cast<std::uint16_t>(worker)});
    highest_read_token_ = std::max(highest_read_token_, token);
    send(event.node, worker, kReadReply, event.a >> 8, stored_);
    return;
  }
  if (fencing && token < highest_token_) {
    record({.t = now_, .token = token, .value = value, .proc = proc, .kind = kWriteReject,
            .other = static_cast<std::uint16_t>(worker)});
    send(event.node, worker, kWriteReply, event.a >> 8, 0);
    return;
  }
  highest_token_ = std::max(highest_token_, token);
  if (token < highest_read_token_) ++checks_[kStaleWrite];
  stored_ = value;
  ++accepted_writes_;
  record({.t = now_, .token = fencing ? token : 0, .value = value, .proc = proc, .kind = kWriteAccept,
          .other = static_cast<std::uint16_t>(worker)});
  send(event.node, worker, kWriteReply, event.a >> 8, 1);
}

}  // namespace locksim::bench
