// `--shard K/N`, `auto` and `auto/N`: read from each job runner's own
// variables (GitLab 1-based, Buildkite and Kubernetes 0-based), saying
// where it came from; anything missing, contradictory or out of range is
// refused with the variables named.
#include <map>

#include <gtest/gtest.h>

#include "runner/shard_choice.h"

namespace locksim::runner {
namespace {

EnvironmentLookup environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const std::string& name) -> std::optional<std::string> {
    const auto found = variables.find(name);
    if (found == variables.end()) return std::nullopt;
    return found->second;
  };
}

std::string refusal(std::string_view text, const EnvironmentLookup& lookup) {
  try {
    (void)choose_shard(text, lookup);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ShardChoice, AnExplicitShardIsTakenAsGivenAndReadsNoEnvironment) {
  const ShardChoice shard = choose_shard("2/5", environment({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "9"}}));
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 5u);
  EXPECT_EQ(shard.source, "");
}

TEST(ShardChoice, GitLabCountsFromOne) {
  const ShardChoice shard = choose_shard("auto", environment({{"CI_NODE_INDEX", "3"}, {"CI_NODE_TOTAL", "4"}}));
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 4u);
  EXPECT_EQ(shard.source, "GitLab's CI_NODE_INDEX=3, CI_NODE_TOTAL=4");
}

TEST(ShardChoice, BuildkiteCountsFromZero) {
  const ShardChoice shard =
      choose_shard("auto", environment({{"BUILDKITE_PARALLEL_JOB", "0"}, {"BUILDKITE_PARALLEL_JOB_COUNT", "3"}}));
  EXPECT_EQ(shard.index, 0u);
  EXPECT_EQ(shard.count, 3u);
}

TEST(ShardChoice, AKubernetesIndexedJobNeedsTheTotalOnTheCommandLine) {
  const EnvironmentLookup kubernetes = environment({{"JOB_COMPLETION_INDEX", "4"}});
  EXPECT_NE(refusal("auto", kubernetes).find("give --shard auto/N"), std::string::npos);
  const ShardChoice shard = choose_shard("auto/8", kubernetes);
  EXPECT_EQ(shard.index, 4u);
  EXPECT_EQ(shard.count, 8u);
  EXPECT_EQ(shard.source, "a Kubernetes Indexed Job's JOB_COMPLETION_INDEX=4, N=8 from --shard auto/8");
}

TEST(ShardChoice, WhatIsMissingContradictoryOrOutOfRangeIsRefusedNamingTheVariables) {
  EXPECT_NE(refusal("auto", environment({})).find("no job runner's shard variables are set"), std::string::npos);
  EXPECT_NE(refusal("auto", environment({{"CI_NODE_INDEX", "1"}})).find("CI_NODE_TOTAL is not"), std::string::npos);
  EXPECT_NE(refusal("auto/3", environment({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "4"}})).find("CI_NODE_TOTAL=4"),
            std::string::npos);
  EXPECT_NE(refusal("auto", environment({{"CI_NODE_INDEX", "0"}, {"CI_NODE_TOTAL", "4"}})).find("counts from 1"),
            std::string::npos);
  EXPECT_NE(refusal("auto", environment({{"CI_NODE_INDEX", "5"}, {"CI_NODE_TOTAL", "4"}})).find("shard 4 of 4 does not exist"),
            std::string::npos);
  EXPECT_NE(refusal("auto", environment({{"CI_NODE_INDEX", "x"}, {"CI_NODE_TOTAL", "4"}})).find("CI_NODE_INDEX=\"x\" is not a whole number"),
            std::string::npos);
  for (const char* bad : {"", "3", "3/", "/3", "a/3", "3/3", "1/0", "-1/3", "auto/", "auto/x", "1/2/3"}) {
    EXPECT_NE(refusal(bad, environment({})), "(accepted)") << bad;
  }
}

}  // namespace
}  // namespace locksim::runner
