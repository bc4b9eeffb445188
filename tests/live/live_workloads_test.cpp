// `locksim live` on the client and workload variants the simulator has and
// live mode now runs too: get-then-set (H9: GET, then a plain SET, two round
// trips) grants the lock twice and overwrites a live lease; billing through
// the external payments script charges a customer twice when the holder
// freezes with its charge in hand — fencing or not — and not when the
// idempotency key is derived from the job.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../cli/locksim_process.h"
#include "live_summary.h"

namespace locksim::live {
namespace {

using cli_test::Result;
using cli_test::run_locksim;
using cli_test::scratch;

std::string histories_text(const std::string& directory) {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    std::ifstream file{entry.path()};
    text += std::string{std::istreambuf_iterator<char>{file}, {}};
  }
  return text;
}

TEST(LiveWorkloads, GetThenSetGrantsTheLockTwiceAndOverwritesALiveLease) {
  const std::string json = scratch("get-then-set.json");
  const std::string histories = scratch("get-then-set-histories");
  // Six workers racing for a free key: most runs have the race (4 runs, so that all four missing it is rare).
  const Result result = run_locksim("live " + data("get-then-set-race.json") + " --runs 4 --history " + histories +
                                    " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_GT(live_mode(read_json(json), "fencing-off")["violations"]["double_grant"], 0) << result.output;
  const std::string text = histories_text(histories);
  EXPECT_NE(text.find(R"("ev":"lease.lost","lock":"lock")"), std::string::npos) << "the plain SET's script logs the replaced lease";
  EXPECT_NE(text.find(R"("reason":"overwritten")"), std::string::npos);
}

TEST(LiveWorkloads, AChargeFrozenInHandIsChargedTwiceFencedOrNot) {
  const std::string json = scratch("billing.json");
  const std::string histories = scratch("billing-histories");
  const Result result = run_locksim("live " + data("billing-pause-before-charge.json") + " --runs 1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  EXPECT_GT(live_mode(summary, "fencing-off")["violations"]["duplicate_effect"], 0) << result.output;
  EXPECT_GT(live_mode(summary, "fencing-on")["violations"]["duplicate_effect"], 0) << "payments takes no token: " << result.output;
  EXPECT_GT(live_mode(summary, "fencing-on")["counts"]["rejected_writes"], 0) << "fencing turned only the cursor write away";
  EXPECT_NE(histories_text(histories).find(R"("proc":"payments","ev":"effect.accept","job":0)"), std::string::npos);
}

TEST(LiveWorkloads, AJobDerivedIdempotencyKeyDropsTheLateRepeatOfTheCharge) {
  const std::string json = scratch("billing-keys.json");
  const std::string histories = scratch("billing-keys-histories");
  const Result result = run_locksim("live " + data("billing-pause-before-charge-job-keys.json") + " --runs 1 --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  for (const std::string mode : {"fencing-off", "fencing-on"}) {
    EXPECT_EQ(live_mode(summary, mode)["violations"]["duplicate_effect"], 0) << mode << ": " << result.output;
    EXPECT_EQ(live_mode(summary, mode)["faults_fired"]["faults[0]"], 1) << mode << ": the pause happened";
  }
  // worker-1's late charge (of customer 0 or 1: whoever won the first grant) was dropped and answered as replayed.
  int dropped = 0;
  std::istringstream lines{histories_text(histories)};
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["ev"] != "effect.reject") continue;
    EXPECT_EQ(event["reason"], "duplicate-request") << line;
    EXPECT_EQ(event["request_id"], fmt::format("customer-{}", event["job"].get<int>())) << line;
    if (event["writer"] == "worker-1") ++dropped;
  }
  EXPECT_GE(dropped, 2) << "one of worker-1's in each mode";
  EXPECT_NE(histories_text(histories).find(R"("ev":"effect.ok","replayed":true)"), std::string::npos);
}

// The give-up rules are the simulator's (model/client_rules.h): live gives
// the same job up at the same attempt, with the same reason, and the job
// is counted unfinished in both. Which worker loses the first race for the
// free lock is the simulator's seed but the live scheduler's choice, so each
// history must show exactly one worker giving up, whichever it is.
void expect_one_give_up(const std::string& history_file, const std::string& reason, int tries) {
  std::ifstream file{history_file};
  int give_ups = 0;
  for (std::string line; std::getline(file, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["ev"] != "acquire.give_up") continue;
    ++give_ups;
    EXPECT_EQ(event["reason"], reason) << history_file << ": " << line;
    EXPECT_EQ(event["tries"], tries) << history_file << ": " << line;
  }
  EXPECT_EQ(give_ups, 1) << history_file;
}

void expect_gives_up_as_simulated(const std::string& scenario, const std::string& reason, int tries) {
  const std::string json = scratch(scenario + ".json");
  const std::string histories = scratch(scenario + "-histories");
  const Result result = run_locksim("live " + data(scenario + ".json") + " --runs 1 --fencing off --compare-sim --history " +
                                    histories + " --json " + json);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const nlohmann::json summary = read_json(json);
  ASSERT_EQ(summary["scenarios"].size(), 2u) << "live and simulated";
  for (const nlohmann::json& side : summary["scenarios"]) {
    EXPECT_EQ(side["modes"]["fencing-off"]["unfinished_jobs"], 1) << side["name"];
  }
  expect_one_give_up(histories + "/live-" + scenario + "-live-seed1-fencing-off.jsonl", reason, tries);
  const std::string simulated = scratch(scenario + "-simulated.jsonl");
  (void)run_locksim("replay " + data(scenario + ".json") + " --seed 1 --fencing off --history " + simulated);
  expect_one_give_up(simulated, reason, tries);
}

TEST(LiveWorkloads, MaxTriesGivesTheJobUpAtTheSameAttemptAsTheSimulator) {
  expect_gives_up_as_simulated("give-up-max-tries", "max-tries", 2);
}

TEST(LiveWorkloads, AcquireTimeoutGivesTheJobUpAtItsDeadlineAsTheSimulator) {
  // Attempts at 0 and 2 s; the next wait is cut to the 3 s deadline, where a third attempt fails.
  expect_gives_up_as_simulated("give-up-acquire-timeout", "timeout", 3);
}

TEST(LiveWorkloads, AWriteOnlyJobDoneAgainWritesTheJobsNumberNotTheAttempts) {
  const std::string histories = scratch("write-only-redo-histories");
  const Result result =
      run_locksim("live " + data("write-only-redo.json") + " --runs 1 --fencing on --history " + histories);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file{histories + "/live-write-only-redo-live-seed1-fencing-on.jsonl"};
  int writes = 0;
  for (std::string line; std::getline(file, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["ev"] != "write.invoke" || event["proc"] != "worker-1") continue;
    ++writes;
    EXPECT_EQ(event["value"], 1) << "worker-1's one job, written again after its stale write was rejected: " << line;
  }
  EXPECT_EQ(writes, 2) << "the frozen write, then the job done again";
}

}  // namespace
}  // namespace locksim::live
