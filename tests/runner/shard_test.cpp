// Shards and their merge: a shard judges nothing, `merge` adds up exactly the
// N shards of one run and judges the whole, and refuses anything else naming
// what is missing, doubled or different. Also: one seed limit for file and
// command line, and the determinism self-check counted in seeds.
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/scenario_run.h"
#include "runner/summary.h"
#include "scenario/content_hash.h"
#include "scenario/scenario_parser.h"
#include "scenario/seed_limits.h"
#include "tests/summary_without_times.h"

namespace locksim::runner {
namespace {

const std::string kH01 = std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json";

RunRequest shard(std::uint64_t seed_count, std::uint64_t index, std::uint64_t count) {
  RunRequest request;
  request.seed_count = seed_count;
  request.shard_index = index;
  request.shard_count = count;
  request.threads = 2;
  return request;
}

// A shard's summary as `merge` reads it back from its file.
SummaryInput shard_input(const scenario::Scenario& scenario, const RunRequest& request, const std::string& file) {
  return reports::summary_input_from_json(reports::summary_to_json({run_scenario(scenario, request)}), file);
}

nlohmann::json without_wall_time(const std::vector<ScenarioSummary>& summaries) {
  return locksim::test_support::summary_without_times(nlohmann::json::parse(reports::summary_to_json(summaries)),
                                             locksim::test_support::Recheck::kKeep);
}

TEST(Shard, AShardThatMissesAGreaterThanZeroExpectationJudgesNothingAndSaysPartial) {
  const scenario::Scenario scenario = scenario::load_scenario_file(kH01);
  // Seed 1 is the only seed, and 1 % 3 != 0: shard 0/3 runs no seed at all,
  // so h01's "stale_write >0" cannot hold on it.
  const ScenarioSummary summary = run_scenario(scenario, shard(1, 0, 3));
  EXPECT_TRUE(summary.partial());
  EXPECT_TRUE(summary.ok);
  EXPECT_TRUE(summary.inert.empty());
  ASSERT_FALSE(summary.expectations.empty());
  for (const ExpectationResult& result : summary.expectations) {
    EXPECT_FALSE(result.judged);
    EXPECT_TRUE(result.ok);
  }
  const nlohmann::json json = nlohmann::json::parse(reports::summary_to_json({summary}));
  EXPECT_EQ(json["scenarios"][0]["partial"], true);
  EXPECT_EQ(json["scenarios"][0]["shard"], "0/3");
  EXPECT_TRUE(json["scenarios"][0]["expectations"][0]["ok"].is_null());
  EXPECT_EQ(json["scenarios"][0]["expectations"][0]["judged"], false);
  // The scenario and the document state no verdict either, and the table says so.
  for (const char* key : {"ok", "judged", "reproduced"}) EXPECT_TRUE(json["scenarios"][0][key].is_null()) << key;
  EXPECT_TRUE(json["ok"].is_null());
  EXPECT_EQ(reports::scenario_status(summary), "not judged");
  // It reads back, and merging still judges the whole.
  EXPECT_NO_THROW((void)reports::summary_from_json(reports::summary_to_json({summary}), "shard.json"));
  // The same expectations on the whole run are judged (and this one fails there).
  const ScenarioSummary whole = run_scenario(scenario, shard(1, 0, 1));
  EXPECT_FALSE(whole.partial());
  EXPECT_FALSE(whole.ok);
}

TEST(Shard, ItsJunitMarksNoExpectationFailureAndSaysItIsNotJudged) {
  const scenario::Scenario scenario = scenario::load_scenario_file(kH01);
  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_string(reports::summary_to_junit({run_scenario(scenario, shard(1, 0, 3))}).c_str()));
  EXPECT_STREQ(junit.child("testsuites").attribute("failures").value(), "0");
  const pugi::xml_node suite = junit.child("testsuites").child("testsuite");
  EXPECT_FALSE(suite.find_node([](const pugi::xml_node& node) { return std::string_view{node.name()} == "failure"; }));
  EXPECT_STREQ(suite.child("system-out").text().get(), "shard 0/3: not judged; merge the shards to judge");
}

TEST(Merge, TheThreeShardsOfARunAddUpToTheWholeRunAndAreJudged) {
  const scenario::Scenario scenario = scenario::load_scenario_file(kH01);
  std::vector<SummaryInput> inputs;
  for (std::uint64_t index = 0; index < 3; ++index) {
    inputs.push_back(shard_input(scenario, shard(9, index, 3), "shard-" + std::to_string(index) + ".json"));
  }
  ASSERT_EQ(shard_set_problems(inputs), "");
  const std::vector<ScenarioSummary> merged = merge_shards(inputs);
  const ScenarioSummary whole = run_scenario(scenario, shard(9, 0, 1));
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_FALSE(merged[0].partial());
  EXPECT_TRUE(std::all_of(merged[0].expectations.begin(), merged[0].expectations.end(),
                          [](const ExpectationResult& result) { return result.judged; }));
  // Rechecks are spread over each shard's seeds, so only their number matches the whole's.
  nlohmann::json merged_json = without_wall_time(merged);
  nlohmann::json whole_json = without_wall_time({whole});
  merged_json["scenarios"][0].erase("recheck");
  whole_json["scenarios"][0].erase("recheck");
  EXPECT_EQ(merged_json, whole_json);
  EXPECT_EQ(merged_json["scenarios"][0]["partial"], false);
  // Times add up, as if the shards had run one after another.
  double shards_wall = 0;
  double shards_cpu = 0;
  for (const SummaryInput& input : inputs) {
    shards_wall += input.scenarios[0].wall_seconds;
    shards_cpu += input.scenarios[0].cpu_seconds();
  }
  EXPECT_DOUBLE_EQ(merged[0].wall_seconds, shards_wall);
  EXPECT_DOUBLE_EQ(merged[0].cpu_seconds(), shards_cpu);
}

TEST(Merge, ItsJunitIsTheJunitOfTheWholeRun) {
  const scenario::Scenario scenario = scenario::parse_scenario(R"({
      "name": "never-stale", "storage": {"fencing": "compare"},
      "expect": {"any": {"stale_write": ">0"}}})",
                                                                 "never-stale.json");
  std::vector<SummaryInput> inputs;
  for (std::uint64_t index = 0; index < 2; ++index) {
    inputs.push_back(shard_input(scenario, shard(4, index, 2), "shard-" + std::to_string(index) + ".json"));
  }
  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_string(reports::summary_to_junit(merge_shards(inputs)).c_str()));
  // Both modes fail ">0" over all four seeds; neither shard failed it.
  EXPECT_STREQ(junit.child("testsuites").attribute("tests").value(), "2");
  EXPECT_STREQ(junit.child("testsuites").attribute("failures").value(), "2");
  const pugi::xml_node suite = junit.child("testsuites").child("testsuite");
  EXPECT_FALSE(suite.child("system-out"));
  EXPECT_STREQ(suite.child("testcase").child("failure").attribute("message").value(),
               "expected stale_write >0, got 0");
}

