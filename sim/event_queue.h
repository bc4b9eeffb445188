#pragma once
// The scheduler's queue: events ordered by (time, sequence number).
//
// The sequence number is taken when an event is scheduled and only grows, so
// events due at the same time run in the order they were scheduled (FIFO, as
// FoundationDB's TaskQueue breaks ties) — never by address or hash. The queue
// is a binary heap over a vector that keeps its capacity: once warmed up, a
// steady simulation schedules without allocating.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "assert.h"
#include "time.h"

namespace locksim::sim {

// What an event does is the simulation's business; the queue only orders it.
struct Event {
  Time at;
  std::uint64_t sequence = 0;
  std::uint32_t kind = 0;    // what to do (the Simulation's QueuedKind)
  std::uint32_t target = 0;  // whom it concerns, e.g. a node index
  std::uint64_t ticket = 0;  // which timer, message or action
};

// push and pop are defined here, inline: the kernel calls each once per
// event, and the call itself was a measurable part of an event's cost.
class EventQueue {
 public:
  // Schedules an event at `at`, after every event already scheduled for `at`.
  void push(Time at, std::uint32_t kind, std::uint32_t target, std::uint64_t ticket) {
    heap_.push_back(Event{at, next_sequence_++, kind, target, ticket});
    std::push_heap(heap_.begin(), heap_.end(), RunsLater{});
  }
  // Removes and returns the earliest event. Requires !empty().
  Event pop() {
    LOCKSIM_ASSERT(!heap_.empty(), "pop from an empty event queue");
    std::pop_heap(heap_.begin(), heap_.end(), RunsLater{});
    const Event earliest = heap_.back();
    heap_.pop_back();
    return earliest;
  }

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  // The time of the earliest event. Requires !empty().
  [[nodiscard]] Time next_time() const { return heap_.front().at; }
  void reserve(std::size_t events) { heap_.reserve(events); }
  void clear() { heap_.clear(); }

 private:
  // std heap functions build a max-heap; "runs later" puts the earliest on top.
  // A function object (not a function pointer) so the heap code inlines it.
  struct RunsLater {
    bool operator()(const Event& a, const Event& b) const {
      if (a.at != b.at) {
        return a.at > b.at;
      }
      return a.sequence > b.sequence;
    }
  };

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace locksim::sim
