// Pause, crash/restart, clock faults and process pauses, as seen by processes.
#include <gtest/gtest.h>

#include "kernel_test_support.h"
#include "sim/simulation.h"

namespace locksim::sim {
namespace {

using namespace literals;
using testing::fixed_delay;
using testing::Log;
using testing::Ping;

Task<> send_pings_every(Context context, NodeId to, int count, Duration every) {
  for (int number = 1; number <= count; ++number) {
    co_await context.sleep(every);
    context.send(to, Ping{number});
  }
}

TEST(NodeFaults, PauseHoldsBackWhatANodeReceivesAndReplaysItInOrderOnResume) {
  Simulation simulation{fixed_delay(1_ms)};
  Log log;
  const NodeId receiver = simulation.add_node("receiver", [&](Context context) {
    context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "got"));
  });
  simulation.add_node("sender", [&](Context context) { context.spawn("main", send_pings_every(context, receiver, 3, 1_ms)); });
  simulation.schedule(Time{} + 1500_us, [&] { simulation.pause(receiver); });
  simulation.schedule(Time{} + 20_ms, [&] { simulation.resume(receiver); });
  simulation.run();
  // Sent at 1, 2, 3 ms; the first arrives at 2 ms (held), all run at 20 ms.
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"got:1", "got:2", "got:3"}));
  for (const auto& [time, text] : log.entries) {
    EXPECT_EQ(time, Time{} + 20_ms) << text;
  }
}

TEST(NodeFaults, APausedNodesTimerFiresLateByExactlyThePause) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId sleeper = simulation.add_node("sleeper", [&](Context context) {
    context.spawn("main", testing::log_after_sleep(context, &simulation, &log, 5_ms, "woke"));
  });
  // The pause begins exactly when the timer is due (scheduled first, so it runs first).
  simulation.schedule(Time{} + 5_ms, [&] { simulation.pause(sleeper); });
  simulation.schedule(Time{} + 5_ms + 7_s, [&] { simulation.resume(sleeper); });
  simulation.run();
  EXPECT_EQ(log.time_of("woke") - (Time{} + 5_ms), 7_s);
}

TEST(NodeFaults, APausedNodesClockKeepsRunning) {
  Simulation simulation{SimulationOptions{}};
  const NodeId node = simulation.add_node("node", [](Context) {});
  simulation.schedule(Time{} + 1_s, [&] { simulation.pause(node); });
  simulation.schedule(Time{} + 9_s, [&] { EXPECT_EQ(simulation.local_time(node), LocalTime{} + 9_s); });
  simulation.run();
}

struct DestructionFlag {
  bool* destroyed;
  ~DestructionFlag() { *destroyed = true; }
};

Task<> sleep_holding_a_flag(Context context, const Simulation* simulation, Log* log, bool* destroyed) {
  DestructionFlag flag{destroyed};
  co_await context.sleep(10_s);
  log->add(*simulation, "woke");
}

TEST(NodeFaults, CrashDestroysTheNodesProcessesAndDropsItsTimersAndInbox) {
  Simulation simulation{fixed_delay(1_ms)};
  Log log;
  bool destroyed = false;
  int boots = 0;
  const NodeId victim = simulation.add_node("victim", [&](Context context) {
    ++boots;
    if (boots == 1) {
      context.spawn("sleeper", sleep_holding_a_flag(context, &simulation, &log, &destroyed));
    } else {
      context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "after-restart"));
    }
  });
  simulation.add_node("sender", [&](Context context) { context.spawn("main", send_pings_every(context, victim, 4, 1_s)); });
  simulation.schedule(Time{} + 1500_ms, [&] {
    simulation.crash(victim);
    EXPECT_TRUE(destroyed);
    EXPECT_FALSE(simulation.is_up(victim));
  });
  simulation.schedule(Time{} + 2500_ms, [&] { simulation.restart(victim); });
  simulation.run();
  // Ping 1 arrived (1.001 s) to a node with no receiver; ping 2 (2.001 s) to a
  // crashed node: both lost. Pings 3 and 4 reach the restarted node.
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"after-restart:3", "after-restart:4"}));
  EXPECT_EQ(boots, 2);
}

Task<> log_at_wall_reading(Context context, const Simulation* simulation, Log* log, LocalTime reading,
                           std::string label) {
  co_await context.sleep_until(reading, ClockKind::kWall);
  log->add(*simulation, label);
}

