// `run --shard` and `merge` as a user runs them: a shard judges nothing and
// exits 0, `merge` judges the whole and writes its JUnit, and refuses inputs
// that are not the N shards of one run with exit 2 and what is wrong. Also
// the seed limits of file and command line, and the recheck line.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "locksim_process.h"
#include "tests/summary_without_times.h"

namespace {

using locksim::cli_test::read_text;
using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;
using locksim::cli_test::scratch;

const std::string kH01 = std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json";

bool says(const Result& result, const std::string& text) { return result.output.find(text) != std::string::npos; }

// Runs shard K/N of `scenario` over `seeds` seeds into the summary file `name`; returns its path.
std::string run_shard(const std::string& scenario, int seeds, int index, int count, const std::string& name) {
  const std::string file = scratch(name);
  const Result result = run_locksim("run " + scenario + " --seeds " + std::to_string(seeds) + " --shard " +
                                    std::to_string(index) + "/" + std::to_string(count) + " --json " + file);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return file;
}

// The summary without what differs from run to run (times) or by where seeds ran (rechecks).
nlohmann::json comparable(const std::string& file) {
  return locksim::test_support::summary_without_times(nlohmann::json::parse(read_text(file)));
}

TEST(ShardRun, AShardThatMissesAGreaterThanZeroExpectationExitsZeroAndSaysPartial) {
  // One seed (1), and 1 % 3 != 0: shard 0/3 runs none, so h01's "stale_write >0" cannot hold on it.
  const std::string json = scratch("empty-shard.json");
  const std::string junit = scratch("empty-shard.xml");
  const Result result = run_locksim("run " + kH01 + " --seeds 1 --shard 0/3 --json " + json + " --junit " + junit);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(says(result, "shard 0/3: not judged; merge the shards to judge")) << result.output;
  EXPECT_FALSE(says(result, "FAIL")) << result.output;
  const nlohmann::json summary = nlohmann::json::parse(read_text(json));
  EXPECT_EQ(summary["scenarios"][0]["partial"], true);
  EXPECT_EQ(summary["scenarios"][0]["shard"], "0/3");
  EXPECT_EQ(read_text(junit).find("<failure"), std::string::npos) << read_text(junit);
  // The whole run of the same seed is judged, and fails.
  EXPECT_EQ(run_locksim("run " + kH01 + " --seeds 1").exit_code, 1);
}

TEST(MergeCommand, TheThreeShardsOfARunMergeIntoTheWholeRunWithItsJunit) {
  std::string shards;
  for (int index = 0; index < 3; ++index) shards += " " + run_shard(kH01, 9, index, 3, "h01-" + std::to_string(index) + "-of-3.json");
  const std::string whole = scratch("h01-whole.json");
  ASSERT_EQ(run_locksim("run " + kH01 + " --seeds 9 --json " + whole).exit_code, 0);
  const std::string merged = scratch("h01-merged.json");
  const std::string junit = scratch("h01-merged.xml");
  const Result result = run_locksim("merge" + shards + " --json " + merged + " --junit " + junit);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(says(result, "1 scenario: 1 reproduced their hazard")) << result.output;
  EXPECT_EQ(comparable(merged), comparable(whole));
  EXPECT_EQ(comparable(merged)["scenarios"][0]["partial"], false);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_file(junit.c_str()));
  EXPECT_STREQ(document.child("testsuites").attribute("tests").value(), "2");
  EXPECT_STREQ(document.child("testsuites").attribute("failures").value(), "0");
  EXPECT_STREQ(document.child("testsuites").child("testsuite").attribute("name").value(), "h01-gc-pause-past-lease");
}

TEST(MergeCommand, AMergeJudgesWhatNoShardJudged) {
  // One seed in all: shard 1/2 runs seed 1, shard 0/2 none. Each exits 0
  // without judging; their merge is the whole one-seed run, which fails h01.
  const std::string zero = run_shard(kH01, 1, 0, 2, "one-seed-0.json");
  const std::string one = run_shard(kH01, 1, 1, 2, "one-seed-1.json");
  ASSERT_EQ(run_locksim("run " + kH01 + " --seeds 1").exit_code, 1);
  const Result merged = run_locksim("merge " + zero + " " + one + " --json " + scratch("one-seed.json"));
  EXPECT_EQ(merged.exit_code, 1) << merged.output;
  EXPECT_TRUE(says(merged, "FAIL h01-gc-pause-past-lease")) << merged.output;
}

