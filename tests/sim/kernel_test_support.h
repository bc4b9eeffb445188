#pragma once
// Small processes and a log shared by the kernel tests. Coroutines are free
// functions taking everything by value (pointers to the test's log included):
// a capturing lambda coroutine would dangle.

#include <string>
#include <utility>
#include <vector>

#include "sim/simulation.h"

namespace locksim::sim::testing {

struct Ping {
  int number = 0;
};

// What the test processes saw, in the order they saw it, with true times.
struct Log {
  std::vector<std::pair<Time, std::string>> entries;
  void add(const Simulation& simulation, std::string text) { entries.emplace_back(simulation.now(), std::move(text)); }
  std::vector<std::string> texts() const {
    std::vector<std::string> result;
    for (const auto& entry : entries) result.push_back(entry.second);
    return result;
  }
  Time time_of(const std::string& text) const {
    for (const auto& entry : entries) {
      if (entry.second == text) return entry.first;
    }
    return Time::max();
  }
};

// Options with a constant one-way network delay, so times are exact.
inline SimulationOptions fixed_delay(Duration delay) {
  SimulationOptions options;
  options.network.delay = Distribution::constant(delay);
  return options;
}

// Replies to every Ping with the same Ping, after `think` on its own clock.
inline Task<> echo_server(Context context, Duration think) {
  while (true) {
    Message request = co_await context.receive();
    if (think > Duration::zero()) {
      co_await context.sleep(think);
    }
    context.reply(request, request.body);
  }
}

// Logs "<label>:<n>" for every Ping received.
inline Task<> logging_receiver(Context context, const Simulation* simulation, Log* log, std::string label) {
  while (true) {
    Message message = co_await context.receive();
    log->add(*simulation, label + ":" + std::to_string(message.body.get<Ping>().number));
  }
}

// Sleeps `length` on its node's clock, then logs `label`.
inline Task<> log_after_sleep(Context context, const Simulation* simulation, Log* log, Duration length,
                              std::string label) {
  co_await context.sleep(length);
  log->add(*simulation, label);
}

// Calls `peer` with a Ping forever, one call at a time, without a timeout.
inline Task<> ping_forever(Context context, NodeId peer) {
  for (int number = 0;; ++number) {
    std::optional<Message> reply = co_await context.call(peer, Ping{number}, Duration::max());
    (void)reply;
  }
}

// `count` nodes, each an echo server and a client pinging the next node in a
// ring: a steady load of 2·count messages in flight per round trip. Used by
// the memory test and the kernel benchmark.
inline void add_ping_pong_ring(Simulation& simulation, int count) {
  for (int index = 0; index < count; ++index) {
    const NodeId peer{static_cast<std::uint32_t>((index + 1) % count)};
    simulation.add_node("node-" + std::to_string(index), [peer](Context context) {
      context.spawn("echo", echo_server(context, Duration::zero()));
      context.spawn("client", ping_forever(context, peer));
    });
  }
}

}  // namespace locksim::sim::testing
