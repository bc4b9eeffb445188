// Runs the real `locksim check` binary (its path comes from CMake) and checks
// what a user sees: exit codes, messages and the --json document.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bad_history_corpus.h"
#include "tests/scratch_directory.h"

namespace locksim::checker {
namespace {

struct CommandRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `locksim ARGUMENTS` through the shell. Arguments are test-controlled paths.
CommandRun run_locksim(const std::string& arguments) {
  const std::string command = std::string{LOCKSIM_BINARY} + " " + arguments + " 2>&1";
  CommandRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return run;
  }
  char buffer[4096];
  std::size_t bytes = 0;
  while ((bytes = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    run.output.append(buffer, bytes);
  }
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string data(const std::string& name) { return std::string{LOCKSIM_TEST_DATA_DIR} + "/" + name; }

// In the process's scratch directory: removed when the test ends, pass or fail.
std::string temporary_path(const std::string& name) { return (test_support::scratch_directory() / name).string(); }

TEST(CheckCommand, EveryBadHistoryExitsWithTwoAndTheExactMessage) {
  for (const auto& bad : testing::bad_history_corpus()) {
    const CommandRun run = run_locksim("check " + bad.path);
    EXPECT_EQ(run.exit_code, 2) << bad.path << "\n" << run.output;
    EXPECT_EQ(run.output, "locksim: " + bad.path + ":" + bad.expected_after_path + "\n");
  }
}

TEST(CheckCommand, HistoryWithViolationsExitsWithOneAndExplainsThem) {
  const std::string json_path = temporary_path("violations.json");
  const CommandRun run = run_locksim("check " + data("histories/pause-past-lease.jsonl") + " --json " + json_path);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("stale_write at 15.008s: storage accepted qty=6 from worker-1 (token 3) after it had "
                            "served a read by worker-2 at 11.001s, who was granted lock orders later (token 4) "
                            "[events 10, 14, 20]"),
            std::string::npos)
      << run.output;
  const auto document = nlohmann::json::parse(testing::read_whole_file(json_path));
  EXPECT_FALSE(document["ok"].get<bool>());
  const auto& history = document["histories"][0];
  EXPECT_EQ(history["events"], 26);
  EXPECT_EQ(history["violation_counts"]["stale_write"], 1);
  EXPECT_EQ(history["violation_counts"]["double_holder"], 1);
  EXPECT_TRUE(history["violation_counts"]["duplicate_effect"].is_null());
  EXPECT_EQ(history["violations"][1]["events"], nlohmann::json::array({10, 14, 20}));
  EXPECT_EQ(history["violations"][1]["t"], 15'008'000'000);
  EXPECT_EQ(history["counts"]["acquisitions"], 2);
  EXPECT_EQ(history["counts"]["accepted_writes"], 2);
  EXPECT_EQ(history["counts"]["late_writes"], 0);
  EXPECT_EQ(history["checks_skipped"][0]["check"], "duplicate_effect");
  std::filesystem::remove(json_path);
}

TEST(CheckCommand, AHistoryInWhichEveryCheckIsSkippedJudgedNothingAndExitsWithTwo) {
  const std::string json_path = temporary_path("nothing.json");
  const std::string history = data("histories/nothing-to-judge.jsonl");
  const CommandRun run = run_locksim("check " + history + " --json " + json_path);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find(history + ": 2 events, nothing judged (every check was skipped)"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("locksim: " + history + ": nothing judged: every check was skipped"), std::string::npos)
      << run.output;
  // The verdict is still written, and reads as no pass.
  const auto document = nlohmann::json::parse(testing::read_whole_file(json_path));
  EXPECT_FALSE(document["ok"].get<bool>());
  EXPECT_FALSE(document["histories"][0]["judged"].get<bool>());
  EXPECT_TRUE(document["histories"][0]["checks_run"].empty());
  std::filesystem::remove(json_path);
}

TEST(CheckCommand, CleanHistoryExitsWithZero) {
  const CommandRun run = run_locksim("check " + data("histories/clean-handover.jsonl"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("no violation"), std::string::npos) << run.output;
}

TEST(CheckCommand, HistoryWithOpaqueStringTokensIsCheckedForWhatNeedsNoTokenOrder) {
  const std::string json_path = temporary_path("opaque.json");
  const CommandRun run = run_locksim("check " + data("histories/opaque-tokens.jsonl") + " --json " + json_path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("not checked: stale_write       the history's tokens are opaque strings (equality only), "
                            "so token order is unknown"),
            std::string::npos)
      << run.output;
  const auto document = nlohmann::json::parse(testing::read_whole_file(json_path));
  const auto& history = document["histories"][0];
  EXPECT_TRUE(history["violation_counts"]["stale_write"].is_null());
  EXPECT_EQ(history["violation_counts"]["double_holder"], 0);
  EXPECT_EQ(history["violation_counts"]["lost_update"], 0);
  EXPECT_EQ(history["counts"]["acquisitions"], 2);
  std::filesystem::remove(json_path);
}

TEST(CheckCommand, CutOffHistoryIsCheckedAndSaysSo) {
  const CommandRun run = run_locksim("check " + data("histories/cut-off.jsonl"));
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("note: line 5 is incomplete"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("note: no run.end"), std::string::npos) << run.output;
}

TEST(CheckCommand, StuckAfterAcceptsTheKernelsDurationTextAndPlainMilliseconds) {
  // worker-1 crashes at 1 s with a lease that never expires; worker-2 fails at 8 s.
  const std::string history = data("histories/crashed-holder-without-lease.jsonl");
  EXPECT_EQ(run_locksim("check " + history).exit_code, 0);
  EXPECT_EQ(run_locksim("check " + history + " --stuck-after 5s").exit_code, 1);
  EXPECT_EQ(run_locksim("check " + history + " --stuck-after 6500").exit_code, 1);
  EXPECT_EQ(run_locksim("check " + history + " --stuck-after 7.5s").exit_code, 0);
}

TEST(CheckCommand, MalformedStuckAfterIsBadUsage) {
  const CommandRun run = run_locksim("check " + data("histories/clean-handover.jsonl") + " --stuck-after 5parsecs");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("locksim: --stuck-after: expected a duration"), std::string::npos) << run.output;
  EXPECT_EQ(run_locksim("check " + data("histories/clean-handover.jsonl") + " --stuck-after -5s").exit_code, 2);
}

TEST(CheckCommand, MissingHistoryFileIsBadInputNamingTheFile) {
  const CommandRun run = run_locksim("check /nonexistent/history.jsonl");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.output, "locksim: /nonexistent/history.jsonl: cannot open the history: No such file or directory\n");
}

TEST(CheckCommand, NoHistoryIsBadUsage) { EXPECT_EQ(run_locksim("check").exit_code, 2); }

TEST(CheckCommand, OneBadFileAmongGoodOnesStillExitsWithTwo) {
  const CommandRun run = run_locksim("check " + data("histories/clean-handover.jsonl") + " " +
                              data("bad-histories/unknown-ev.jsonl"));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.output.find("no violation"), std::string::npos) << run.output;
}

TEST(CheckCommand, SameHistoryGivesTheSameJsonBytes) {
  const std::string first = temporary_path("first.json");
  const std::string second = temporary_path("second.json");
  run_locksim("check " + data("histories/pause-past-lease.jsonl") + " --json " + first);
  run_locksim("check " + data("histories/pause-past-lease.jsonl") + " --json " + second);
  EXPECT_EQ(testing::read_whole_file(first), testing::read_whole_file(second));
  EXPECT_FALSE(testing::read_whole_file(first).empty());
  std::filesystem::remove(first);
  std::filesystem::remove(second);
}

}  // namespace
}  // namespace locksim::checker
