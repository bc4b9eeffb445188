// `locksim live` with the example worker programs built on worker-helpers/:
// redis-py's own Lock, the npm redlock library (one instance and five),
// redis-semaphore's Mutex, and python-etcd3's Lock on a real three-member etcd
// cluster (time scale 1). Each control is clean; each pause past the lease
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

// One live run (seed 1, fencing off) of an example scenario: what locksim
// printed, the mode's summary and the history (both empty when it failed).
struct ExampleRun {
  Result result;
  nlohmann::json mode;
  std::string history_file;
  std::vector<nlohmann::json> history;
};

ExampleRun run_example(const std::string& scenario, const std::string& tag, const std::string& flags = "") {
  const std::string json = scratch(tag + ".json");
  const std::string histories = scratch(tag + "-histories");
  ExampleRun run;
  run.result = run_locksim("live " + example(scenario) + " --runs 1 " + flags + " --history " + histories + " --json " + json);
  if (run.result.exit_code != 0 || !std::filesystem::exists(json)) return run;
  run.mode = live_mode(read_json(json), "fencing-off");
  run.history_file = histories + "/" + read_json(example(scenario))["name"].get<std::string>() +
                     "-live-seed1-fencing-off.jsonl";
  run.history = history_lines(run.history_file);
  return run;
}

void expect_no_violation(const ExampleRun& run) {
  for (const auto& [kind, count] : run.mode["violations"].items()) {
    EXPECT_EQ(count, 0) << kind << "\n" << run.result.output;
  }
}

// No violation of any kind, live.
void expect_clean(const std::string& scenario, const std::string& tag) {
  const ExampleRun run = run_example(scenario, tag + "-control");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(run.mode["stopped_short"], 0) << run.result.output;
  expect_no_violation(run);
}

// The pause past the lease: the hazard in the run, the same verdict from
// `check` on the history, and the pause right after worker-1's write.invoke.
void expect_pause_past_lease(const std::string& scenario, const std::string& tag) {
  const ExampleRun run = run_example(scenario, tag + "-pause");
  const Result& result = run.result;
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json& mode = run.mode;
  EXPECT_EQ(mode["stopped_short"], 0) << result.output;
  // By construction (the file's description): worker-1 holds first, and
  // worker-2's whole job falls inside worker-1's pause.
  EXPECT_GT(mode["violations"]["double_holder"], 0) << result.output;
  EXPECT_GT(mode["violations"]["stale_write"], 0) << result.output;
  EXPECT_GT(mode["violations"]["lost_update"], 0) << result.output;

  const std::string check_json = scratch(tag + "-check.json");
  const Result checked = run_locksim("check " + run.history_file + " --json " + check_json);
  EXPECT_EQ(checked.exit_code, mode["runs_with_violation"] > 0 ? 1 : 0) << checked.output;
  const nlohmann::json verdict = read_json(check_json)["histories"][0]["violation_counts"];
  for (const auto& [kind, count] : mode["violations"].items()) {
    // A check the history's workload skips is null in check's JSON and 0 in a summary.
    const nlohmann::json checked_count = verdict.contains(kind) ? verdict[kind] : nlohmann::json{};
    EXPECT_EQ(checked_count.is_null() ? 0 : checked_count.get<std::int64_t>(), count.get<std::int64_t>()) << kind;
  }

  const std::vector<nlohmann::json>& lines = run.history;
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
  expect_pause_past_lease("redis-py-lock/pause-past-lease.json", "redis-py");
}

// redis-py's own Sentinel client through locksim's proxy (link_port): the
// primary crashes after the grant replicated, real Sentinel promotes the
// replica, and the workers find it: no second grant, every job done.
TEST(ClientExamples, RedisPyLockFollowsRealSentinelToThePromotedReplica) {
  const ExampleRun run = run_example("redis-py-lock/failover.json", "redis-py-failover", "--time-scale 0.1");
  const Result& result = run.result;
  ASSERT_EQ(result.exit_code, 0) << result.output;
  expect_no_violation(run);
  EXPECT_EQ(run.mode["unfinished_jobs"], 0) << result.output;
  // After the promotion a worker was granted the lock, by the promoted replica: it found the new primary.
  std::int64_t promoted_at = -1;
  std::int64_t granted_after = -1;
  for (const nlohmann::json& event : run.history) {
    if (event["ev"] == "replica.promote") promoted_at = event["t"].get<std::int64_t>();
    if (promoted_at >= 0 && event["ev"] == "acquire.ok") granted_after = event["t"].get<std::int64_t>();
  }
  EXPECT_GE(promoted_at, 0) << "Sentinel promoted the replica: " << result.output;
  EXPECT_GT(granted_after, promoted_at) << "a worker was granted the lock after the promotion: " << result.output;
}

