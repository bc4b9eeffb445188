// Kernel throughput: events per second on a message ping-pong ring of N
// nodes, next to the cheapest possible event loop (a std::priority_queue of
// (time, sequence) pairs, popping one and pushing one) with the same number
// of pending events. Like the kernel, the baseline does one pop and one push
// per event: every delivery in the ring sends exactly one message. The ratio
// kernel / baseline is printed at the end.
//
//   build/bench/kernel_bench
#include <cstdint>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include "bench/rate_reporter.h"
#include "sim/simulation.h"
#include "tests/sim/kernel_test_support.h"

namespace {

using locksim::sim::Distribution;
using locksim::sim::Duration;
using locksim::sim::Simulation;
using locksim::sim::SimulationOptions;
using locksim::sim::Time;

constexpr std::uint64_t kEventsPerBatch = 1'000'000;

void kernel_ping_pong(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  SimulationOptions options;
  options.network.delay = Distribution::constant(Duration::milliseconds(1));
  options.time_limit = Duration::max();
  Simulation simulation{options};
  locksim::sim::testing::add_ping_pong_ring(simulation, nodes);
  std::uint64_t events = 0;
  for (auto _ : state) {
    const std::uint64_t before = simulation.events_processed();
    // Run until another batch of events has been processed.
    while (simulation.events_processed() - before < kEventsPerBatch) {
      simulation.set_time_limit(simulation.now() + Duration::milliseconds(100));
      benchmark::DoNotOptimize(simulation.run());
    }
    events += simulation.events_processed() - before;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

// The floor: no processes, no messages, no nodes; just the heap.
void baseline_priority_queue(benchmark::State& state) {
  using Entry = std::pair<std::int64_t, std::uint64_t>;  // (time, sequence)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  std::uint64_t sequence = 0;
  // As many pending events as the ring keeps: each node's client has one call
  // outstanding (its request or the reply is in flight), so N events for N
  // nodes. (It used to keep 2N: a deeper heap than the kernel's, which flattered the kernel.)
  for (std::int64_t index = 0; index < state.range(0); ++index) {
    queue.emplace(0, sequence++);
  }
  std::uint64_t events = 0;
  for (auto _ : state) {
    for (std::uint64_t step = 0; step < kEventsPerBatch; ++step) {
      const Entry earliest = queue.top();
      queue.pop();
      queue.emplace(earliest.first + 1'000'000, sequence++);
    }
    events += kEventsPerBatch;
    benchmark::DoNotOptimize(queue.top());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events));
}

BENCHMARK(kernel_ping_pong)->Arg(2)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(baseline_priority_queue)->Arg(2)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond);

void print_ratios(const locksim::bench::RateReporter& reporter) {
  for (const char* nodes : {"2", "16", "256"}) {
    const std::optional<double> kernel = reporter.rate(fmt::format("kernel_ping_pong/{}", nodes));
    const std::optional<double> baseline = reporter.rate(fmt::format("baseline_priority_queue/{}", nodes));
    if (kernel && baseline) {
      fmt::print("N={:>3}: kernel {:.2f} M events/s, baseline {:.2f} M events/s, ratio {:.0f} %\n", nodes, *kernel / 1e6,
                 *baseline / 1e6, 100.0 * *kernel / *baseline);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  locksim::bench::RateReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  print_ratios(reporter);
  benchmark::Shutdown();
  return 0;
}