class ShardSet : public ::testing::Test {
 protected:
  scenario::Scenario scenario = scenario::load_scenario_file(kH01);
  SummaryInput input(std::uint64_t index, std::uint64_t count, const std::string& file, std::uint64_t seeds = 6) {
    return shard_input(scenario, shard(seeds, index, count), file);
  }
};

TEST_F(ShardSet, AShardGivenTwiceAndAMissingShardAreBothNamed) {
  const std::string problems = shard_set_problems({input(0, 3, "a.json"), input(0, 3, "b.json"), input(1, 3, "c.json")});
  EXPECT_EQ(problems, "shard 2/3 is missing; shard 0/3 is given twice (a.json, b.json)");
}

TEST_F(ShardSet, AMissingShardIsNamed) {
  EXPECT_EQ(shard_set_problems({input(0, 3, "a.json"), input(1, 3, "b.json")}), "shard 2/3 is missing");
}

TEST_F(ShardSet, ShardsWithDifferentSeedCountsAreRefused) {
  const std::string problems = shard_set_problems({input(0, 2, "a.json", 6), input(1, 2, "b.json", 8)});
  EXPECT_EQ(problems, "a.json and b.json differ in seed count of scenario h01-gc-pause-past-lease: 6 vs 8");
}

TEST_F(ShardSet, ShardsOfDifferentScenarioFileContentAreRefused) {
  SummaryInput edited = input(1, 2, "b.json");
  edited.scenarios[0].content_hash = scenario::content_hash("{}");
  const std::string problems = shard_set_problems({input(0, 2, "a.json"), edited});
  EXPECT_NE(problems.find("a.json and b.json differ in the content of the scenario file of scenario h01-gc-pause-past-lease"),
            std::string::npos)
      << problems;
}

