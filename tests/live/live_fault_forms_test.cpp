// Which faults live mode carries out on redis-failover and under memory
// pressure (live_fault_forms.*): a pause, crash or restart of either
// failover server, which real Sentinel and replication then react to; memory
// pressure only under noeviction on a server locksim started.
#include <gtest/gtest.h>

#include <string>

#include "live/live_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::live {
namespace {

std::vector<std::string> refused(const std::string& service, const std::string& fault, bool own_servers = true) {
  const scenario::Scenario scenario = scenario::parse_scenario(
      R"({"name": "x", "service": )" + service + R"(, "faults": [)" + fault + "]}", "x.json");
  return faults_without_live_form(scenario, own_servers);
}

const std::string kFailover = R"({"kind": "redis-failover"})";

TEST(LiveFaultForms, APauseOrCrashOfTheFailoverPrimaryIsLiveAndRealSentinelReactsToIt) {
  EXPECT_TRUE(refused(kFailover, R"({"kind": "pause", "target": "redis-0", "at": "1s", "for": "40s"})").empty());
  EXPECT_TRUE(
      refused(kFailover, R"({"kind": "crash", "target": "redis-0", "when": "after-grant", "delay": "1s"})").empty());
}

// A user's program logs no grant in Redis: nothing to count an after-grant fault by while the run goes on.
TEST(LiveFaultForms, AfterGrantOnALockServerHasNoLiveFormWithAProgramOfYourOwn) {
  for (const std::string fault : {R"({"kind": "crash", "target": "redis-0", "when": "after-grant", "delay": "1s"})",
                                  R"({"kind": "failover", "target": "redis-0", "when": "after-grant", "delay": "10ms"})"}) {
    const scenario::Scenario scenario = scenario::parse_scenario(
        R"({"name": "x", "service": {"kind": "redis-failover"}, "workers": {"command": ["./w"]}, "faults": [)" + fault +
            "]}",
        "x.json");
    const std::vector<std::string> why = faults_without_live_form(scenario, true);
    ASSERT_EQ(why.size(), 1u) << fault;
    EXPECT_NE(why[0].find("after-grant has no live form with workers.command"), std::string::npos) << why[0];
    EXPECT_TRUE(refused(kFailover, fault).empty()) << "locksim's own worker's grants are logged: " << fault;
  }
}

TEST(LiveFaultForms, TheReplicaAndARestartOfEitherFailoverServerAreLive) {
  EXPECT_TRUE(refused(kFailover, R"({"kind": "pause", "target": "redis-1", "at": "1s", "for": "5s"})").empty());
  EXPECT_TRUE(
      refused(kFailover, R"({"kind": "crash", "target": "redis-1", "at": "1s", "restart_after": "1s"})").empty());
  EXPECT_TRUE(
      refused(kFailover, R"({"kind": "crash", "target": "redis-0", "at": "1s", "restart_after": "5s"})").empty());
}

TEST(LiveFaultForms, MemoryPressureIsLiveOnlyUnderNoevictionOnALockServerOfLocksims) {
  const std::string pressure = R"({"kind": "memory-pressure", "target": "redis-0", "at": "1s", "for": "5s"})";
  EXPECT_TRUE(refused(R"({"kind": "redis"})", pressure).empty());
  const auto evicting = refused(R"({"kind": "redis", "maxmemory_policy": "volatile-ttl"})", pressure);
  ASSERT_EQ(evicting.size(), 1u);
  EXPECT_NE(evicting[0].find("only under noeviction"), std::string::npos) << evicting[0];
  const auto failover = refused(kFailover, pressure);
  ASSERT_EQ(failover.size(), 1u);
  EXPECT_NE(failover[0].find("redis-failover"), std::string::npos) << failover[0];
  const auto not_ours = refused(R"({"kind": "redis"})", pressure, false);
  ASSERT_EQ(not_ours.size(), 1u);
  EXPECT_NE(not_ours[0].find("--redis"), std::string::npos) << not_ours[0];
}

}  // namespace
}  // namespace locksim::live
