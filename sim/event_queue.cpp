#include "event_queue.h"

#include <algorithm>

#include "assert.h"

namespace locksim::sim {
namespace {

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

}  // namespace

void EventQueue::push(Time at, std::uint32_t kind, std::uint32_t target, std::uint64_t ticket) {
  heap_.push_back(Event{at, next_sequence_++, kind, target, ticket});
  std::push_heap(heap_.begin(), heap_.end(), RunsLater{});
}

Event EventQueue::pop() {
  LOCKSIM_ASSERT(!heap_.empty(), "pop from an empty event queue");
  std::pop_heap(heap_.begin(), heap_.end(), RunsLater{});
  const Event earliest = heap_.back();
  heap_.pop_back();
  return earliest;
}

}  // namespace locksim::sim
