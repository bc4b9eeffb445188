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
const std::string kEnsemble = R"({"kind": "consensus", "nodes": 3})";

// What etcd cannot run live is refused before the run, naming the key.
TEST(LiveUnsupported, AConsensusFileEtcdCannotRunIsRefusedNamingItsKey) {
  const auto why = [](const std::string& service, const std::string& lock = R"({"lease": "10s"})") {
    return live_unsupported(scenario::parse_scenario(
        R"({"name": "x", "service": )" + service + R"(, "lock": )" + lock + "}", "x.json"));
  };
  EXPECT_EQ(why(kEnsemble), "");
  EXPECT_NE(why(R"({"kind": "consensus", "lock_delay": "15s"})").find("/service/lock_delay"), std::string::npos);
  EXPECT_NE(why(R"({"kind": "consensus", "nodes": 5})").find("/service/nodes"), std::string::npos);
  EXPECT_NE(why(R"({"kind": "consensus", "etcd_3_4_3_lock_bug": true})").find("/service/etcd_3_4_3_lock_bug"),
            std::string::npos);
  EXPECT_NE(why(R"({"kind": "consensus", "nodes": 1})", R"({"lease": "none"})").find("/lock/lease"), std::string::npos);
}

// A consensus member (or whoever leads) is paused or killed for real at a
// time; the coordinator sees no member's events as they happen, and etcd
// dials each peer at one address, so the proxy cannot cut members apart.
TEST(LiveFaultForms, AConsensusMemberIsPausedOrCrashedAtATimeButNotCutFromAnother) {
  EXPECT_TRUE(refused(kEnsemble, R"({"kind": "pause", "target": "consensus-leader", "at": "2s", "for": "15s"})").empty());
  EXPECT_TRUE(
      refused(kEnsemble, R"({"kind": "crash", "target": "consensus-1", "at": "2s", "restart_after": "5s"})").empty());
  EXPECT_TRUE(refused(kEnsemble, R"({"kind": "partition", "between": [["worker-1"], ["consensus"]], "at": "1s", "for": "5s"})")
                  .empty());
  const auto between_members =
      refused(kEnsemble, R"({"kind": "partition", "between": [["consensus-0"], ["consensus-1", "consensus-2"]], "at": "1s", "for": "5s"})");
  ASSERT_EQ(between_members.size(), 1u);
  EXPECT_NE(between_members[0].find("a partition between consensus members has no live form"), std::string::npos)
      << between_members[0];
  const auto on_event =
      refused(kEnsemble, R"({"kind": "pause", "target": "consensus-0", "when": "after-grant", "for": "5s"})");
  ASSERT_EQ(on_event.size(), 1u);
  EXPECT_NE(on_event[0].find("only at a time"), std::string::npos) << on_event[0];
  const auto before_reply = refused(kEnsemble, R"({"kind": "pause", "target": "worker-1", "when": "before-reply", "for": "5s"})");
  ASSERT_EQ(before_reply.size(), 1u);
  EXPECT_NE(before_reply[0].find("its acquire is several requests"), std::string::npos) << before_reply[0];
}

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
