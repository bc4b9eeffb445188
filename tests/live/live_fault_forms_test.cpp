// Which faults live mode carries out on redis-failover (live_fault_forms.*):
// a plain pause or crash of redis-0, the primary at the start, which real
// Sentinel then reacts to; not the replica, and no restart.
#include <gtest/gtest.h>

#include <string>

#include "live/live_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::live {
namespace {

std::vector<std::string> refused(const std::string& fault) {
  const scenario::Scenario scenario = scenario::parse_scenario(
      R"({"name": "x", "service": {"kind": "redis-failover"}, "faults": [)" + fault + "]}", "x.json");
  return faults_without_live_form(scenario, true);
}

TEST(LiveFaultForms, APauseOrCrashOfTheFailoverPrimaryIsLiveAndRealSentinelReactsToIt) {
  EXPECT_TRUE(refused(R"({"kind": "pause", "target": "redis-0", "at": "1s", "for": "40s"})").empty());
  EXPECT_TRUE(refused(R"({"kind": "crash", "target": "redis-0", "when": "after-grant", "delay": "1s"})").empty());
}

TEST(LiveFaultForms, TheReplicaAndARestartedFailoverServerAreRefusedWithTheReason) {
  const auto replica = refused(R"({"kind": "pause", "target": "redis-1", "at": "1s", "for": "5s"})");
  ASSERT_EQ(replica.size(), 1u);
  EXPECT_NE(replica[0].find("only redis-0, the primary at the start"), std::string::npos) << replica[0];
  const auto restarted = refused(R"({"kind": "crash", "target": "redis-0", "at": "1s", "restart_after": "5s"})");
  ASSERT_EQ(restarted.size(), 1u);
  EXPECT_NE(restarted[0].find("is not restarted live"), std::string::npos) << restarted[0];
}

}  // namespace
}  // namespace locksim::live
