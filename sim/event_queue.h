#pragma once
// The scheduler's queue: events ordered by (time, sequence number).
//
// The sequence number is taken when an event is scheduled and only grows, so
// events due at the same time run in the order they were scheduled (FIFO, as
// FoundationDB's TaskQueue breaks ties) — never by address or hash. The queue
// is a binary heap over a vector that keeps its capacity: once warmed up, a
// steady simulation schedules without allocating.

#include <cstdint>
#include <vector>

#include "time.h"

namespace locksim::sim {

// What an event does is the simulation's business; the queue only orders it.
struct Event {
  Time at;
  std::uint64_t sequence = 0;
  std::uint32_t kind = 0;    // what to do (the Simulation's EventKind)
  std::uint32_t target = 0;  // whom it concerns, e.g. a node index
  std::uint64_t ticket = 0;  // which timer, message or action
};

class EventQueue {
 public:
  // Schedules an event at `at`, after every event already scheduled for `at`.
  void push(Time at, std::uint32_t kind, std::uint32_t target, std::uint64_t ticket);
  // Removes and returns the earliest event. Requires !empty().
  Event pop();

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  // The time of the earliest event. Requires !empty().
  [[nodiscard]] Time next_time() const { return heap_.front().at; }
  void reserve(std::size_t events) { heap_.reserve(events); }
  void clear() { heap_.clear(); }

 private:
  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace locksim::sim
