#include "sim/simulation.h"

#include <stdexcept>

#include "sim/duration_text.h"
#include "vocabulary/event_kind.h"

#include <gtest/gtest.h>

#include "kernel_test_support.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::sim {
namespace {

using namespace literals;
using testing::fixed_delay;
using testing::Log;
using testing::Ping;

Task<> ping_once(Context context, const Simulation* simulation, Log* log, NodeId server, Duration timeout) {
  log->add(*simulation, "call");
  std::optional<Message> reply = co_await context.call(server, Ping{7}, timeout);
  log->add(*simulation, reply ? "reply:" + std::to_string(reply->body.get<Ping>().number) : "timeout");
}

TEST(Simulation, SpawnedProcessesStartFromTheEventLoopNotInline) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  simulation.add_node("a", [&](Context context) {
    context.spawn("main", testing::log_after_sleep(context, &simulation, &log, Duration::zero(), "ran"));
    log.add(simulation, "booted");
  });
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"booted"}));
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"booted", "ran"}));
}

TEST(Simulation, ACallRoundTripTakesTwoNetworkDelays) {
  Simulation simulation{fixed_delay(3_ms)};
  Log log;
  const NodeId server = simulation.add_node("server", [](Context context) {
    context.spawn("echo", testing::echo_server(context, Duration::zero()));
  });
  simulation.add_node("client", [&](Context context) {
    context.spawn("main", ping_once(context, &simulation, &log, server, 1_s));
  });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"call", "reply:7"}));
  EXPECT_EQ(log.time_of("reply:7"), Time{} + 6_ms);
}

TEST(Simulation, ACancelledTimeoutNeitherCountsAsAnEventNorAdvancesTime) {
  Simulation simulation{fixed_delay(3_ms)};
  Log log;
  const NodeId server = simulation.add_node("server", [](Context context) {
    context.spawn("echo", testing::echo_server(context, Duration::zero()));
  });
  simulation.add_node("client", [&](Context context) {
    context.spawn("main", ping_once(context, &simulation, &log, server, 10_s));
  });
  const RunOutcome outcome = simulation.run();
  EXPECT_EQ(outcome.end, Time{} + 6_ms);  // not 10 s, when the cancelled timeout was due
  EXPECT_EQ(outcome.events, 4u);          // two starts, two deliveries
}

TEST(Simulation, ACallTimesOutOnTheCallersClockAndDropsTheLateReply) {
  Simulation simulation{fixed_delay(3_ms)};
  Log log;
  const NodeId server = simulation.add_node("server", [](Context context) {
    context.spawn("echo", testing::echo_server(context, 100_ms));  // replies far too late
  });
  simulation.add_node("client", [&](Context context) {
    context.spawn("main", ping_once(context, &simulation, &log, server, 50_ms));
  });
  const RunOutcome outcome = simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"call", "timeout"}));
  EXPECT_EQ(log.time_of("timeout"), Time{} + 50_ms);
  EXPECT_EQ(outcome.reason, StopReason::kQuiescent);
}

Task<> receive_with_timeout(Context context, const Simulation* simulation, Log* log, Duration timeout) {
  std::optional<Message> message = co_await context.receive_for(timeout);
  log->add(*simulation, message ? "got" : "nothing");
}

TEST(Simulation, ReceiveForGivesUpAfterItsTimeout) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  simulation.add_node("a", [&](Context context) {
    context.spawn("main", receive_with_timeout(context, &simulation, &log, 20_ms));
  });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"nothing"}));
  EXPECT_EQ(log.time_of("nothing"), Time{} + 20_ms);
}

TEST(Simulation, QuiescenceReportsWhoWaitsForWhat) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  const NodeId silent = simulation.add_node("silent", [](Context) {});
  simulation.add_node("receiver", [&](Context context) {
    context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "r"));
  });
  simulation.add_node("caller", [&](Context context) {
    context.spawn("main", ping_once(context, &simulation, &log, silent, Duration::max()));
  });
  const RunOutcome outcome = simulation.run();
  EXPECT_EQ(outcome.reason, StopReason::kQuiescent);
  ASSERT_EQ(outcome.blocked.size(), 2u);
  EXPECT_EQ(outcome.blocked[0].node, "receiver");
  EXPECT_EQ(outcome.blocked[0].waiting_for, "a message");
  EXPECT_EQ(outcome.blocked[1].node, "caller");
  EXPECT_EQ(outcome.blocked[1].process, "main");
  EXPECT_EQ(outcome.blocked[1].waiting_for, "a reply from silent");
}

Task<> tick_forever(Context context) {
  while (true) {
    co_await context.sleep(1_ms);
  }
}

TEST(Simulation, StopsAtTheTimeLimitAndCanGoOn) {
  SimulationOptions options;
  options.time_limit = 1_s;
  Simulation simulation{options};
  simulation.add_node("a", [](Context context) { context.spawn("tick", tick_forever(context)); });
  RunOutcome outcome = simulation.run();
  EXPECT_EQ(outcome.reason, StopReason::kTimeLimit);
  EXPECT_EQ(outcome.end, Time{} + 1_s);
  EXPECT_EQ(outcome.events, 1001u);  // the start plus a wake-up at each of 1..1000 ms
  simulation.set_time_limit(Time{} + 2_s);
  outcome = simulation.run();
  EXPECT_EQ(outcome.end, Time{} + 2_s);
  EXPECT_EQ(outcome.events, 2001u);
}

