// `locksim live` on a redis-failover scenario: a real primary, its real
// replica and a real redis-sentinel on free loopback ports, started for the
// run. A crash of the primary after its grant had replicated: Sentinel
// promotes the replica, which adopts the lease, and the workers follow it
// there (no violation). A crash before the grant replicated (H7): the
// promoted replica grants the lock again, with the same token. Restarts: a
// replica restarted without persistence continues the stream, so a later
// failover adopts the lease; a primary restarted from its AOF starts a new
// stream, so the grant it makes before its replica's full resync is lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../cli/locksim_process.h"
#include "live_summary.h"

namespace locksim::live {
namespace {

using cli_test::Result;
using cli_test::run_locksim;
using cli_test::scratch;

std::vector<nlohmann::json> events(const std::vector<nlohmann::json>& lines, const std::string& proc, const std::string& event) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& line : lines) {
    if (line["proc"] == proc && line["ev"] == event) found.push_back(line);
  }
  return found;
}

TEST(LiveFailover, SentinelPromotesTheReplicaWhichAdoptsTheLeaseAndTheWorkersFollowIt) {
  const std::string json = scratch("failover-follows.json");
  const std::string histories = scratch("failover-follows-histories");
  const Result result = run_locksim("live " + data("failover-follows-promotion.json") +
                                    " --runs 1 --fencing off --time-scale 0.1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(live_mode(read_json(json), "fencing-off")["runs_with_violation"], 0) << result.output;
  const auto lines = history_lines(histories + "/live-failover-follows-promotion-live-seed1-fencing-off.jsonl");
  ASSERT_EQ(events(lines, "redis-0", "crash").size(), 1u);
  ASSERT_EQ(events(lines, "redis-1", "replica.promote").size(), 1u);
  // Whichever worker won the free lock (live, the scheduler's choice):
  const auto first_grants = events(lines, "redis-0", "lease.grant");
  ASSERT_EQ(first_grants.size(), 1u);
  const std::string first_holder = first_grants[0]["owner"];
  // The key had replicated: the promoted replica holds that lease, the same lease.
  const auto adopted = events(lines, "redis-1", "lease.adopt");
  ASSERT_EQ(adopted.size(), 1u);
  EXPECT_EQ(adopted[0]["owner"], first_holder);
  EXPECT_EQ(events(lines, "redis-0", "lease.lost").size(), 0u);
  // The other worker asked Sentinel and was granted the lock by the new primary, with the next token.
  const auto granted = events(lines, "redis-1", "lease.grant");
  ASSERT_FALSE(granted.empty());
  EXPECT_NE(granted[0]["owner"], first_holder);
  EXPECT_EQ(granted[0]["token"], 2);
  EXPECT_EQ(events(lines, "run", "run.end")[0]["final"]["qty"], 2) << "both jobs done";
}

TEST(LiveFailover, AGrantNotYetReplicatedIsGrantedAgainByThePromotedReplicaWithTheSameToken) {
  const std::string json = scratch("failover-h7.json");
  const std::string histories = scratch("failover-h7-histories");
  const Result result = run_locksim("live " + data("failover-before-replication.json") +
                                    " --runs 1 --fencing off --time-scale 0.1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& violations = live_mode(summary, "fencing-off")["violations"];
  EXPECT_GT(violations["double_grant"], 0) << result.output;
  EXPECT_GT(violations["double_holder"], 0) << result.output;
  const auto lines = history_lines(histories + "/live-failover-before-replication-live-seed1-fencing-off.jsonl");
  const auto lost = events(lines, "redis-0", "lease.lost");
  ASSERT_EQ(lost.size(), 1u) << "the replica never received the grant";
  EXPECT_EQ(lost[0]["reason"], "failover");
  const auto first = events(lines, "redis-0", "lease.grant");
  const auto second = events(lines, "redis-1", "lease.grant");
  ASSERT_EQ(first.size(), 1u);
  ASSERT_FALSE(second.empty());
  EXPECT_NE(second[0]["owner"], first[0]["owner"]);
  EXPECT_EQ(second[0]["token"], first[0]["token"]) << "the INCR did not replicate either";
}

TEST(LiveFailover, ARestartedReplicaContinuesTheStreamSoThePromotedReplicaAdoptsTheLease) {
  const std::string json = scratch("failover-replica-restart.json");
  const std::string histories = scratch("failover-replica-restart-histories");
  const Result result = run_locksim("live " + data("failover-replica-restart.json") +
                                    " --runs 1 --fencing off --time-scale 0.1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(live_mode(read_json(json), "fencing-off")["runs_with_violation"], 0) << result.output;
  const auto lines = history_lines(histories + "/live-failover-replica-restart-live-seed1-fencing-off.jsonl");
  const auto restarted = events(lines, "redis-1", "restart");
  ASSERT_EQ(events(lines, "redis-1", "crash").size(), 1u);
  ASSERT_EQ(restarted.size(), 1u);
  ASSERT_EQ(events(lines, "redis-0", "crash").size(), 1u);
  // Without persistence of its own, it loaded the RDB of its first sync and resynced partially: it had the key again.
  const auto adopted = events(lines, "redis-1", "lease.adopt");
  ASSERT_EQ(adopted.size(), 1u) << result.output;
  EXPECT_GT(adopted[0]["t"].get<std::int64_t>(), restarted[0]["t"].get<std::int64_t>());
  EXPECT_EQ(adopted[0]["owner"], events(lines, "redis-0", "lease.grant").at(0)["owner"]);
  EXPECT_TRUE(events(lines, "redis-0", "lease.lost").empty());
}

TEST(LiveFailover, APrimaryRestartedFromItsAofHasANewStreamSoItsNextGrantIsLostInTheFailover) {
  const std::string json = scratch("failover-primary-restart.json");
  const std::string histories = scratch("failover-primary-restart-histories");
  const Result result = run_locksim("live " + data("failover-primary-restart.json") +
                                    " --runs 1 --fencing off --time-scale 0.1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_GT(live_mode(read_json(json), "fencing-off")["violations"]["double_grant"], 0) << result.output;
  const auto lines = history_lines(histories + "/live-failover-primary-restart-live-seed1-fencing-off.jsonl");
  ASSERT_EQ(events(lines, "redis-0", "restart").size(), 1u);
  ASSERT_EQ(events(lines, "redis-0", "crash").size(), 2u) << "the restart, then the crash for good";
  const auto before = events(lines, "redis-0", "lease.grant");
  const auto after = events(lines, "redis-1", "lease.grant");
  ASSERT_EQ(before.size(), 2u);
  ASSERT_FALSE(after.empty());
  const auto lost = events(lines, "redis-0", "lease.lost");
  ASSERT_EQ(lost.size(), 1u) << "the AOF kept the first lease through the restart: only the second is lost";
  EXPECT_EQ(lost[0]["reason"], "failover");
  EXPECT_EQ(lost[0]["token"], before[1]["token"]) << "the grant after the restart never reached the replica";
  EXPECT_EQ(after[0]["token"], before[1]["token"]) << "nor the INCR: the promoted replica repeats the token";
}

TEST(LiveFailover, APrimaryPausedPastDownAfterIsFailedOverByRealSentinelAndTheRunEndsAfterItWakes) {
  const std::string json = scratch("failover-pause.json");
  const std::string histories = scratch("failover-pause-histories");
  // A hang here was the coordinator blocking on the frozen server.
  const Result result = run_locksim("live failover-primary-pause --runs 1 --fencing off --time-scale 0.1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& violations = live_mode(summary, "fencing-off")["violations"];
  EXPECT_EQ(violations["double_holder"], 0) << result.output;
  EXPECT_EQ(violations["stale_write"], 0) << result.output;
  const auto lines = history_lines(histories + "/failover-primary-pause-live-seed1-fencing-off.jsonl");
  const auto paused = events(lines, "nemesis", "fault.begin");
  const auto woken = events(lines, "nemesis", "fault.end");
  const auto promoted = events(lines, "redis-1", "replica.promote");
  ASSERT_EQ(paused.size(), 1u);
  ASSERT_EQ(woken.size(), 1u);
  ASSERT_EQ(promoted.size(), 1u) << "Sentinel fails over a primary that stops answering";
  EXPECT_GT(promoted[0]["t"].get<std::int64_t>(), paused[0]["t"].get<std::int64_t>());
  EXPECT_LT(promoted[0]["t"].get<std::int64_t>(), woken[0]["t"].get<std::int64_t>()) << "during the pause";
  EXPECT_EQ(events(lines, "run", "run.end")[0]["final"]["qty"], 12) << "every job done";
}

}  // namespace
}  // namespace locksim::live
