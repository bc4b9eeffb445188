// docs/scale-out.md's one-machine recipe, run as a user runs it
// (scripts/shard-locally.sh: GNU parallel, then merge): the merged summary
// equals a whole run's, count for count and verdict for verdict; and
// `run --shard auto` takes its shard from the job runner's environment and
// says which variables it read.
#include <utility>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "locksim_process.h"
#include "tests/summary_without_times.h"

namespace locksim::cli_test {
namespace {

// The scenarios of a summary without what differs between a whole run and its shards by design.
nlohmann::json without_wall_time(nlohmann::json summary) {
  return locksim::test_support::summary_without_times(std::move(summary))["scenarios"];
}

TEST(ShardRecipe, TheGnuParallelRecipeMergesToTheWholeRun) {
  const std::string out = scratch("shards");
  const std::string suite = std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json " +
                            LOCKSIM_SCENARIO_DIR + "/h08-plain-del-release.json --seeds 30";
  const Result sharded = run_shell("LOCKSIM=" + std::string{LOCKSIM_BINARY} + " bash " + std::string{LOCKSIM_SOURCE_DIR} + "/scripts/shard-locally.sh 3 " + out +
                                   " " + suite);
  ASSERT_EQ(sharded.exit_code, 0) << sharded.output;
  const std::string whole = scratch("whole.json");
  ASSERT_EQ(run_locksim("run " + suite + " --quiet --json " + whole).exit_code, 0);
  const nlohmann::json merged = nlohmann::json::parse(read_text(out + "/all.json"));
  EXPECT_EQ(without_wall_time(merged), without_wall_time(nlohmann::json::parse(read_text(whole))));
}

TEST(ShardRecipe, ShardAutoReadsTheJobRunnersVariablesAndSaysWhich) {
  const std::string json = scratch("gitlab-shard.json");
  const Result gitlab = run_shell("CI_NODE_INDEX=2 CI_NODE_TOTAL=3 " + std::string{LOCKSIM_BINARY} +
                                  " run h01-gc-pause-past-lease --seeds 30 --shard auto --json " + json);
  ASSERT_EQ(gitlab.exit_code, 0) << gitlab.output;
  EXPECT_NE(gitlab.output.find("shard 1/3 from GitLab's CI_NODE_INDEX=2, CI_NODE_TOTAL=3"), std::string::npos)
      << gitlab.output;
  EXPECT_EQ(nlohmann::json::parse(read_text(json))["scenarios"][0]["shard"], "1/3");

  const Result none = run_shell("env -u CI_NODE_INDEX -u BUILDKITE_PARALLEL_JOB -u JOB_COMPLETION_INDEX " +
                                std::string{LOCKSIM_BINARY} + " run h01-gc-pause-past-lease --shard auto");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no job runner's shard variables are set"), std::string::npos) << none.output;
}

}  // namespace
}  // namespace locksim::cli_test
