// A long run holds memory flat: once warmed up, the kernel schedules, sends
// and resumes without allocating. This test replaces the global operator new
// to count allocations, so it is its own executable.
#include <atomic>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "sim/simulation.h"

namespace {
std::atomic<std::uint64_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* memory = std::malloc(size == 0 ? 1 : size)) {
    return memory;
  }
  throw std::bad_alloc{};
}
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

namespace locksim::sim {
namespace {

using namespace literals;

TEST(Memory, AMillionEventRunAllocatesNothingAfterWarmUp) {
  SimulationOptions options;
  options.network.delay = Distribution::log_normal(1_ms, 5_ms);
  Simulation simulation{options};
  testing::add_ping_pong_ring(simulation, 16);

  simulation.set_time_limit(Time{} + 10_s);
  const RunOutcome warm = simulation.run();
  const std::uint64_t allocations_after_warm_up = allocations.load();

  simulation.set_time_limit(Time{} + 10'000_s);
  RunOutcome outcome{};
  while (outcome.events < warm.events + 1'000'000) {
    simulation.set_time_limit(simulation.now() + 100_s);
    outcome = simulation.run();
  }
  EXPECT_EQ(outcome.reason, StopReason::kTimeLimit);
  EXPECT_GE(outcome.events - warm.events, 1'000'000u);
  EXPECT_EQ(allocations.load(), allocations_after_warm_up);
}

TEST(Memory, TheCountingAllocatorSeesAllocations) {
  // Guards the test above against a counter that never counts.
  const std::uint64_t before = allocations.load();
  auto* value = new int{5};
  EXPECT_GT(allocations.load(), before);
  delete value;
}

}  // namespace
}  // namespace locksim::sim
