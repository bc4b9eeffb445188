// A TCP partition (the default): what it cuts waits for the sender's first
// retransmission after the heal, in order per connection, and is lost only
// when an end crashes or TCP gives the connection up.

#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "sim/network.h"
#include "sim/simulation.h"

namespace locksim::sim {
namespace {

using namespace literals;
using testing::Log;
using testing::Ping;

Task<> send_at(Context context, NodeId to, Duration after, int number) {
  co_await context.sleep(after);
  context.send(to, Ping{number});
}

Task<> call_at(Context context, NodeId to, Duration after, int number, Duration timeout) {
  co_await context.sleep(after);
  (void)co_await context.call(to, Ping{number}, timeout);
}

// A receiver and a sender 10 ms apart; the sender runs `sends`.
struct Pair {
  Simulation simulation;
  Log log;
  NodeId receiver;
  NodeId sender;

  template <class Sends>
  explicit Pair(Sends sends) : simulation{testing::fixed_delay(10_ms)} {
    receiver = simulation.add_node("receiver", [this](Context context) {
      context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "got"));
    });
    sender = simulation.add_node("sender", [this, sends](Context context) { sends(context, receiver); });
  }
  void cut_between(Duration from, Duration to) {
    simulation.schedule(Time{} + from, [this, to] {
      const PartitionId cut = simulation.network().cut({sender}, {receiver});
      simulation.schedule(Time{} + to, [this, cut] { simulation.network().heal(cut); });
    });
  }
};

TEST(TcpPartition, WhatItCutsLandsInOrderAtTheFirstRetransmissionAfterTheHeal) {
  Pair pair{[](Context context, NodeId receiver) {
    context.spawn("first", send_at(context, receiver, 0_ms, 1));    // swallowed at 10 ms, in flight
    context.spawn("second", send_at(context, receiver, 30_ms, 2));  // sent after the heal, behind the first
  }};
  pair.cut_between(5_ms, 20_ms);
  pair.simulation.run();
  EXPECT_EQ(pair.log.texts(), (std::vector<std::string>{"got:1", "got:2"}));
  // Retransmitted 200 ms after it was swallowed: the first try after the heal.
  EXPECT_EQ(pair.log.time_of("got:1"), Time{} + 210_ms);
  EXPECT_EQ(pair.log.time_of("got:2"), Time{} + 210_ms);
}

TEST(TcpPartition, EachRetransmissionWaitsTwiceAsLongAsTheOneBefore) {
  Pair pair{[](Context context, NodeId receiver) { context.spawn("one", send_at(context, receiver, 0_ms, 1)); }};
  pair.cut_between(0_ms, 1_s);
  pair.simulation.run();
  // Sent into the cut at 0: tries at 0.2, 0.6 (cut) and 1.4 s (healed).
  EXPECT_EQ(pair.log.time_of("got:1"), Time{} + 1400_ms);
}

TEST(TcpPartition, AConnectionCutForGoodIsGivenUpAfterFifteenRetransmissions) {
  Pair pair{[](Context context, NodeId receiver) { context.spawn("one", send_at(context, receiver, 0_ms, 1)); }};
  pair.simulation.schedule(Time{}, [&pair] { (void)pair.simulation.network().cut({pair.sender}, {pair.receiver}); });
  pair.simulation.run();
  EXPECT_TRUE(pair.log.entries.empty());
  EXPECT_EQ(pair.simulation.messages_in_flight(), 0U);
  // 0.2 s doubling to 102.4 s, then six waits of 120 s: Linux's 924.6 s.
  EXPECT_EQ(pair.simulation.now(), Time{} + 924600_ms);
}

TEST(TcpPartition, ACrashOfTheReceiverResetsTheConnectionAndLosesWhatItHeld) {
  Pair pair{[](Context context, NodeId receiver) { context.spawn("one", send_at(context, receiver, 0_ms, 1)); }};
  pair.cut_between(0_ms, 1_s);
  pair.simulation.schedule(Time{} + 500_ms, [&pair] { pair.simulation.crash(pair.receiver); });
  pair.simulation.schedule(Time{} + 700_ms, [&pair] { pair.simulation.restart(pair.receiver); });
  pair.simulation.run();
  EXPECT_TRUE(pair.log.entries.empty());
  EXPECT_EQ(pair.simulation.messages_in_flight(), 0U);
}

TEST(TcpPartition, AClientThatTimedOutReconnectsAndIsNotHeldBehindItsOldConnection) {
  Pair pair{[](Context context, NodeId receiver) {
    context.spawn("old", call_at(context, receiver, 0_ms, 1, 100_ms));    // held from 0, times out at 100 ms
    context.spawn("new", call_at(context, receiver, 500_ms, 2, 100_ms));  // a new connection, held from 500 ms
  }};
  pair.cut_between(0_ms, 1_s);
  pair.simulation.run();
  // The new connection's tries: 0.7, 1.1 s; the old one's: 0.2, 0.6, 1.4 s.
  EXPECT_EQ(pair.log.texts(), (std::vector<std::string>{"got:2", "got:1"}));
  EXPECT_EQ(pair.log.time_of("got:2"), Time{} + 1100_ms);
  EXPECT_EQ(pair.log.time_of("got:1"), Time{} + 1400_ms);
}

}  // namespace
}  // namespace locksim::sim
