// `locksim live` on consensus scenarios, against a real 3-member etcd
// cluster locksim starts for each run: a holder frozen past its session's
// TTL is two holders, and the revision it carries fences its late write;
// the leader frozen past the TTL, or killed and restarted, ends no session
// (a new leader adopts the lease), and the workers finish with no violation.
// Each history, checked again by `locksim check`, gives the run's verdict.
#include <gtest/gtest.h>

#include <algorithm>
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

// The history's lines of `event` (about `owner`'s lease, if one is named).
std::vector<nlohmann::json> lines_of(const std::vector<nlohmann::json>& history, const std::string& event,
                                     const std::string& owner = "") {
  std::vector<nlohmann::json> found;
  std::ranges::copy_if(history, std::back_inserter(found), [&](const nlohmann::json& line) {
    return line["ev"] == event && (owner.empty() || line.value("owner", "") == owner);
  });
  return found;
}

// One `locksim live NAME --runs 1 --fencing off` and what it wrote.
struct FencingOffRun {
  Result result;
  nlohmann::json summary;              // live --json
  std::string history;                 // the history file
  std::vector<nlohmann::json> lines;   // its lines
};

FencingOffRun run_live_fencing_off(const std::string& name) {
  const std::string json = scratch(name + ".json");
  const std::string histories = scratch(name + "-histories");
  FencingOffRun run;
  run.result = run_locksim("live " + name + " --runs 1 --fencing off --history " + histories + " --json " + json);
  if (run.result.exit_code != 0) return run;
  run.summary = read_json(json);
  run.history = histories + "/" + name + "-live-seed1-fencing-off.jsonl";
  run.lines = history_lines(run.history);
  return run;
}

// The run went through, with no violation, and the holder (worker-1) kept its session.
void expect_no_session_ended(const FencingOffRun& run) {
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(live_mode(run.summary, "fencing-off")["runs_with_violation"], 0) << run.result.output;
  // The holder's session never ended. A waiter's abandoned key may: an attempt
  // that timed out (no leader, or a loaded machine) leaves its key queued,
  // granted and unused until its session runs out, as in the model.
  EXPECT_TRUE(lines_of(run.lines, "lease.expire", "worker-1").empty()) << "the holder's session ended";
}

// `locksim check` on a written history agrees with the run's verdict.
void expect_check_agrees(const std::string& history, const nlohmann::json& mode_summary) {
  const Result checked = run_locksim("check " + history);
  EXPECT_EQ(checked.exit_code, mode_summary["runs_with_violation"] > 0 ? 1 : 0) << checked.output;
}

TEST(ConsensusLive, AHolderFrozenPastItsSessionIsTwoHoldersAndTheRevisionFencesItsWrite) {
  const std::string json = scratch("holder-pause.json");
  const std::string histories = scratch("holder-pause-histories");
  const Result result = run_locksim("live h16-consensus-holder-pause --runs 1 --history " + histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("an etcd cluster of 3 members"), std::string::npos) << result.output;
  const nlohmann::json summary = read_json(json);
  const nlohmann::json& off = live_mode(summary, "fencing-off")["violations"];
  const nlohmann::json& on = live_mode(summary, "fencing-on")["violations"];
  EXPECT_GT(off["double_holder"], 0) << result.output;
  EXPECT_GT(off["stale_write"], 0) << result.output;
  EXPECT_GT(on["double_holder"], 0) << result.output;
  EXPECT_EQ(on["stale_write"], 0) << result.output;
  EXPECT_EQ(on["double_grant"], 0) << "etcd never promised the lock to two sessions";

  const std::string history = histories + "/h16-consensus-holder-pause-live-seed1-fencing-on.jsonl";
  const std::vector<nlohmann::json> lines = history_lines(history);
  // The leader's lessor ended the frozen holder's session, then granted the waiter a higher revision.
  const std::vector<nlohmann::json> expiries = lines_of(lines, "lease.expire", "worker-1");
  ASSERT_EQ(expiries.size(), 1u) << result.output;
  const std::vector<nlohmann::json> grants = lines_of(lines, "lease.grant");
  ASSERT_GE(grants.size(), 2u);
  EXPECT_EQ(grants[1]["owner"], "worker-2");
  EXPECT_GT(grants[1]["token"], grants[0]["token"]);
  const std::int64_t session_ended = expiries[0]["t"].get<std::int64_t>() - grants[0]["t"].get<std::int64_t>();
  EXPECT_GE(session_ended, 10'000'000'000) << "not before the TTL";
  EXPECT_LE(session_ended, 11'000'000'000) << "the lessor looks every 500 ms";
  expect_check_agrees(history, live_mode(summary, "fencing-on"));
}

TEST(ConsensusLive, TheLeaderFrozenPastTheTtlEndsNoSession) {
  const FencingOffRun run = run_live_fencing_off("h16-consensus-leader-pause");
  ASSERT_NO_FATAL_FAILURE(expect_no_session_ended(run));
  const std::vector<nlohmann::json> paused = lines_of(run.lines, "fault.begin");
  ASSERT_EQ(paused.size(), 1u);
  EXPECT_EQ(paused[0]["target"], "consensus-0") << "the run begins with consensus-0 leading";
  // Another member took over within a few seconds, with the holder's lease at TTL + election timeout.
  const std::vector<nlohmann::json> adopted = lines_of(run.lines, "lease.adopt");
  ASSERT_EQ(adopted.size(), 1u) << run.result.output;
  EXPECT_NE(adopted[0]["proc"], "consensus-0");
  EXPECT_EQ(adopted[0]["owner"], "worker-1");
  EXPECT_EQ(adopted[0]["lease_ns"], 11'000'000'000);
  EXPECT_LT(adopted[0]["t"].get<std::int64_t>() - paused[0]["t"].get<std::int64_t>(), 5'000'000'000);
  EXPECT_EQ(lines_of(run.lines, "write.ok").size(), 2u) << "both workers did their job";
  expect_check_agrees(run.history, live_mode(run.summary, "fencing-off"));
}

TEST(ConsensusLive, TheLeaderKilledAndRestartedEndsNoSession) {
  const FencingOffRun run = run_live_fencing_off("h16-consensus-member-crash");
  ASSERT_NO_FATAL_FAILURE(expect_no_session_ended(run));
  const std::vector<nlohmann::json> crashes = lines_of(run.lines, "crash");
  const std::vector<nlohmann::json> restarts = lines_of(run.lines, "restart");
  ASSERT_EQ(crashes.size(), 1u);
  ASSERT_EQ(restarts.size(), 1u);
  EXPECT_EQ(crashes[0]["proc"], "consensus-0");
  EXPECT_EQ(restarts[0]["proc"], "consensus-0");
  EXPECT_EQ(lines_of(run.lines, "lease.adopt").size(), 1u);
  EXPECT_EQ(lines_of(run.lines, "write.ok").size(), 2u) << "both workers did their job";
  expect_check_agrees(run.history, live_mode(run.summary, "fencing-off"));
}

}  // namespace
}  // namespace locksim::live
