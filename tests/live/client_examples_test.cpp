// `locksim live` with the example worker programs built on worker-helpers/:
// redis-py's own Lock, the npm redlock library (one instance and five) and
// redis-semaphore's Mutex. Each control is clean; each pause past the lease
// gives two holders, a stale write and a lost update — in every run, by
// construction: both workers ask at t = 0, worker-1 is granted first and
// freezes with its write in hand for twice the lease, worker-2 takes the lock
// in the meantime, and none of these libraries has a fencing token. The
// history the program printed gets from `locksim check` the verdict live
// counted, and the pause lies where the program took it itself: right after
// its write.invoke, before the write reached storage.
// The Node examples need their node_modules (`npm ci`, scripts/install-deps.sh).
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

std::string example(const std::string& path) { return std::string{LOCKSIM_SOURCE_DIR} + "/examples/" + path; }

// A Node example runs only with its packages installed.
#define SKIP_WITHOUT_NODE_MODULES(folder)                                                                        \
  if (!std::filesystem::is_directory(example(folder) + "/node_modules")) {                                       \
    GTEST_SKIP() << "examples/" folder "/node_modules is missing: run `npm ci` in examples/" folder               \
                    " (scripts/install-deps.sh does)";                                                            \
  }

std::vector<nlohmann::json> history_lines(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream file{path};
  for (std::string line; std::getline(file, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// No violation of any kind, live.
void expect_clean(const std::string& scenario, const std::string& tag) {
  const std::string json = scratch(tag + "-control.json");
  const std::string histories = scratch(tag + "-control-histories");
  const Result result =
      run_locksim("live " + example(scenario) + " --runs 1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& mode = live_mode(summary, "fencing-off");
  EXPECT_EQ(mode["stopped_short"], 0) << result.output;
  for (const auto& [kind, count] : mode["violations"].items()) EXPECT_EQ(count, 0) << kind << "\n" << result.output;
}

// The pause past the lease: the hazard in the run, the same verdict from
// `check` on the history, and the pause right after worker-1's write.invoke.
void expect_pause_past_lease(const std::string& scenario, const std::string& name, const std::string& tag) {
  const std::string json = scratch(tag + "-pause.json");
  const std::string histories = scratch(tag + "-pause-histories");
  const Result result =
      run_locksim("live " + example(scenario) + " --runs 1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& mode = live_mode(summary, "fencing-off");
  EXPECT_EQ(mode["stopped_short"], 0) << result.output;
  // By construction (the file's description): worker-1 holds first, and
  // worker-2's whole job falls inside worker-1's pause.
  EXPECT_GT(mode["violations"]["double_holder"], 0) << result.output;
  EXPECT_GT(mode["violations"]["stale_write"], 0) << result.output;
  EXPECT_GT(mode["violations"]["lost_update"], 0) << result.output;

  const std::string history = histories + "/" + name + "-live-seed1-fencing-off.jsonl";
  const std::string check_json = scratch(tag + "-check.json");
  const Result checked = run_locksim("check " + history + " --json " + check_json);
  EXPECT_EQ(checked.exit_code, mode["runs_with_violation"] > 0 ? 1 : 0) << checked.output;
  const nlohmann::json verdict = read_json(check_json)["histories"][0]["violation_counts"];
  for (const auto& [kind, count] : mode["violations"].items()) {
    // A check the history's workload skips is null in check's JSON and 0 in a summary.
    const nlohmann::json checked_count = verdict.contains(kind) ? verdict[kind] : nlohmann::json{};
    EXPECT_EQ(checked_count.is_null() ? 0 : checked_count.get<std::int64_t>(), count.get<std::int64_t>()) << kind;
  }

  const std::vector<nlohmann::json> lines = history_lines(history);
  // Both ask at t = 0 and take turns at the lock service: worker-1 first.
  for (const nlohmann::json& event : lines) {
    if (event["ev"] != "acquire.ok") continue;
    EXPECT_EQ(event["proc"], "worker-1") << "the first grant: " << event.dump();
    break;
  }

  // The program took its pause itself (the helper's live.hello and live.stop):
  // after worker-1's first write.invoke the next of its lines, or of storage's
  // about it, is the nemesis's fault.begin of its pause.
  bool after_write_invoke = false;
  bool paused_right_there = false;
  for (const nlohmann::json& event : lines) {
    if (!after_write_invoke) {
      after_write_invoke = event["proc"] == "worker-1" && event["ev"] == "write.invoke";
      continue;
    }
    if (event["proc"] == "nemesis" && event["ev"] == "fault.begin" && event.value("target", "") == "worker-1") {
      EXPECT_EQ(event.value("kind", ""), "pause") << event.dump();
      paused_right_there = true;
      break;
    }
    const bool its_own = event["proc"] == "worker-1";
    const bool its_storage = event["proc"] == "storage" &&
                             (event.value("writer", "") == "worker-1" || event.value("reader", "") == "worker-1");
    if (its_own || its_storage) {
      ADD_FAILURE() << "a line of worker-1's between its write.invoke and its pause: " << event.dump();
      break;
    }
  }
  EXPECT_TRUE(after_write_invoke) << "worker-1 never wrote: " << result.output;
  EXPECT_TRUE(paused_right_there) << "no pause of worker-1 after its write.invoke";
}

TEST(ClientExamples, RedisPyLockControlIsClean) { expect_clean("redis-py-lock/control.json", "redis-py"); }

TEST(ClientExamples, RedisPyLockPausedPastTheLeaseWritesStaleAndCheckAgrees) {
  expect_pause_past_lease("redis-py-lock/pause-past-lease.json", "redis-py-lock-pause-past-lease", "redis-py");
}

// redis-py's own Sentinel client through locksim's proxy (link_port): the
// primary crashes after the grant replicated, real Sentinel promotes the
// replica, and the workers find it: no second grant, every job done.
TEST(ClientExamples, RedisPyLockFollowsRealSentinelToThePromotedReplica) {
  const std::string json = scratch("redis-py-failover.json");
  const std::string histories = scratch("redis-py-failover-histories");
  const Result result = run_locksim("live " + example("redis-py-lock/failover.json") +
                                    " --runs 1 --time-scale 0.1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& mode = live_mode(summary, "fencing-off");
  for (const auto& [kind, count] : mode["violations"].items()) EXPECT_EQ(count, 0) << kind << "\n" << result.output;
  EXPECT_EQ(mode["unfinished_jobs"], 0) << result.output;
  // After the promotion a worker was granted the lock, by the promoted replica: it found the new primary.
  std::int64_t promoted_at = -1;
  std::int64_t granted_after = -1;
  for (const nlohmann::json& event : history_lines(histories + "/redis-py-lock-failover-live-seed1-fencing-off.jsonl")) {
    if (event["ev"] == "replica.promote") promoted_at = event["t"].get<std::int64_t>();
    if (promoted_at >= 0 && event["ev"] == "acquire.ok") granted_after = event["t"].get<std::int64_t>();
  }
  EXPECT_GE(promoted_at, 0) << "Sentinel promoted the replica: " << result.output;
  EXPECT_GT(granted_after, promoted_at) << "a worker was granted the lock after the promotion: " << result.output;
}

TEST(ClientExamples, NodeRedlockControlIsClean) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_clean("node-redlock/control.json", "redlock");
}

TEST(ClientExamples, NodeRedlockPausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_pause_past_lease("node-redlock/pause-past-lease.json", "node-redlock-pause-past-lease", "redlock");
}

TEST(ClientExamples, NodeRedlockOnFiveInstancesPausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_pause_past_lease("node-redlock/five-instances.json", "node-redlock-five-instances", "redlock-five");
}

// node-redlock's waiter gives up after 11 tries (its preset's max_tries) and
// comes back 20 s later: nobody takes the lock during the pause, live as
// simulated with the preset — and the preset is what makes them agree.
TEST(ClientExamples, NodeRedlocksWaiterGivesUpAfterElevenTriesAndTheHazardDoesNotHappen) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  const std::string json = scratch("gives-up.json");
  const std::string histories = scratch("gives-up-histories");
  const Result result = run_locksim("live " + example("node-redlock/waiter-gives-up.json") + " --runs 1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  for (const auto& [kind, count] : live_mode(summary, "fencing-off")["violations"].items()) {
    EXPECT_EQ(count, 0) << kind << "\n" << result.output;
  }
  std::vector<std::string> give_ups;
  for (const nlohmann::json& event : history_lines(histories + "/node-redlock-waiter-gives-up-live-seed1-fencing-off.jsonl")) {
    if (event["ev"] == "acquire.give_up") give_ups.push_back(event["proc"].get<std::string>() + " " + event["reason"].get<std::string>() + " " + event["tries"].dump());
  }
  EXPECT_EQ(give_ups, (std::vector<std::string>{"worker-2 max-tries 11"})) << result.output;

  // Simulated without the preset, worker-2 asks for ever and finds the hazard.
  nlohmann::json without = read_json(example("node-redlock/waiter-gives-up.json"));
  without["workers"].erase("client");
  without["workers"].erase("command");
  const std::string file = scratch("gives-up-without-preset.json");
  std::ofstream{file} << without.dump();
  const std::string simulated_json = scratch("gives-up-without-preset-summary.json");
  const Result run = run_locksim("run " + file + " --seeds 5 --json " + simulated_json);
  ASSERT_TRUE(std::filesystem::exists(simulated_json)) << run.output;
  const nlohmann::json simulated = read_json(simulated_json);
  EXPECT_EQ(live_mode(simulated, "fencing-off")["runs_with_violation"], 5) << simulated.dump();
}

TEST(ClientExamples, RedisSemaphoreControlIsClean) {
  SKIP_WITHOUT_NODE_MODULES("redis-semaphore");
  expect_clean("redis-semaphore/control.json", "semaphore");
}

TEST(ClientExamples, RedisSemaphorePausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("redis-semaphore");
  expect_pause_past_lease("redis-semaphore/pause-past-lease.json", "redis-semaphore-pause-past-lease", "semaphore");
}

}  // namespace
}  // namespace locksim::live
