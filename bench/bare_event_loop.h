#pragma once
// The floor that the pipeline benchmarks compare against: the cheapest
// possible discrete-event loop — a std::priority_queue of events the size
// of the kernel's (32 bytes, ordered by time then sequence), popping one and
// pushing one, with as many pending as a small scenario keeps. No
// processes, no messages, no history: the cost of one heap operation per
// event, which is what a simulator cannot go below.

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include <benchmark/benchmark.h>

namespace locksim::bench {

// The kernel's event: (time, sequence) then what and whom it concerns.
struct BareEvent {
  std::int64_t time = 0;
  std::uint64_t sequence = 0;
  std::uint32_t kind = 0;
  std::uint32_t target = 0;
  std::uint64_t ticket = 0;

  friend bool operator>(const BareEvent& left, const BareEvent& right) {
    return left.time != right.time ? left.time > right.time : left.sequence > right.sequence;
  }
};
static_assert(sizeof(BareEvent) == 32);

constexpr std::uint64_t kBareEventsPerBatch = 1'000'000;
// About as many events as a small scenario keeps pending (timers and messages
// of a few workers and one service).
constexpr std::uint64_t kBarePendingEvents = 16;

// The floor: no processes, no messages, no history; just the heap.
inline void bare_event_loop(benchmark::State& state) {
  std::priority_queue<BareEvent, std::vector<BareEvent>, std::greater<>> queue;
  std::uint64_t sequence = 0;
  for (std::uint64_t index = 0; index < kBarePendingEvents; ++index) {
    queue.push({0, sequence++, 0, static_cast<std::uint32_t>(index), index});
  }
  std::uint64_t events = 0;
  for (auto _ : state) {
    for (std::uint64_t step = 0; step < kBareEventsPerBatch; ++step) {
      const BareEvent earliest = queue.top();
      queue.pop();
      // A varied delay, so the heap does real reordering.
      const std::int64_t delay = 1'000'000 + static_cast<std::int64_t>((sequence * 7919) % 1000) * 1'000;
      queue.push({earliest.time + delay, sequence++, earliest.kind, earliest.target, earliest.ticket + 1});
    }
    events += kBareEventsPerBatch;
    benchmark::DoNotOptimize(queue.top());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

}  // namespace locksim::bench
