// `locksim live` as a user runs it, against real redis-servers on free
// loopback ports (locksim starts its own; the safety tests start one to
// point --redis at): the control has no violation; a pause past the lease
// gives a stale write and a lost update without fencing and none with it; a
// plain DEL deletes another's lease; each run's history, checked again by
// `locksim check`, gives the verdict the run printed; a key that was there
// before is untouched and only the run's own keys are deleted; the lock
// server, crashed and restarted for real, keeps what its persistence keeps;
// under noeviction with maxmemory reached it refuses acquires (-OOM) and
// still takes releases.
// Redlock over N servers of locksim's own: the control has no violation;
// two of three instances killed and restarted without persistence give a
// double grant (H6), with appendfsync always none; a Redlock client frozen
// with its replies unread wakes to a quorum of expired leases without the
// elapsed-time re-check (H14) and fails its round with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../cli/locksim_process.h"
#include "live_summary.h"
#include "live/redis_client.h"
#include "live/redis_server.h"

namespace locksim::live {
namespace {

using cli_test::Result;
using cli_test::run_locksim;
using cli_test::scratch;

TEST(LiveCommand, TheControlRunsAgainstARealRedisWithNoViolation) {
  const std::string json = scratch("control.json");
  const Result result = run_locksim("live control-no-faults --runs 1 --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("control-no-faults (live)"), std::string::npos) << result.output;
  const nlohmann::json summary = read_json(json);
  for (const std::string mode : {"fencing-off", "fencing-on"}) {
    EXPECT_EQ(live_mode(summary, mode)["runs_with_violation"], 0) << mode;
    EXPECT_EQ(live_mode(summary, mode)["counts"]["accepted_writes"], 15) << mode << ": 3 workers × 5 jobs";
  }
}

TEST(LiveCommand, APausePastTheLeaseWritesStaleAndLosesAnUpdateWithoutFencingAndNotWithIt) {
  const std::string json = scratch("pause.json");
  const std::string histories = scratch("pause-histories");
  const Result result =
      run_locksim("live " + data("pause-before-write-past-lease.json") + " --runs 1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off")["violations"];
  const nlohmann::json& on = live_mode(summary, "fencing-on")["violations"];
  EXPECT_GT(off["stale_write"], 0) << result.output;
  EXPECT_GT(off["lost_update"], 0) << result.output;
  EXPECT_EQ(on["stale_write"], 0) << result.output;
  EXPECT_EQ(on["lost_update"], 0) << result.output;
  EXPECT_GT(live_mode(summary, "fencing-on")["counts"]["rejected_writes"], 0) << "fencing turned the late write away";

  // `locksim check` on each written history gives the verdict the run printed.
  for (const std::string mode : {"fencing-off", "fencing-on"}) {
    const std::string history = histories + "/live-pause-before-write-past-lease-live-seed1-" + mode + ".jsonl";
    ASSERT_TRUE(std::filesystem::exists(history)) << history;
    const std::string check_json = scratch("check-" + mode + ".json");
    const Result checked = run_locksim("check " + history + " --json " + check_json);
    // Both modes have the double holder: fencing does not stop a second holder.
    EXPECT_EQ(checked.exit_code, live_mode(summary, mode)["runs_with_violation"] > 0 ? 1 : 0) << checked.output;
    const nlohmann::json verdict = read_json(check_json)["histories"][0]["violation_counts"];
    for (const auto& [kind, count] : live_mode(summary, mode)["violations"].items()) {
      // A check the history's workload skips is null in check's JSON and 0 in a summary.
      const nlohmann::json checked_count = verdict.contains(kind) ? verdict[kind] : nlohmann::json{};
      EXPECT_EQ(checked_count.is_null() ? 0 : checked_count.get<std::int64_t>(), count.get<std::int64_t>())
          << mode << " " << kind;
    }
  }
}

TEST(LiveCommand, APlainDelOfAFrozenHolderDeletesTheNextHoldersLease) {
  const std::string json = scratch("plain-del.json");
  const Result result = run_locksim("live " + data("plain-del-past-lease.json") + " --runs 1 --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_GT(live_mode(read_json(json), "fencing-off")["violations"]["foreign_release"], 0) << result.output;
}

// Every history line of `path` whose ev is `event`.
std::vector<nlohmann::json> events_named(const std::string& path, const std::string& event) {
  std::vector<nlohmann::json> found;
  std::ifstream file{path};
  for (std::string line; std::getline(file, line);) {
    nlohmann::json parsed = nlohmann::json::parse(line);
    if (parsed["ev"] == event) found.push_back(std::move(parsed));
  }
  return found;
}

TEST(LiveCommand, ALockServerRestartedWithoutPersistenceForgetsTheLeaseAndGrantsTheLockAgain) {
  const std::string json = scratch("restart-none.json");
  const std::string histories = scratch("restart-none-histories");
  const Result result = run_locksim("live redis-restart-no-persistence --runs 1 --fencing off --history " + histories +
                                    " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off");
  EXPECT_GT(off["violations"]["double_grant"], 0) << result.output;
  EXPECT_GT(off["violations"]["stale_write"], 0) << "the wiped token counter hands out token 1 again";

  const std::string history = histories + "/redis-restart-no-persistence-live-seed1-fencing-off.jsonl";
  const std::vector<nlohmann::json> crashes = events_named(history, "crash");
  const std::vector<nlohmann::json> restarts = events_named(history, "restart");
  const std::vector<nlohmann::json> lost = events_named(history, "lease.lost");
  ASSERT_EQ(crashes.size(), 1u);
  ASSERT_EQ(restarts.size(), 1u);
  EXPECT_EQ(crashes[0]["proc"], "redis-0");
  ASSERT_EQ(lost.size(), 1u) << "the one lease held at the crash";
  EXPECT_EQ(lost[0]["reason"], "restart");
  EXPECT_GT(lost[0]["i"], restarts[0]["i"]);
  // The grant before the crash came from the log's subscription (the restarted server's list is empty).
  EXPECT_EQ(events_named(history, "lease.grant").size(), 2u);
}

TEST(LiveCommand, AProcessCrashWithEverysecPersistenceKeepsTheLease) {
  const std::string json = scratch("everysec-crash.json");
  const Result result = run_locksim("live redis-everysec-process-crash --runs 2 --fencing off --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off");
  EXPECT_EQ(off["violations"]["double_grant"], 0) << result.output;
  EXPECT_EQ(off["faults_fired"]["faults[0]"], 2) << "the crash fired in both runs: " << result.output;
}

TEST(LiveCommand, AFullNoevictionServerAnswersAcquiresOomAndStillTakesTheRelease) {
  const std::string json = scratch("noeviction.json");
  const std::string histories = scratch("noeviction-histories");
  const Result result = run_locksim("live redis-eviction-noeviction --runs 1 --fencing off --time-scale 0.1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(live_mode(read_json(json), "fencing-off")["runs_with_violation"], 0) << result.output;
  const std::string history = histories + "/redis-eviction-noeviction-live-seed1-fencing-off.jsonl";
  const std::vector<nlohmann::json> begins = events_named(history, "fault.begin");
  const std::vector<nlohmann::json> ends = events_named(history, "fault.end");
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(begins[0]["for_ns"], 3'000'000'000) << "30 s at time scale 0.1";
  // maxmemory 1 byte under noeviction: the acquire script's SET is refused, the release's DEL is not.
  std::size_t refused = 0;
  for (const nlohmann::json& failed : events_named(history, "acquire.fail")) {
    if (failed["reason"] != "out-of-memory") continue;
    ++refused;
    EXPECT_GT(failed["i"], begins[0]["i"]);
    EXPECT_LT(failed["i"], ends[0]["i"]) << "maxmemory is back to none at the fault's end";
  }
  EXPECT_GT(refused, 0u) << result.output;
  const std::vector<nlohmann::json> released = events_named(history, "lease.release");
  ASSERT_EQ(released.size(), 2u);
  EXPECT_LT(released[0]["i"], ends[0]["i"]) << "the holder released during the pressure";
  const std::vector<nlohmann::json> grants = events_named(history, "lease.grant");
  ASSERT_EQ(grants.size(), 2u);
  EXPECT_GT(grants[1]["i"], ends[0]["i"]) << "the other worker was granted the lock only after it";
}

TEST(LiveCommand, AWriteHeldByADelaySpikeLandsLastAndTheRunWaitsForIt) {
  const std::string json = scratch("spike.json");
  const std::string histories = scratch("spike-histories");
  const Result result = run_locksim("live h02-delayed-write --runs 1 --fencing off --time-scale 0.01 --history " +
                                    histories + " --json " + json);
  // Whether the checker can also call the late write stale depends on who
  // held the lock last (a write without a token is judged by its writer's
  // latest hold), which live is a race: the lost update is always there.
  ASSERT_NE(result.exit_code, 2) << result.output;
  const nlohmann::json summary = read_json(json);
  EXPECT_GT(live_mode(summary, "fencing-off")["violations"]["lost_update"], 0) << result.output;

  const std::string history = histories + "/h02-delayed-write-live-seed1-fencing-off.jsonl";
  const std::vector<nlohmann::json> accepted = events_named(history, "write.accept");
  const std::vector<nlohmann::json> done = events_named(history, "write.ok");
  // Two jobs and the write the spike held; at this time scale a request
  // timeout is 5 ms, which a loaded machine's reply can miss, and the
  // worker then tries its job again: one more accepted write each time.
  ASSERT_GE(accepted.size(), 3u) << "two jobs, and the write the spike held";
  ASSERT_EQ(done.size(), 2u) << "one per job";
  // The held write is worker-1's first (the spike's target and point),
  // whichever worker held the lock first.
  const std::vector<nlohmann::json> invoked = events_named(history, "write.invoke");
  const auto held = std::ranges::find_if(invoked, [](const nlohmann::json& write) { return write["proc"] == "worker-1"; });
  ASSERT_NE(held, invoked.end());
  EXPECT_EQ(accepted.back()["writer"], "worker-1");
  EXPECT_EQ(accepted.back()["value"], (*held)["value"]) << "the held write lands last";
  EXPECT_GT(accepted.back()["i"], done.back()["i"]) << "after every worker was done: the run waited for it";
}

TEST(LiveCommand, APartitionFromTheLockServerStarvesTheWatchdogAndTheLeasePassesOn) {
  // The built-in with both workers asking at t = 0, so that worker-1, whom
  // the partition cuts off, holds first in this one run (with the default
  // starts it does in about a third of the seeds).
  nlohmann::json scenario = nlohmann::json::parse(cli_test::read_text(std::string{LOCKSIM_SOURCE_DIR} + "/scenarios/h12-renewal-cut-off.json"));
  scenario["workers"]["start"] = "0s";
  const std::string file = scratch("h12-start-together.json");
  std::ofstream{file} << scenario.dump();
  const std::string json = scratch("partition.json");
  const Result result = run_locksim("live " + file + " --runs 1 --fencing off --time-scale 0.02 --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  EXPECT_GT(live_mode(summary, "fencing-off")["violations"]["double_holder"], 0) << result.output;
  EXPECT_GT(live_mode(summary, "fencing-off")["violations"]["stale_write"], 0) << result.output;
}

TEST(LiveCommand, ARenewalCutOffIsReSentAndAStoppingWatchdogEndsAfterTheLastReSend) {
  // The older Redisson's watchdog: 3 re-sends 1.5 s apart, then it stops.
  const std::string histories = scratch("renewal-resends");
  const Result result = run_locksim("live h26-watchdog-renewal-timeout-stop --runs 1 --fencing off --history " + histories);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string history = histories + "/h26-watchdog-renewal-timeout-stop-live-seed1-fencing-off.jsonl";
  const auto by_worker_1 = [](std::vector<nlohmann::json> events) {
    std::erase_if(events, [](const nlohmann::json& event) { return event["proc"] != "worker-1"; });
    return events;
  };
  const std::vector<nlohmann::json> sent = by_worker_1(events_named(history, "renew.invoke"));
  const std::vector<nlohmann::json> failed = by_worker_1(events_named(history, "renew.fail"));
  ASSERT_EQ(sent.size(), 4u) << "the renewal and its 3 re-sends, then no more";
  ASSERT_EQ(failed.size(), 4u);
  for (const nlohmann::json& fail : failed) EXPECT_EQ(fail["reason"], "timeout");
  // 1.5 s apart in scenario time, 75 ms at the default scale 0.05, after a 25 ms timeout.
  const std::int64_t gap = sent[1]["t"].get<std::int64_t>() - failed[0]["t"].get<std::int64_t>();
  EXPECT_GE(gap, 75'000'000);
  EXPECT_TRUE(by_worker_1(events_named(history, "renew.ok")).empty());
}

TEST(LiveCommand, APauseAtARestartedWorkersNthAcquireCountsItsEarlierProcessesAsTheSimulatorDoes) {
  const std::string json = scratch("pause-after-restart.json");
  const Result result = run_locksim("live " + data("pause-after-restart.json") + " --runs 1 --compare-sim --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  for (int which = 0; which < 2; ++which) {
    const nlohmann::json& off = summary["scenarios"][which]["modes"]["fencing-off"];
    EXPECT_EQ(off["faults_fired"]["faults[0]"], 1) << summary["scenarios"][which]["name"] << ": the crash";
    EXPECT_EQ(off["faults_fired"]["faults[1]"], 1) << summary["scenarios"][which]["name"]
                                                   << ": the pause at worker-1's second acquisition";
  }
}

TEST(LiveCommand, AKeyThatWasThereBeforeIsUntouchedAndOnlyTheRunsOwnKeysAreDeleted) {
  const RedisServer server;
  RedisClient client{server.host(), server.port()};
  client.command({"SET", "precious", "42"});
  const std::string redis = " --redis " + server.host() + ":" + std::to_string(server.port());

  const Result refused = run_locksim("live control-no-faults --runs 1" + redis);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the database holds 1 keys; give --prefix P"), std::string::npos) << refused.output;

  const Result beside = run_locksim("live control-no-faults --runs 1 --prefix test:" + redis);
  EXPECT_EQ(beside.exit_code, 0) << beside.output;
  EXPECT_EQ(client.command({"GET", "precious"}).text, "42");
  EXPECT_EQ(client.command({"DBSIZE"}).integer, 1) << "the run deleted every key it made, and only those";
}

TEST(LiveCommand, ARemoteRedisIsRefusedUnlessAllowedAndAnUnsupportedScenarioNamesItsPath) {
  const Result remote = run_locksim("live control-no-faults --redis 10.1.2.3:6379");
  EXPECT_EQ(remote.exit_code, 2) << remote.output;
  EXPECT_NE(remote.output.find("live mode talks only to loopback"), std::string::npos) << remote.output;

  // etcd 3.4.3's bug is the simulator's alone: the live client has v3.5.0's fix.
  const Result consensus = run_locksim("live h15-etcd-waiter-expires --runs 1");
  EXPECT_EQ(consensus.exit_code, 2) << consensus.output;
  EXPECT_NE(consensus.output.find("/service/etcd_3_4_3_lock_bug: live mode's etcd client checks its own key"),
            std::string::npos)
      << consensus.output;
  const Result scaled_consensus = run_locksim("live h16-consensus-holder-pause --runs 1 --time-scale 0.5");
  EXPECT_EQ(scaled_consensus.exit_code, 2) << scaled_consensus.output;
  EXPECT_NE(scaled_consensus.output.find("which runs live at time scale 1"), std::string::npos) << scaled_consensus.output;

  const Result failover_on_yours = run_locksim("live h07-failover-before-replication --runs 1 --redis 127.0.0.1:6379");
  EXPECT_EQ(failover_on_yours.exit_code, 2) << failover_on_yours.output;
  EXPECT_NE(failover_on_yours.output.find("a redis-failover scenario runs on a primary, a replica and a Sentinel of locksim's own"),
            std::string::npos)
      << failover_on_yours.output;

  const Result redlock_on_one = run_locksim("live h05-redlock-clock-jump --runs 1 --redis 127.0.0.1:6379");
  EXPECT_EQ(redlock_on_one.exit_code, 2) << redlock_on_one.output;
  EXPECT_NE(redlock_on_one.output.find("has a Redlock service of 5 instances, which live mode starts itself"),
            std::string::npos)
      << redlock_on_one.output;

  // A partition that drops messages: TCP has no such thing.
  nlohmann::json dropping = read_json(data("plain-del-past-lease.json"));
  dropping["network"]["partitions"] = "drop";
  const std::string dropping_file = scratch("dropping-partition.json");
  std::ofstream{dropping_file} << dropping.dump();
  const Result drop = run_locksim("live " + dropping_file + " --runs 1");
  EXPECT_EQ(drop.exit_code, 2) << drop.output;
  EXPECT_NE(drop.output.find("/network/partitions: \"drop\" has no live form"), std::string::npos) << drop.output;
}

TEST(LiveCommand, RedlockOverFiveRealServersWithoutFaultsHasNoViolation) {
  const std::string json = scratch("redlock-control.json");
  const Result result = run_locksim("live " + data("redlock-control.json") + " --runs 1 --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("against 5 redis-servers (Redlock)"), std::string::npos) << result.output;
  const nlohmann::json summary = read_json(json);
  for (const std::string mode : {"fencing-off", "fencing-on"}) {
    EXPECT_EQ(live_mode(summary, mode)["runs_with_violation"], 0) << mode;
    EXPECT_EQ(live_mode(summary, mode)["counts"]["accepted_writes"], 6) << mode << ": 3 workers × 2 jobs";
  }
}

// The counts of each kind in a summary's mode equal `locksim check`'s verdict of the same run's history.
void expect_check_agrees(const nlohmann::json& mode_summary, const std::string& history) {
  ASSERT_TRUE(std::filesystem::exists(history)) << history;
  const std::string check_json = scratch("check-" + std::filesystem::path{history}.stem().string() + ".json");
  const Result checked = run_locksim("check " + history + " --json " + check_json);
  EXPECT_EQ(checked.exit_code, mode_summary["runs_with_violation"] > 0 ? 1 : 0) << checked.output;
  const nlohmann::json verdict = read_json(check_json)["histories"][0]["violation_counts"];
  for (const auto& [kind, count] : mode_summary["violations"].items()) {
    const nlohmann::json checked_count = verdict.contains(kind) ? verdict[kind] : nlohmann::json{};
    EXPECT_EQ(checked_count.is_null() ? 0 : checked_count.get<std::int64_t>(), count.get<std::int64_t>()) << kind;
  }
}

TEST(LiveCommand, RedlockInstancesRestartedEmptyGrantTheLockTwiceAndTheHistoryChecksTheSame) {
  const std::string json = scratch("redlock-restart-empty.json");
  const std::string histories = scratch("redlock-restart-empty-histories");
  const Result result = run_locksim("live " + data("redlock-restart-empty.json") + " --runs 1 --history " + histories +
                                    " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off");
  EXPECT_GT(off["violations"]["double_grant"], 0) << result.output;
  EXPECT_GT(off["violations"]["double_holder"], 0) << result.output;
  const std::string history = histories + "/live-redlock-restart-empty-live-seed1-fencing-off.jsonl";
  expect_check_agrees(off, history);
  // The restarted instances say what they forgot, as the simulator does.
  int lost = 0;
  for (const nlohmann::json& event : history_lines(history)) {
    if (event["ev"] == "lease.lost" && event["reason"] == "restart") ++lost;
  }
  EXPECT_EQ(lost, 2) << "redis-0 and redis-1 came back without the holder's key";
}

TEST(LiveCommand, RedlockInstancesRestartedWithTheirAppendOnlyFileKeepTheLock) {
  const std::string json = scratch("redlock-restart-persistent.json");
  const Result result = run_locksim("live " + data("redlock-restart-persistent.json") + " --runs 1 --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off");
  EXPECT_EQ(off["violations"]["double_grant"], 0) << result.output;
  EXPECT_EQ(off["violations"]["double_holder"], 0) << result.output;
  EXPECT_EQ(off["counts"]["accepted_writes"], 2) << result.output;
  EXPECT_EQ(off["faults_fired"]["faults[0]"], 1) << "redis-0 was killed and restarted";
  EXPECT_EQ(off["faults_fired"]["faults[1]"], 1) << "redis-1 was killed and restarted";
}

// Runs the frozen-round file once (with `recheck_elapsed` set) and returns its history.
std::vector<nlohmann::json> frozen_round_history(bool recheck_elapsed) {
  nlohmann::json scenario = read_json(data("redlock-frozen-round.json"));
  scenario["service"]["recheck_elapsed"] = recheck_elapsed;
  const std::string name = recheck_elapsed ? "frozen-recheck" : "frozen-no-recheck";
  const std::string file = scratch(name + ".json");
  std::ofstream{file} << scenario.dump();
  const std::string histories = scratch(name + "-histories");
  const Result result = run_locksim("live " + file + " --runs 1 --history " + histories);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return history_lines(histories + "/live-redlock-frozen-round-live-seed1-fencing-off.jsonl");
}

TEST(LiveCommand, ARedlockClientFrozenBeforeItsRepliesBelievesInExpiredLeasesUnlessItRechecksTheElapsedTime) {
  // Without the re-check: its first acquire.ok comes after all five instances' leases expired.
  int expired = 0;
  bool believed = false;
  for (const nlohmann::json& line : frozen_round_history(false)) {
    if (line["ev"] == "lease.expire") ++expired;
    if (line["ev"] == "acquire.ok") {
      EXPECT_EQ(expired, 5) << "it counted a quorum of replies sent before the freeze";
      believed = true;
      break;
    }
  }
  EXPECT_TRUE(believed);

  // With it: the same round fails, validity gone, and a later one succeeds.
  std::vector<std::string> outcomes;
  for (const nlohmann::json& line : frozen_round_history(true)) {
    if (line["ev"] == "acquire.fail") outcomes.push_back(line["reason"].get<std::string>());
    if (line["ev"] == "acquire.ok") outcomes.push_back("ok");
  }
  ASSERT_GE(outcomes.size(), 2u);
  EXPECT_EQ(outcomes.front(), "validity-elapsed");
  EXPECT_EQ(outcomes.back(), "ok");
}

}  // namespace
}  // namespace locksim::live
