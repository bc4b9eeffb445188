#include "scenario/setting_warnings.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "scenario/scenario_parser.h"

namespace locksim::scenario {
namespace {

using namespace sim::literals;
using sim::Distribution;

std::vector<std::string> pointers(const std::vector<SettingWarning>& warnings) {
  std::vector<std::string> result;
  for (const SettingWarning& warning : warnings) result.push_back(warning.pointer);
  return result;
}

TEST(SettingWarnings, APlainScenarioHasNone) {
  EXPECT_TRUE(parse_scenario(R"({"name": "x"})", "x.json").warnings.empty());
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "workers": {"renew": "watchdog", "renew_every": "3s"}})", "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, NoBuiltInScenarioHasOne) {
  for (const auto& entry : std::filesystem::directory_iterator{LOCKSIM_SCENARIO_DIR}) {
    if (entry.path().extension() != ".json") continue;
    const Scenario scenario = load_scenario_file(entry.path().string());
    EXPECT_TRUE(scenario.warnings.empty()) << entry.path() << ": " << scenario.warnings.front().pointer << ": "
                                           << scenario.warnings.front().message;
  }
}

TEST(SettingWarnings, AWatchdogRenewingNoFasterThanTheLeaseIsWarnedAbout) {
  const Scenario scenario = parse_scenario(
      R"({"name": "x", "lock": {"lease": "10s"}, "workers": {"renew": "watchdog", "renew_every": "10s"}})", "x.json");
  ASSERT_EQ(pointers(scenario.warnings), std::vector<std::string>{"/workers/renew_every"});
  EXPECT_EQ(scenario.warnings[0].message,
            "the watchdog renews every 10s, but the lease is 10s: the lease runs out before the first renewal, so a "
            "hold longer than the lease is never kept (renew at most every lease / 3, the default)");
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "lock": {"lease": "10s"},
                                 "workers": {"renew": "watchdog", "renew_every": "9999ms"}})",
                             "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, StoppingTheWatchdogOnErrorWithoutAWatchdogHasNoEffect) {
  EXPECT_EQ(pointers(parse_scenario(R"({"name": "x", "workers": {"renew_on_error": "stop"}})", "x.json").warnings),
            std::vector<std::string>{"/workers/renew_on_error"});
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "workers": {"renew": "watchdog", "renew_on_error": "stop"}})", "x.json")
                  .warnings.empty());
}

// The model waits for a crashed server's reply as for a frozen one's; a real client's connection is reset.
TEST(SettingWarnings, NoRequestTimeoutWithAServerThatCrashesIsWarnedAbout) {
  EXPECT_EQ(pointers(parse_scenario(R"({"name": "x", "service": {"request_timeout": "none"},
                                        "faults": [{"kind": "crash", "target": "redis-0", "at": "5s"}]})",
                                    "x.json")
                         .warnings),
            std::vector<std::string>{"/service/request_timeout"});
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "service": {"request_timeout": "none"},
                                 "faults": [{"kind": "crash", "target": "worker-1", "at": "5s"},
                                            {"kind": "pause", "target": "redis-0", "at": "5s", "for": "1s"}]})",
                             "x.json")
                  .warnings.empty())
      << "a worker's crash, or a paused server, waits in reality too";
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "service": {"request_timeout": "2s"},
                                 "faults": [{"kind": "crash", "target": "redis-0", "at": "5s"}]})",
                             "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, ASentinelDiscoveryWithoutSentinelHasNoEffect) {
  EXPECT_EQ(pointers(parse_scenario(R"({"name": "x", "workers": {"sentinel_discovery": "on-error"}})", "x.json").warnings),
            std::vector<std::string>{"/workers/sentinel_discovery"});
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "service": {"kind": "redis-failover"},
                                 "workers": {"sentinel_discovery": "on-error"}})",
                             "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, APlainPexpireRenewalWithNothingToRenewIsWarnedAbout) {
  EXPECT_EQ(pointers(parse_scenario(R"({"name": "x", "workers": {"renew_command": "pexpire"}})", "x.json").warnings),
            std::vector<std::string>{"/workers/renew_command"});
  EXPECT_EQ(pointers(parse_scenario(R"({"name": "x", "service": {"kind": "consensus"},
                                        "workers": {"renew": "watchdog", "renew_command": "pexpire"}})",
                                    "x.json")
                         .warnings),
            std::vector<std::string>{"/workers/renew_command"});
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "workers": {"renew": "watchdog", "renew_command": "pexpire"}})", "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, ARenewalPeriodWithoutAWatchdogIsWarnedAbout) {
  const Scenario scenario = parse_scenario(R"({"name": "x", "workers": {"renew_every": "1s"}})", "x.json");
  ASSERT_EQ(pointers(scenario.warnings), std::vector<std::string>{"/workers/renew_every"});
  EXPECT_NE(scenario.warnings[0].message.find("has no effect"), std::string::npos);
}

