#pragma once
// The honest reference for bench/pipeline_bench (issue 32): one run of a
// plain counter scenario (a single Redis lock, SET NX PX and
// compare-and-delete, a read, the work and a write per job) simulated by
// code written for exactly that and nothing else, doing the same work per
// history event as locksim's pipeline:
// - a binary heap of timed events; every message takes a draw of the
//   scenario's network delay (its own Distribution, lognormal through libm),
//   kept in send order per link; every node's clock drifts by a per-node
//   draw within ±drift_ppm, and deadlines are read on it;
// - every call arms its own timeout (a heap entry, dropped when it fires
//   after the reply); every grant arms its lease's expiry on the server;
// - every history event is a 48-byte typed record, appended and hashed;
// - the checks run inline on the records: double grants, double holders,
//   stale writes, foreign releases, lost updates and stuck locks.
// No coroutine, no text, no string key: the limit a simulator of this one
// scenario reaches, which locksim's general pipeline is measured against.

#include <cstdint>
#include <queue>
#include <vector>

#include "scenario/scenario.h"
#include "sim/random.h"

namespace locksim::bench {

struct ReferenceRun {
  std::uint64_t history_events = 0;
  std::uint64_t heap_events = 0;
  std::uint64_t history_hash = 0;
  std::int64_t violations = 0;  // of the six checks, summed
};

class SameWorkReference {
 public:
  // The counter scenario's numbers: workers, jobs, lease, work, retry,
  // start, request timeout, network delay and drift (a Redis service with
  // no faults; fencing and everything else as in the file).
  explicit SameWorkReference(const scenario::Scenario& scenario);

  ReferenceRun run(std::uint64_t seed, bool fencing);

  // One history event: 48 bytes, as the reference records it.
  struct Record {
    std::int64_t t = 0;
    std::int64_t local_t = 0;
    std::int64_t token = 0;
    std::int64_t value = 0;
    std::int32_t key = 0;
    std::uint8_t proc = 0;
    std::uint8_t kind = 0;
    std::uint16_t other = 0;  // the owner or writer it names
    std::int64_t lease_ns = 0;
  };
  static_assert(sizeof(Record) == 48);

 private:
  struct Event {
    std::int64_t time = 0;
    std::uint64_t sequence = 0;
    std::uint32_t kind = 0;
    std::uint32_t node = 0;
    std::int64_t a = 0;  // the call, the token, the value: the kind says
    std::int64_t b = 0;
    bool operator>(const Event& other) const {
      return time != other.time ? time > other.time : sequence > other.sequence;
    }
  };
  struct Worker {
    int jobs_left = 0;
    std::uint64_t call = 0;  // the call awaiting its reply (0: none)
    std::uint32_t request = 0;  // what that call asked
    std::int64_t token = 0;
    std::int64_t read_value = 0;
    std::int64_t lease_end_local = 0;
  };
  void schedule(std::int64_t time, std::uint32_t kind, std::uint32_t node, std::int64_t a = 0, std::int64_t b = 0);
  void send(std::uint32_t from, std::uint32_t to, std::uint32_t kind, std::int64_t a, std::int64_t b);
  std::uint64_t call(std::uint32_t worker, std::uint32_t to, std::uint32_t kind, std::int64_t a, std::int64_t b);
  [[nodiscard]] std::int64_t local(std::uint32_t node, std::int64_t t) const;
  [[nodiscard]] std::int64_t true_time_after(std::uint32_t node, std::int64_t t, std::int64_t local_delay) const;
  void record(const Record& record);
  void handle(const Event& event, bool fencing);
  void worker_event(const Event& event, bool fencing);
  void server_event(const Event& event);
  void storage_event(const Event& event, bool fencing);
  void start_acquire(std::uint32_t worker);
  void end_hold(std::uint32_t worker);  // hold.end, then the release

  scenario::Scenario scenario_;
  int workers_ = 0;
  int jobs_ = 0;
  std::int64_t lease_ns_ = 0;
  std::int64_t timeout_ns_ = 0;

  // One run's state, kept across runs for its buffers.
  sim::Rng rng_{1};
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::vector<Record> history_;
  std::vector<std::int64_t> drift_ppb_;
  std::vector<std::int64_t> link_last_;  // last arrival per (from, to)
  std::vector<Worker> worker_state_;
  std::uint64_t sequence_ = 0;
  std::uint64_t next_call_ = 0;
  std::int64_t now_ = 0;
  std::uint64_t hash_ = 0;
  std::uint64_t heap_events_ = 0;
  // The server's key and counter, storage's value and highest token.
  int holder_ = -1;
  std::int64_t held_token_ = 0;
  std::int64_t deadline_local_ = 0;
  std::int64_t counter_ = 0;
  std::int64_t stored_ = 0;
  std::int64_t highest_token_ = 0;
  std::int64_t accepted_writes_ = 0;
  // The checks: violations per kind, the promised lease, the open hold,
  // the highest token a holder read with.
  std::vector<std::int64_t> checks_;
  std::int64_t promised_token_ = 0;
  std::int64_t promised_until_ = 0;
  int holding_ = -1;
  std::int64_t highest_read_token_ = 0;
};

}  // namespace locksim::bench