// python-etcd3's Lock (Debian's python3-etcd3 0.12.0) on etcd: the service's
// lines come from the program's own acquire.ok lines, written as consensus-0
// (one grant per acquire.ok), not from the coordinator's watch of locksim's
// own recipe's keys, which this library does not use.
void expect_grants_from_acquire_ok(const std::string& history_file) {
  const std::vector<nlohmann::json> lines = history_lines(history_file);
  int grants = 0;
  int acquired = 0;
  for (const nlohmann::json& event : lines) {
    const std::string ev = event["ev"];
    if (ev == "acquire.ok") ++acquired;
    if (!ev.starts_with("lease.")) continue;
    EXPECT_EQ(event["proc"], "consensus-0") << event.dump();
    EXPECT_NE(ev, "lease.adopt") << "no line of the watch: " << event.dump();
    if (ev == "lease.grant") ++grants;
  }
  EXPECT_GT(acquired, 0) << history_file;
  EXPECT_EQ(grants, acquired) << history_file;
}

std::string fencing_off_history(const std::string& scenario, const std::string& tag) {
  return scratch(tag + "-histories") + "/" + read_json(example(scenario))["name"].get<std::string>() +
         "-live-seed1-fencing-off.jsonl";
}

TEST(ClientExamples, PythonEtcd3LockControlIsClean) {
  expect_clean("python-etcd3-lock/control.json", "etcd3");
  if (HasFatalFailure()) return;
  expect_grants_from_acquire_ok(fencing_off_history("python-etcd3-lock/control.json", "etcd3-control"));
}

TEST(ClientExamples, PythonEtcd3LockFrozenPastItsSessionWritesStaleAndCheckAgrees) {
  expect_pause_past_lease("python-etcd3-lock/pause-past-lease.json", "etcd3");
  if (HasFatalFailure()) return;
  expect_grants_from_acquire_ok(fencing_off_history("python-etcd3-lock/pause-past-lease.json", "etcd3-pause"));
}

TEST(ClientExamples, NodeRedlockControlIsClean) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_clean("node-redlock/control.json", "redlock");
}

TEST(ClientExamples, NodeRedlockPausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_pause_past_lease("node-redlock/pause-past-lease.json", "redlock");
}

TEST(ClientExamples, NodeRedlockOnFiveInstancesPausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  expect_pause_past_lease("node-redlock/five-instances.json", "redlock-five");
}

// node-redlock's waiter gives up after 11 tries (its preset's max_tries) and
// comes back 20 s later: nobody takes the lock during the pause, live as
// simulated with the preset — and the preset is what makes them agree.
TEST(ClientExamples, NodeRedlocksWaiterGivesUpAfterElevenTriesAndTheHazardDoesNotHappen) {
  SKIP_WITHOUT_NODE_MODULES("node-redlock");
  const ExampleRun run = run_example("node-redlock/waiter-gives-up.json", "gives-up");
  const Result& result = run.result;
  ASSERT_EQ(result.exit_code, 0) << result.output;
  expect_no_violation(run);
  std::vector<std::string> give_ups;
  for (const nlohmann::json& event : run.history) {
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
  const Result simulated_run = run_locksim("run " + file + " --seeds 5 --json " + simulated_json);
  ASSERT_TRUE(std::filesystem::exists(simulated_json)) << simulated_run.output;
  const nlohmann::json simulated = read_json(simulated_json);
  EXPECT_EQ(live_mode(simulated, "fencing-off")["runs_with_violation"], 5) << simulated.dump();
}

TEST(ClientExamples, RedisSemaphoreControlIsClean) {
  SKIP_WITHOUT_NODE_MODULES("redis-semaphore");
  expect_clean("redis-semaphore/control.json", "semaphore");
}

TEST(ClientExamples, RedisSemaphorePausedPastTheLeaseWritesStaleAndCheckAgrees) {
  SKIP_WITHOUT_NODE_MODULES("redis-semaphore");
  expect_pause_past_lease("redis-semaphore/pause-past-lease.json", "semaphore");
}

}  // namespace
}  // namespace locksim::live