TEST(MergeCommand, RefusesAShardGivenTwiceNamingBothFilesAndTheMissingShard) {
  const std::string zero = run_shard(kH01, 6, 0, 3, "twice-0.json");
  const std::string zero_again = run_shard(kH01, 6, 0, 3, "twice-0-again.json");
  const std::string one = run_shard(kH01, 6, 1, 3, "twice-1.json");
  const Result result = run_locksim("merge " + zero + " " + zero_again + " " + one + " --json " + scratch("twice.json"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(says(result, "shard 2/3 is missing; shard 0/3 is given twice (" + zero + ", " + zero_again + ")"))
      << result.output;
}

TEST(MergeCommand, RefusesCountsThatWouldOverflowWhenAddedUp) {
  // Ten shards, each claiming 10^18 accepted writes (the largest a summary may
  // hold): their sum passes 2^63, which merge says instead of wrapping.
  std::string files;
  for (int index = 0; index < 10; ++index) {
    const std::string file = run_shard("control-no-faults", 10, index, 10, "overflow-" + std::to_string(index) + ".json");
    nlohmann::json json = nlohmann::json::parse(read_text(file));
    json["scenarios"][0]["modes"]["fencing-off"]["counts"]["accepted_writes"] = 1'000'000'000'000'000'000;
    std::ofstream{file, std::ios::binary} << json.dump();
    files += " " + file;
  }
  const Result result = run_locksim("merge" + files + " --json " + scratch("overflow-merged.json"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_TRUE(says(result, "a count in the summaries exceeds 2^63 when added up (10 files)")) << result.output;
}

TEST(MergeCommand, RefusesAMissingShard) {
  const std::string zero = run_shard(kH01, 6, 0, 3, "missing-0.json");
  const std::string one = run_shard(kH01, 6, 1, 3, "missing-1.json");
  const Result result = run_locksim("merge " + zero + " " + one + " --json " + scratch("missing.json"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(says(result, "shard 2/3 is missing")) << result.output;
}

TEST(MergeCommand, RefusesShardsWithDifferentSeedCounts) {
  const std::string zero = run_shard(kH01, 6, 0, 2, "counts-0.json");
  const std::string one = run_shard(kH01, 8, 1, 2, "counts-1.json");
  const Result result = run_locksim("merge " + zero + " " + one + " --json " + scratch("counts.json"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(says(result, zero + " and " + one + " differ in seed count of scenario h01-gc-pause-past-lease: 6 vs 8"))
      << result.output;
}

TEST(MergeCommand, RefusesShardsOfDifferentScenarioFileContent) {
  const std::string scenario = scratch("h01-copy.json");
  std::filesystem::copy_file(kH01, scenario, std::filesystem::copy_options::overwrite_existing);
  const std::string zero = run_shard(scenario, 4, 0, 2, "content-0.json");
  std::ofstream{scenario, std::ios::app} << "\n";  // the same scenario, but not the same file
  const std::string one = run_shard(scenario, 4, 1, 2, "content-1.json");
  const Result result = run_locksim("merge " + zero + " " + one + " --json " + scratch("content.json"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(says(result, zero + " and " + one + " differ in the content of the scenario file of scenario h01-gc-pause-past-lease"))
      << result.output;
}

TEST(SeedLimits, TheCommandLineAndAScenarioFileAcceptTheSameSeedCounts) {
  const Result too_many = run_locksim("run " + kH01 + " --seeds 100000001");
  EXPECT_EQ(too_many.exit_code, 2);
  EXPECT_TRUE(says(too_many, "100000000")) << too_many.output;
  // --seeds 100000000 passes the flag's check: the run stops at the bad --shard, before any seed.
  const Result most = run_locksim("run " + kH01 + " --seeds 100000000 --shard 3/2");
  EXPECT_EQ(most.exit_code, 2);
  EXPECT_TRUE(says(most, "--shard")) << most.output;
  EXPECT_FALSE(says(most, "--seeds")) << most.output;

  const std::string file = scratch("most-seeds.json");
  std::ofstream{file} << R"({"name": "most-seeds", "seeds": 100000000})";
  EXPECT_EQ(run_locksim("run " + file + " --seeds 1").exit_code, 0);
  std::ofstream{file} << R"({"name": "too-many-seeds", "seeds": 100000001})";
  const Result file_too_many = run_locksim("run " + file + " --seeds 1");
  EXPECT_EQ(file_too_many.exit_code, 2);
  EXPECT_TRUE(says(file_too_many, "/seeds")) << file_too_many.output;
  EXPECT_TRUE(says(file_too_many, "100000000")) << file_too_many.output;
}

TEST(RecheckLine, SaysHowManySeedsRanTwiceAndThatTheirHistoriesWereIdentical) {
  const std::string json = scratch("recheck.json");
  // h01 runs both fencing modes: four seeds are eight seed × mode runs, and the count is of seeds.
  const Result result = run_locksim("run " + kH01 + " --seeds 4 --recheck 1 --json " + json);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(says(result, "recheck: 4 seeds run twice, histories identical")) << result.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(json))["scenarios"][0]["recheck"]["seeds"], 4);
}

}  // namespace

namespace {

// Every file in tests/data/bad-summaries/ (inputs fuzzing once broke merge
// with) is refused with exactly the message in its .expected twin, exit 2.
TEST(MergeCommand, EveryBadSummaryGetsItsExactMessage) {
  const std::filesystem::path directory = std::filesystem::path{LOCKSIM_TEST_DATA_DIR} / "bad-summaries";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream expected_file{std::filesystem::path{entry.path()}.replace_extension(".expected")};
    std::string expected;
    std::getline(expected_file, expected);
    const locksim::cli_test::Result merge = locksim::cli_test::run_shell(
        "cd " + directory.string() + " && " + LOCKSIM_BINARY + " merge " + entry.path().filename().string() +
        " --json " + locksim::cli_test::scratch("bad-summary-merged.json"));
    EXPECT_EQ(merge.exit_code, 2) << entry.path().filename() << ": " << merge.output;
    EXPECT_NE(merge.output.find(expected), std::string::npos) << entry.path().filename() << ": " << merge.output;
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

}  // namespace