TEST(Simulation, StopsAtTheEventLimit) {
  SimulationOptions options;
  options.event_limit = 10;
  Simulation simulation{options};
  simulation.add_node("a", [](Context context) { context.spawn("tick", tick_forever(context)); });
  const RunOutcome outcome = simulation.run();
  EXPECT_EQ(outcome.reason, StopReason::kEventLimit);
  EXPECT_EQ(outcome.events, 10u);
}

Task<> throw_after_sleep(Context context) {
  co_await context.sleep(5_ms);
  throw std::runtime_error("model bug");
}

TEST(Simulation, AnExceptionInAProcessReachesRun) {
  Simulation simulation{SimulationOptions{}};
  simulation.add_node("a", [](Context context) { context.spawn("main", throw_after_sleep(context)); });
  EXPECT_THROW(simulation.run(), std::runtime_error);
}

Task<int> add_later(Context context, int a, int b) {
  co_await context.sleep(1_ms);
  co_return a + b;
}

Task<> await_sub_task(Context context, const Simulation* simulation, Log* log) {
  const int sum = co_await add_later(context, 2, 3);
  log->add(*simulation, "sum:" + std::to_string(sum));
}

TEST(Simulation, TasksReturnValuesToTheirAwaiter) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  simulation.add_node("a", [&](Context context) { context.spawn("main", await_sub_task(context, &simulation, &log)); });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"sum:5"}));
  EXPECT_EQ(log.time_of("sum:5"), Time{} + 1_ms);
}

TEST(Simulation, ActionsRunAtTheirTimeInScheduleOrder) {
  Simulation simulation{SimulationOptions{}};
  Log log;
  simulation.schedule(Time{} + 2_s, [&] { log.add(simulation, "second"); });
  simulation.schedule(Time{} + 1_s, [&] { log.add(simulation, "first"); });
  simulation.schedule(Time{} + 2_s, [&] { log.add(simulation, "third"); });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(log.time_of("third"), Time{} + 2_s);
}

Task<> fan_out(Context context, const Simulation* simulation, Log* log, std::vector<NodeId> targets, Duration timeout) {
  const std::vector<std::optional<Message>> replies = co_await context.call_all(targets, Ping{1}, timeout);
  std::string answered;
  for (const std::optional<Message>& reply : replies) {
    answered += reply ? "y" : "n";
  }
  log->add(*simulation, answered);
}

TEST(Simulation, CallAllWaitsForEveryReplyOrTheTimeout) {
  SimulationOptions options = fixed_delay(1_ms);
  options.network.duplicate_probability = 1.0;  // duplicates must not count twice
  Simulation simulation{options};
  Log log;
  std::vector<NodeId> servers;
  for (const Duration think : {0_ms, 5_ms, 500_ms}) {
    servers.push_back(simulation.add_node("server-" + format_duration(think), [think](Context context) {
      context.spawn("echo", testing::echo_server(context, think));
    }));
  }
  simulation.add_node("all", [&](Context context) {
    context.spawn("main", fan_out(context, &simulation, &log, {servers[0], servers[1]}, 1_s));
  });
  simulation.add_node("some", [&](Context context) {
    context.spawn("main", fan_out(context, &simulation, &log, servers, 100_ms));
  });
  simulation.run();
  EXPECT_EQ(log.texts(), (std::vector<std::string>{"yy", "yyn"}));
  EXPECT_EQ(log.entries[0].first, Time{} + 7_ms);    // the slower server: 1 + 5 + 1 ms
  EXPECT_EQ(log.entries[1].first, Time{} + 100_ms);  // the timeout
}

Task<> send_one_ping(Context context, NodeId to) {
  context.send(to, Ping{1});
  co_return;
}

TEST(Simulation, CountsMessagesInFlightIncludingThoseHeldBackByAPause) {
  Simulation simulation{fixed_delay(10_ms)};
  Log log;
  const NodeId receiver = simulation.add_node("receiver", [&](Context context) {
    context.spawn("inbox", testing::logging_receiver(context, &simulation, &log, "got"));
  });
  simulation.add_node("sender", [receiver](Context context) { context.spawn("main", send_one_ping(context, receiver)); });
  simulation.schedule(Time{} + 5_ms, [&] {
    EXPECT_EQ(simulation.messages_in_flight(), 1u);
    simulation.pause(receiver);
  });
  simulation.schedule(Time{} + 20_ms, [&] {
    EXPECT_EQ(simulation.messages_in_flight(), 1u);  // arrived at 10 ms, held back
    simulation.resume(receiver);
  });
  simulation.run();
  EXPECT_EQ(simulation.messages_in_flight(), 0u);
  EXPECT_EQ(log.time_of("got:1"), Time{} + 20_ms);
}

TEST(Simulation, ObserversSeeEveryRecordedEventInOrder) {
  Simulation simulation{SimulationOptions{}};
  std::vector<std::string> seen;
  simulation.observe([&seen](std::string_view proc, EventKind event, std::span<const Field> fields) {
    seen.push_back(std::string{proc} + " " + std::string{vocabulary::event_kind_name(event)} + " " +
                   std::to_string(fields.size()));
  });
  simulation.record("run", EventKind::kRunBegin, {{"seed", 1}});
  simulation.record("nemesis", EventKind::kFaultBegin, {{"kind", "pause"}, {"target", "worker-1"}});
  EXPECT_EQ(seen, (std::vector<std::string>{"run run.begin 1", "nemesis fault.begin 2"}));
}

}  // namespace
}  // namespace locksim::sim