TEST_F(ShardSet, ShardsOfDifferentBuildsOrShardCountsAreRefused) {
  SummaryInput other_build = input(1, 2, "b.json");
  other_build.build = "0.0.1 Clang 1 Debug";
  EXPECT_NE(shard_set_problems({input(0, 2, "a.json"), other_build}).find("a.json and b.json differ in build"),
            std::string::npos);
  EXPECT_NE(shard_set_problems({input(0, 2, "a.json"), input(1, 3, "b.json")}).find("differ in shard count N: 0/2 vs 1/3"),
            std::string::npos);
}

TEST_F(ShardSet, AWholeRunIsShardZeroOfOneAndTwoWholeRunsAreRefused) {
  EXPECT_EQ(shard_set_problems({input(0, 1, "a.json")}), "");
  EXPECT_EQ(shard_set_problems({input(0, 1, "a.json"), input(0, 1, "b.json")}), "shard 0/1 is given twice (a.json, b.json)");
}

TEST(SeedLimits, AScenarioFileAcceptsExactlyTheSeedsTheCommandLineAccepts) {
  const auto with_seeds = [](std::int64_t seeds) {
    return scenario::parse_scenario(R"({"name": "limits", "seeds": )" + std::to_string(seeds) + "}", "limits.json");
  };
  EXPECT_EQ(with_seeds(scenario::kMostSeeds).seeds, scenario::kMostSeeds);
  EXPECT_EQ(with_seeds(scenario::kFewestSeeds).seeds, scenario::kFewestSeeds);
  EXPECT_THROW((void)with_seeds(scenario::kMostSeeds + 1), scenario::ScenarioError);
  EXPECT_THROW((void)with_seeds(scenario::kFewestSeeds - 1), scenario::ScenarioError);
}

TEST(Recheck, CountsSeedsNotSeedTimesModeRuns) {
  const scenario::Scenario scenario = scenario::load_scenario_file(kH01);
  ASSERT_EQ(scenario.fencing_modes.size(), 2u);
  RunRequest request = shard(4, 0, 1);
  request.recheck_fraction = 1.0;
  const ScenarioSummary summary = run_scenario(scenario, request);
  EXPECT_EQ(summary.rechecked, 4u);
  EXPECT_TRUE(summary.recheck_failed.empty());
}

TEST(ContentHash, IsFnv1aOfTheBytes) {
  // The published FNV-1a 64 test vectors.
  EXPECT_EQ(scenario::content_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(scenario::content_hash("a"), 0xaf63dc4c8601ec8cULL);
  const scenario::Scenario scenario = scenario::parse_scenario(R"({"name": "x"})", "x.json");
  EXPECT_EQ(scenario.content_hash, scenario::content_hash(R"({"name": "x"})"));
}

}  // namespace
}  // namespace locksim::runner
