// The live history builder on hand-made records: events decided inside
// Redis land between their call's send and reply in script order; a lease
// expires at its deadline but before the next grant; worker lines keep
// their times and lose `call`; the result is a history the checker accepts.
// With several instances (Redlock) each instance's log is its own: one that
// came back empty after a crash loses what it promised, one that came back
// with its data keeps it.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/history_checker.h"
#include "live/live_history.h"

namespace locksim::live {
namespace {

using nlohmann::json;

// A server record at run time `t_ns` (the run's zero is realtime 1000 s).
json server_record(json fields, std::int64_t seq, std::int64_t t_ns) {
  const std::int64_t realtime_us = 1'000'000'000 + t_ns / 1000;
  fields["seq"] = seq;
  fields["s"] = std::to_string(realtime_us / 1'000'000);
  fields["us"] = std::to_string(realtime_us % 1'000'000);
  return fields;
}

json worker_line(std::int64_t t, const std::string& proc, const std::string& event, json fields = json::object()) {
  fields["t"] = t;
  fields["proc"] = proc;
  fields["ev"] = event;
  return fields;
}

LiveRecords two_holders() {
  LiveRecords records;
  records.run_begin = {{"scenario", "test"}, {"seed", 1}, {"fencing", false}, {"version", "test"}};
  records.lock_name = "lock";
  records.realtime_minus_run_ns = 1'000'000'000'000;  // 1000 s, in ns
  records.end_ns = 3'000'000'000;
  records.worker_lines = {
      worker_line(1'000, "worker-1", "acquire.invoke", {{"lock", "lock"}, {"call", "worker-1/1"}}),
      worker_line(9'000, "worker-1", "acquire.ok", {{"lock", "lock"}, {"token", 1}, {"lease_ns", 1'000'000'000}, {"call", "worker-1/1"}}),
      worker_line(10'000, "worker-1", "hold.begin", {{"lock", "lock"}, {"token", 1}}),
      // worker-2 asks just before worker-1's lease ends; Redis runs it just after.
      worker_line(999'000'000, "worker-2", "acquire.invoke", {{"lock", "lock"}, {"call", "worker-2/1"}}),
      worker_line(1'002'000'000, "worker-2", "acquire.ok", {{"lock", "lock"}, {"token", 2}, {"lease_ns", 1'000'000'000}, {"call", "worker-2/1"}}),
      worker_line(1'002'000'100, "worker-2", "hold.begin", {{"lock", "lock"}, {"token", 2}}),
      worker_line(1'100'000'000, "worker-2", "write.invoke", {{"key", "qty"}, {"value", 1}, {"call", "worker-2/2"}}),
      worker_line(1'200'000'000, "worker-2", "write.ok", {{"call", "worker-2/2"}}),
  };
  // worker-1's grant logged in the second place, and with a TIME (20 us) after its
  // call's reply (9 us): it is ordered by seq and held inside its call.
  records.lock_instances = {{"redis-0",
                             {
                                 server_record({{"ev", "grant"}, {"owner", "worker-2"}, {"value", "worker-2#1"}, {"token", 2}, {"lease_ms", "1000"}, {"call", "worker-2/1"}}, 2, 1'000'500'000),
                                 server_record({{"ev", "grant"}, {"owner", "worker-1"}, {"value", "worker-1#1"}, {"token", 1}, {"lease_ms", "1000"}, {"call", "worker-1/1"}}, 1, 20'000),
                             },
                             {}}};
  records.storage_log = {
      server_record({{"ev", "write.accept"}, {"key", "qty"}, {"writer", "worker-2"}, {"value", 1}, {"call", "worker-2/2"}}, 1, 1'150'000'000),
  };
  records.final_values = {{"qty", 1}};
  return records;
}

std::vector<json> parsed(const std::vector<std::string>& lines) {
  std::vector<json> events;
  for (const std::string& line : lines) events.push_back(json::parse(line));
  return events;
}

const json& only(const std::vector<json>& events, const std::string& proc, const std::string& event) {
  const json* found = nullptr;
  for (const json& candidate : events) {
    if (candidate["proc"] == proc && candidate["ev"] == event) {
      EXPECT_EQ(found, nullptr) << "more than one " << proc << " " << event;
      found = &candidate;
    }
  }
  EXPECT_NE(found, nullptr) << "no " << proc << " " << event;
  static const json none;
  return found == nullptr ? none : *found;
}

TEST(LiveHistory, AWriteWhoseCallTimedOutIsPlacedWhenTheServerRanItNotWhenTheWorkerGaveUp) {
  LiveRecords records = two_holders();
  // worker-2 sent a second write that a spike held; it gave up at 1.3 s and
  // the server ran it at 2.5 s.
  records.worker_lines.push_back(
      worker_line(1'250'000'000, "worker-2", "write.invoke", {{"key", "qty"}, {"value", 2}, {"call", "worker-2/3"}}));
  records.worker_lines.push_back(
      worker_line(1'300'000'000, "worker-2", "write.fail", {{"reason", "timeout"}, {"call", "worker-2/3"}}));
  records.storage_log.push_back(server_record(
      {{"ev", "write.accept"}, {"key", "qty"}, {"writer", "worker-2"}, {"value", 2}, {"call", "worker-2/3"}}, 2,
      2'500'000'000));
  const std::vector<json> events = parsed(live_history(records));
  for (const json& event : events) {
    if (event["ev"] == "write.accept" && event["value"] == 2) {
      EXPECT_EQ(event["t"], 2'500'000'000) << "a timeout bounds nothing: the server decides when it runs";
    }
  }
}

TEST(LiveHistory, ServerEventsLandWithinTheirCallInScriptOrderAndALeaseExpiresBeforeTheNextGrant) {
  const std::vector<json> events = parsed(live_history(two_holders()));
  for (std::size_t index = 0; index < events.size(); ++index) {
    EXPECT_EQ(events[index]["i"], index);
    if (index > 0) {
      EXPECT_GE(events[index]["t"], events[index - 1]["t"]);
    }
    EXPECT_FALSE(events[index].contains("call")) << events[index].dump();
  }
  std::vector<json> grants;
  for (const json& event : events) {
    if (event["ev"] == "lease.grant") grants.push_back(event);
  }
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_EQ(grants[0]["owner"], "worker-1") << "script order, not the log's order";
  EXPECT_EQ(grants[0]["t"].get<std::int64_t>(), 9'000);
  // worker-1's lease ends at its grant's server time + 1 s, before worker-2's
  // grant; worker-2's at its own deadline, within the run.
  std::vector<json> expires;
  for (const json& event : events) {
    if (event["ev"] == "lease.expire") expires.push_back(event);
  }
  ASSERT_EQ(expires.size(), 2u);
  EXPECT_EQ(expires[0]["owner"], "worker-1");
  EXPECT_EQ(expires[0]["t"].get<std::int64_t>(), 1'000'020'000);
  EXPECT_LT(expires[0]["t"].get<std::int64_t>(), grants[1]["t"].get<std::int64_t>());
  EXPECT_EQ(expires[1]["owner"], "worker-2");
  EXPECT_EQ(expires[1]["t"].get<std::int64_t>(), 2'000'500'000);
  EXPECT_EQ(grants[1]["t"].get<std::int64_t>(), 1'000'500'000);
  // Storage's accept at its server time, inside the write's call.
  EXPECT_EQ(only(events, "storage", "write.accept")["t"].get<std::int64_t>(), 1'150'000'000);
  const json& end = events.back();
  EXPECT_EQ(end["ev"], "run.end");
  EXPECT_EQ(end["final"]["qty"], 1);
}

checker::HistoryVerdict checked_live(const LiveRecords& records) {
  std::string text;
  for (const std::string& line : live_history(records)) text += line + "\n";
  const checker::CheckOutcome outcome = checker::check_history_text(text, "live", {});
  EXPECT_FALSE(outcome.error.has_value()) << outcome.error->message();
  return outcome.verdict;
}

TEST(LiveHistory, IsAHistoryTheCheckerAcceptsAndJudges) {
  // worker-1 never ended its hold and did nothing after: its hold ends with
  // its lease (invoke + 1 s), before worker-2's began; worker-2's, open at
  // the end, with its own.
  const checker::HistoryVerdict quiet = checked_live(two_holders());
  EXPECT_EQ(quiet.violation_count(checker::ViolationKind::kDoubleHolder), 0);
  EXPECT_EQ(quiet.violation_count(checker::ViolationKind::kDoubleGrant), 0) << "the expiry comes before the next grant";
  ASSERT_FALSE(quiet.notes.empty());
  EXPECT_TRUE(quiet.notes.back().starts_with("2 hold ends taken from the lease")) << quiet.notes.back();
  // A hold.end after worker-2's hold.begin shows worker-1 held on: both acted as holders.
  LiveRecords held_on = two_holders();
  held_on.worker_lines.push_back(worker_line(1'500'000'000, "worker-1", "hold.end",
                                             {{"lock", "lock"}, {"token", 1}, {"reason", "expired"}}));
  EXPECT_EQ(checked_live(held_on).violation_count(checker::ViolationKind::kDoubleHolder), 1);
}

TEST(LiveHistory, AServerEventIsKeptAfterItsCallsSendEvenWhenTheServerClockSaysEarlier) {
  LiveRecords records = two_holders();
  records.storage_log = {server_record(
      {{"ev", "write.accept"}, {"key", "qty"}, {"writer", "worker-2"}, {"value", 1}, {"call", "worker-2/2"}}, 1, 5)};
  const std::vector<json> events = parsed(live_history(records));
  EXPECT_EQ(only(events, "storage", "write.accept")["t"].get<std::int64_t>(), 1'100'000'001);
}

// Redlock over three instances: worker-1 wins all three at 0; redis-0 and
// redis-1 are killed at 1 s and come back at 1.1 s; worker-2 then asks.
LiveRecords redlock_restart(bool came_back_empty) {
  LiveRecords records;
  records.run_begin = {{"scenario", "test"}, {"seed", 1}, {"fencing", false}, {"version", "test"},
                       {"service", {{"kind", "redlock"}, {"instances", 3}, {"quorum", 2}}}};
  records.lock_name = "lock";
  records.realtime_minus_run_ns = 1'000'000'000'000;
  records.end_ns = 3'000'000'000;
  records.worker_lines = {
      worker_line(1'000, "worker-1", "acquire.invoke", {{"lock", "lock"}, {"call", "worker-1/1"}}),
      worker_line(900'000, "worker-1", "acquire.ok", {{"lock", "lock"}, {"token", 1}, {"lease_ns", 10'000'000'000}, {"call", "worker-1/1"}}),
      worker_line(900'100, "worker-1", "hold.begin", {{"lock", "lock"}, {"token", 1}}),
      worker_line(1'200'000'000, "worker-2", "acquire.invoke", {{"lock", "lock"}, {"call", "worker-2/1"}}),
  };
  if (came_back_empty) {
    records.worker_lines.push_back(worker_line(1'201'000'000, "worker-2", "acquire.ok",
                                               {{"lock", "lock"}, {"token", 1}, {"lease_ns", 10'000'000'000}, {"call", "worker-2/1"}}));
    records.worker_lines.push_back(worker_line(1'201'000'100, "worker-2", "hold.begin", {{"lock", "lock"}, {"token", 1}}));
  }
  const json first_grant = {{"ev", "grant"}, {"owner", "worker-1"}, {"value", "worker-1#1"}, {"token", 1}, {"lease_ms", "10000"}, {"call", "worker-1/1"}};
  const json second_grant = {{"ev", "grant"}, {"owner", "worker-2"}, {"value", "worker-2#1"}, {"token", 1}, {"lease_ms", "10000"}, {"call", "worker-2/1"}};
  for (int index = 0; index < 3; ++index) {
    LockInstanceRecords instance{"redis-" + std::to_string(index), {server_record(first_grant, 1, 500'000)}, {}};
    if (index < 2) {
      // Empty, the instance grants worker-2 with seq 1 again, after its
      // restart; with its data (persistence) it kept worker-1's key and
      // refused worker-2, and its log holds the first grant only (the
      // coordinator counts a record it read twice once).
      instance.restarts.push_back({1'000'000'000, 1'100'000'000,
                                   came_back_empty ? std::nullopt : std::optional<std::string>{"worker-1#1"}});
      if (came_back_empty) instance.log.push_back(server_record(second_grant, 1, 1'200'500'000));
    }
    records.lock_instances.push_back(instance);
  }
  return records;
}

std::int64_t count_of(const std::vector<json>& events, const std::string& event) {
  return std::ranges::count_if(events, [&](const json& line) { return line["ev"] == event; });
}

TEST(LiveHistory, EachRedlockInstanceThatCameBackEmptyLosesWhatItPromisedAtItsRestart) {
  const std::vector<json> events = parsed(live_history(redlock_restart(true)));
  EXPECT_EQ(only(events, "redis-0", "lease.lost")["reason"], "restart");
  EXPECT_EQ(only(events, "redis-0", "lease.lost")["t"].get<std::int64_t>(), 1'100'000'001);
  EXPECT_EQ(only(events, "redis-1", "lease.lost")["owner"], "worker-1");
  EXPECT_EQ(count_of(events, "lease.lost"), 2) << "redis-2 never restarted";
  EXPECT_EQ(count_of(events, "lease.grant"), 5) << "worker-1 on three, worker-2 on the two restarted";

  std::string text;
  for (const std::string& line : live_history(redlock_restart(true))) text += line + "\n";
  const checker::CheckOutcome outcome = checker::check_history_text(text, "live", {});
  ASSERT_FALSE(outcome.error.has_value()) << outcome.error->message();
  EXPECT_EQ(outcome.verdict.violation_count(checker::ViolationKind::kDoubleGrant).value_or(0), 1)
      << "worker-2 reached a quorum while the lost promises still ran";
}

TEST(LiveHistory, ARedlockInstanceThatKeptItsDataKeepsItsLease) {
  const std::vector<json> events = parsed(live_history(redlock_restart(false)));
  EXPECT_EQ(count_of(events, "lease.grant"), 3) << "one grant per instance";
  EXPECT_EQ(count_of(events, "lease.lost"), 0);
}

// A split brain's records (redis-failover): the replica took a copy of
// worker-1's first lease before the cut; at the promotion it adopts it, and
// the old primary, alive, loses nothing and goes on granting on its side; at
// the rejoin it loses the lease the new primary never had.
TEST(LiveHistory, ASplitBrainsRoleChangesAdoptAndLoseAsTheSimulatorDoes) {
  LiveRecords records;
  records.run_begin = {{"scenario", "test"}, {"seed", 1}, {"fencing", false}, {"version", "test"}};
  records.lock_name = "lock";
  records.realtime_minus_run_ns = 1'000'000'000'000;
  records.end_ns = 9'000'000'000;
  records.lock_instances = {
      {"redis-0",
       {server_record({{"ev", "grant"}, {"owner", "worker-1"}, {"value", "worker-1#1"}, {"token", 1}, {"lease_ms", "5000"}}, 1, 1'000'000),
        server_record({{"ev", "release"}, {"by", "worker-1"}, {"value", "worker-1#1"}}, 2, 3'000'000'000),
        server_record({{"ev", "grant"}, {"owner", "worker-1"}, {"value", "worker-1#2"}, {"token", 2}, {"lease_ms", "5000"}}, 3, 3'100'000'000)},
       {}},
      {"redis-1",
       {server_record({{"ev", "grant"}, {"owner", "worker-2"}, {"value", "worker-2#1"}, {"token", 2}, {"lease_ms", "5000"}}, 2, 5'500'000'000)},
       {}},
  };
  LockRoleChange promotion;
  promotion.t = 2'500'000'000;
  promotion.old_primary_alive = true;
  promotion.kept_value = "worker-1#1";
  promotion.kept_lease_ns = 2'500'000'000;
  LockRoleChange rejoin;
  rejoin.kind = LockRoleChange::Kind::kRejoin;
  rejoin.t = 6'000'000'000;
  rejoin.old_primary_alive = true;
  records.role_changes = {promotion, rejoin};

  std::vector<json> lines;
  for (const std::string& text : live_history(records)) lines.push_back(json::parse(text));
  const auto find = [&](const std::string& proc, const std::string& event) {
    std::vector<json> found;
    for (const json& line : lines) {
      if (line["proc"] == proc && line["ev"] == event) found.push_back(line);
    }
    return found;
  };
  ASSERT_EQ(find("redis-1", "replica.promote").size(), 1u);
  const std::vector<json> adopted = find("redis-1", "lease.adopt");
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_EQ(adopted[0]["token"], 1);
  EXPECT_EQ(adopted[0]["lease_ns"], 2'500'000'000);
  // The copy ends on the new primary's own clock, before its next grant.
  ASSERT_EQ(find("redis-1", "lease.expire").size(), 1u);
  EXPECT_EQ(find("redis-1", "lease.expire")[0]["t"], 5'000'000'000);
  const std::vector<json> lost = find("redis-0", "lease.lost");
  ASSERT_EQ(lost.size(), 1u) << "only the lease the old primary granted on its side of the cut";
  EXPECT_EQ(lost[0]["token"], 2);
  EXPECT_EQ(lost[0]["reason"], "failover");
  EXPECT_EQ(lost[0]["t"], 6'000'000'000);
  // Both brains promised the lock at once: the checker sees the double grant.
  std::string text;
  for (const json& line : lines) text += line.dump() + "\n";
  const checker::CheckOutcome outcome = checker::check_history_text(text, "split brain", checker::CheckOptions{});
  ASSERT_FALSE(outcome.error) << outcome.error->message();
  EXPECT_EQ(outcome.verdict.violation_count(checker::ViolationKind::kDoubleGrant).value_or(0), 1);
}

}  // namespace
}  // namespace locksim::live
