#include "sim/network.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "kernel_test_support.h"
#include "sim/simulation.h"

namespace locksim::sim {
namespace {

using namespace literals;
using testing::Log;
using testing::Ping;

constexpr NodeId kA{0};
constexpr NodeId kB{1};
constexpr NodeId kC{2};

Network three_node_network(NetworkOptions options) {
  Network network{std::move(options), Rng{1}};
  network.resize(3);
  return network;
}

TEST(Network, APartitionCutsOnlyTheCutLinksBothWaysUntilHealed) {
  for (const PartitionEffect effect : {PartitionEffect::kTcpRetransmits, PartitionEffect::kDrop}) {
    NetworkOptions options;
    options.partition_effect = effect;
    Network network = three_node_network(options);
    const PartitionId cut = network.cut({kA}, {kB});
    const bool held = effect == PartitionEffect::kTcpRetransmits;
    for (const auto& [from, to] : {std::pair{kA, kB}, std::pair{kB, kA}}) {
      const Network::Route route = network.route(from, to, Time{});
      EXPECT_FALSE(route.arrival.has_value());
      EXPECT_EQ(route.held, held);
    }
    EXPECT_TRUE(network.route(kA, kC, Time{}).arrival.has_value());
    EXPECT_TRUE(network.route(kB, kC, Time{}).arrival.has_value());
    network.heal(cut);
    EXPECT_TRUE(network.route(kA, kB, Time{}).arrival.has_value());
  }
}

TEST(Network, AReconnectStartsANewConnectionBothWaysAndOnlyBetweenItsPair) {
  Network network = three_node_network(NetworkOptions{});
  network.reconnect(kA, kB);
  EXPECT_EQ(network.connection(kA, kB), 1U);
  EXPECT_EQ(network.connection(kB, kA), 1U);
  EXPECT_EQ(network.connection(kA, kC), 0U);
  network.resize(4);  // growing keeps what each link had
  EXPECT_EQ(network.connection(kB, kA), 1U);
}

TEST(Network, CertainLossDropsEverythingAndCertainDuplicationDoublesIt) {
  NetworkOptions lossy;
  lossy.drop_probability = 1.0;
  Network dropping = three_node_network(lossy);
  EXPECT_FALSE(dropping.route(kA, kB, Time{}).arrival.has_value());

  NetworkOptions doubling;
  doubling.duplicate_probability = 1.0;
  Network duplicating = three_node_network(doubling);
  const Network::Route route = duplicating.route(kA, kB, Time{});
  EXPECT_TRUE(route.arrival.has_value());
  EXPECT_TRUE(route.duplicate_arrival.has_value());
}

TEST(Network, ADelaySpikeAddsItsExtraOnlyToItsNodesLinks) {
  NetworkOptions options;
  options.delay = Distribution::constant(1_ms);
  Network network = three_node_network(options);
  const DelaySpikeId spike = network.add_delay_spike(50_ms, {kB});
  EXPECT_EQ(*network.route(kA, kB, Time{}).arrival, Time{} + 51_ms);
  EXPECT_EQ(*network.route(kA, kC, Time{}).arrival, Time{} + 1_ms);
  network.remove_delay_spike(spike);
  EXPECT_EQ(*network.route(kC, kB, Time{} + 1_s).arrival, Time{} + 1_s + 1_ms);
}

TEST(Network, LaterMessagesOvertakeOneCaughtInADelaySpike) {
  NetworkOptions options;
  options.delay = Distribution::constant(1_ms);
  Network network = three_node_network(options);
  const DelaySpikeId spike = network.add_delay_spike(90_s, {kA});
  const Time stuck = *network.route(kA, kB, Time{}).arrival;
  network.remove_delay_spike(spike);
  const Time later = *network.route(kA, kB, Time{} + 1_s).arrival;
  EXPECT_EQ(stuck, Time{} + 90_s + 1_ms);
  EXPECT_EQ(later, Time{} + 1_s + 1_ms);
}

RC_GTEST_PROP(Network, FifoLinksNeverReorderMessages, (std::uint64_t seed, std::vector<std::uint16_t> gaps_us)) {
  NetworkOptions options;
  options.delay = Distribution::log_normal(1_ms, 50_ms);
  Network network{options, Rng{seed}};
  network.resize(2);
  Time now;
  Time previous_arrival;
  for (std::uint16_t gap : gaps_us) {
    now += Duration::microseconds(gap);
    const Time arrival = *network.route(kA, kB, now).arrival;
    RC_ASSERT(arrival >= previous_arrival);
    RC_ASSERT(arrival >= now);
    previous_arrival = arrival;
  }
}

Task<> send_one(Context context, NodeId to, Duration after, int number) {
  co_await context.sleep(after);
  context.send(to, Ping{number});
}

TEST(Network, AMessageInFlightWhenADroppingCutBeginsIsLost) {
  SimulationOptions options;
  options.network.delay = Distribution::constant(10_ms);
  options.network.partition_effect = PartitionEffect::kDrop;
  Simulation simulation{options};
  Log log;
  const NodeId receiver = simulation.add_node("receiver", [&](Context context) {
    context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "got"));
  });
  const NodeId sender = simulation.add_node("sender", [&](Context context) {
    context.spawn("first", send_one(context, receiver, 0_ms, 1));    // arrives at 10 ms: cut by then
    context.spawn("second", send_one(context, receiver, 30_ms, 2));  // sent after the heal
  });
  simulation.schedule(Time{} + 5_ms, [&] {
    const PartitionId cut = simulation.network().cut({sender}, {receiver});
    simulation.schedule(Time{} + 20_ms, [&simulation, cut] { simulation.network().heal(cut); });
  });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"got:2"}));
}

}  // namespace
}  // namespace locksim::sim