TEST(NodeFaults, AWallClockJumpForwardWakesWallClockSleepersEarly) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId node = simulation.add_node("node", [&](Context context) {
    context.spawn("main", log_at_wall_reading(context, &simulation, &log, LocalTime{} + 10_s, "woke"));
  });
  simulation.schedule(Time{} + 1_s, [&] { simulation.jump_clock(node, 5_s); });
  simulation.run();
  EXPECT_EQ(log.time_of("woke"), Time{} + 5_s);
}

TEST(NodeFaults, AWallClockJumpBackMakesWallClockSleepersWakeLate) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId node = simulation.add_node("node", [&](Context context) {
    context.spawn("main", log_at_wall_reading(context, &simulation, &log, LocalTime{} + 10_s, "woke"));
  });
  simulation.schedule(Time{} + 1_s, [&] { simulation.jump_clock(node, -(5_s)); });
  simulation.run();
  EXPECT_EQ(log.time_of("woke"), Time{} + 15_s);
}

TEST(NodeFaults, AWallClockJumpLeavesTheMonotonicClockAndItsSleepersAlone) {
  for (const Duration jump : {5_s, -(5_s)}) {
    Simulation simulation{SimulationOptions{}};
    Log log;
    const NodeId node = simulation.add_node("node", [&](Context context) {
      context.spawn("main", testing::log_after_sleep(context, &simulation, &log, 10_s, "woke"));
    });
    simulation.schedule(Time{} + 1_s, [&] { simulation.jump_clock(node, jump); });
    simulation.run();
    EXPECT_EQ(log.time_of("woke"), Time{} + 10_s);
    EXPECT_EQ(simulation.local_time(node, ClockKind::kMonotonic), LocalTime{} + 10_s);
    EXPECT_EQ(simulation.local_time(node, ClockKind::kWall), LocalTime{} + 10_s + jump);
  }
}

TEST(NodeFaults, ADriftChangesTheRateOfBothClocks) {
  Simulation simulation{SimulationOptions{}};
  const NodeId node = simulation.add_node("node", [](Context) {});
  simulation.set_clock_drift(node, 100'000'000);  // 10 % fast, from true time zero
  simulation.schedule(Time{} + 10_s, [&] { simulation.stop(); });
  simulation.run();
  EXPECT_EQ(simulation.local_time(node, ClockKind::kMonotonic), LocalTime{} + 11_s);
  EXPECT_EQ(simulation.local_time(node, ClockKind::kWall), LocalTime{} + 11_s);
}

TEST(NodeFaults, AFastClockWakesSleepersEarlyInTrueTime) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId node = simulation.add_node("node", [&](Context context) {
    context.spawn("main", testing::log_after_sleep(context, &simulation, &log, 11_s, "woke"));
  });
  simulation.schedule(Time{} + 1_s, [&] { simulation.set_clock_drift(node, 100'000'000); });  // 10 % fast
  simulation.run();
  // 1 s at normal rate, then the remaining local 10 s take 10 / 1.1 true seconds.
  const Time woke = log.time_of("woke");
  EXPECT_GE(simulation.local_time(node), LocalTime{} + 11_s);
  EXPECT_EQ(woke, Time{} + 1_s + Duration::nanoseconds(9'090'909'091));
}

Task<> log_every(Context context, const Simulation* simulation, Log* log, Duration every, std::string label) {
  for (int round = 1; round <= 3; ++round) {
    co_await context.sleep(every);
    log->add(*simulation, label + std::to_string(round));
  }
}

TEST(NodeFaults, PausingOneProcessLeavesTheOthersOnItsNodeRunning) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId node = simulation.add_node("worker", [&](Context context) {
    context.spawn("main", log_every(context, &simulation, &log, 1_s, "main"));
    context.spawn("renewal", log_every(context, &simulation, &log, 1_s, "renewal"));
  });
  simulation.schedule(Time{} + 500_ms, [&] { simulation.pause_process(*simulation.find_process(node, "renewal")); });
  simulation.schedule(Time{} + 10_s, [&] { simulation.resume_process(*simulation.find_process(node, "renewal")); });
  simulation.run();
  EXPECT_EQ(log.time_of("main3"), Time{} + 3_s);
  EXPECT_EQ(log.time_of("renewal1"), Time{} + 10_s);
  EXPECT_EQ(log.time_of("renewal3"), Time{} + 12_s);
}

}  // namespace
}  // namespace locksim::sim