TEST(SettingWarnings, ARenewalEveryZeroIsAnError) {
  EXPECT_THROW((void)parse_scenario(R"({"name": "x", "workers": {"renew": "watchdog", "renew_every": 0}})", "x.json"),
               ScenarioError);
}

TEST(SettingWarnings, ALeaseShorterThanTheP99RoundTripIsWarnedAbout) {
  // lognormal p99 20ms: the round trip's p99 is taken as 40ms.
  const std::string network = R"("network": {"delay": {"dist": "lognormal", "median": "1ms", "p99": "20ms"}})";
  const Scenario short_lease = parse_scenario(R"({"name": "x", "lock": {"lease": "39ms"}, )" + network + "}", "x.json");
  ASSERT_EQ(pointers(short_lease.warnings), std::vector<std::string>{"/lock/lease"});
  EXPECT_EQ(short_lease.warnings[0].message,
            "the lease (39ms) is shorter than the network's p99 round trip (40ms: 2 × the p99 of /network/delay, "
            "lognormal(median 1ms, p99 20ms)): many grants are over before the client hears of them");
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "lock": {"lease": "40ms"}, )" + network + "}", "x.json").warnings.empty());
  // Without expiry there is nothing to run out.
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "lock": {"lease": "none"}, "network": {"delay": "1s"}})", "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, AStuckAfterShorterThanTheLeaseIsWarnedAbout) {
  const Scenario scenario =
      parse_scenario(R"({"name": "x", "lock": {"lease": "10s", "stuck_after": "5s"}})", "x.json");
  ASSERT_EQ(pointers(scenario.warnings), std::vector<std::string>{"/lock/stuck_after"});
  EXPECT_EQ(scenario.warnings[0].message,
            "5s is shorter than the lease (10s): a crashed holder's lease that simply runs out already counts as a "
            "stuck lock");
  EXPECT_TRUE(parse_scenario(R"({"name": "x", "lock": {"lease": "10s", "stuck_after": "10s"}})", "x.json")
                  .warnings.empty());
}

TEST(SettingWarnings, SeveralWarningsComeInTheDocumentedOrder) {
  const Scenario scenario = parse_scenario(
      R"({"name": "x", "lock": {"lease": "1ms", "stuck_after": 0}, "network": {"delay": "1ms"},
          "workers": {"renew": "watchdog", "renew_every": "1ms"}})",
      "x.json");
  EXPECT_EQ(pointers(scenario.warnings),
            (std::vector<std::string>{"/workers/renew_every", "/lock/lease", "/lock/stuck_after"}));
}

TEST(Percentile99, IsComputedFromEachShapesParameters) {
  EXPECT_EQ(percentile_99(Distribution::constant(7_ms)), 7_ms);
  EXPECT_EQ(percentile_99(Distribution::uniform(0_ms, 100_ms)), 99_ms);
  EXPECT_EQ(percentile_99(Distribution::log_normal(1_ms, 20_ms)), 20_ms);
  // exponential: mean × ln 100 = 4.60517… × mean
  EXPECT_EQ(percentile_99(Distribution::exponential(1_s)), sim::Duration::nanoseconds(4'605'170'186));
  // pareto: min × 100^(1/alpha); alpha 2: 10 × min
  EXPECT_EQ(percentile_99(Distribution::pareto(500_us, 2.0)), 5_ms);
  // a tail heavier than any run is clamped like the samples are
  EXPECT_EQ(percentile_99(Distribution::pareto(1_s, 0.01)), Distribution::kLongestSample);
}

}  // namespace
}  // namespace locksim::scenario
