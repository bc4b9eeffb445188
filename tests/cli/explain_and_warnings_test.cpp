// `locksim explain` and the setting warnings as a user sees them: exit codes
// and the exact lines printed.
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "locksim_process.h"

namespace {

using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;

std::string write_scenario(const std::string& name, const std::string& text) {
  const std::string path = locksim::cli_test::scratch(name);
  std::ofstream{path} << text;
  return path;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(ExplainCommand, PrintsAKeysReferenceForAnIndexedPointer) {
  const Result result = run_locksim("explain /faults/0/for");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.rfind("/faults/0/for  (/faults/N/for)\n  type:     distribution\n", 0), 0u) << result.output;
  EXPECT_NE(result.output.find("  default:  required (memory-pressure: 0s)\n"), std::string::npos) << result.output;
}

TEST(ExplainCommand, PrintsTheDefaultTheParserFillsIn) {
  const Result result = run_locksim("explain /workers/retry");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("  default:  uniform 50ms to 500ms\n"), std::string::npos) << result.output;
}

TEST(ExplainCommand, AnUnknownPointerIsExitTwoWithTheNearestKey) {
  const Result result = run_locksim("explain /workers/retyr");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output,
            "locksim: explain: /workers/retyr: no such scenario key (did you mean /workers/retry?); "
            "`locksim explain --markdown` lists every key\n");
}

TEST(ExplainCommand, AKeyWithoutASlashIsExitTwoAndSaysHowPointersLook) {
  const Result result = run_locksim("explain lease");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("a key is named by its JSON pointer"), std::string::npos) << result.output;
}

TEST(ExplainCommand, NoPointerIsExitTwo) { EXPECT_EQ(run_locksim("explain").exit_code, 2); }

TEST(ExplainCommand, MarkdownPrintsTheWholeTableThenTheFaultKinds) {
  const Result result = run_locksim("explain --markdown");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output.rfind("| key | type | unit | default | limits | meaning |\n", 0), 0u);
  EXPECT_NE(result.output.find("| `/workers/renew_every` |"), std::string::npos);
  const std::size_t faults = result.output.find("\n\n| kind | parameters | what happens |\n");
  ASSERT_NE(faults, std::string::npos) << result.output;
  EXPECT_NE(result.output.find("| `memory-pressure` | `evict`", faults), std::string::npos);
}

TEST(SettingWarnings, RunPrintsEachWarningOnceWithFileAndPointer) {
  const std::string path = write_scenario(
      "slow-watchdog.json",
      R"({"name": "slow-watchdog", "duration": "1m", "lock": {"lease": "2s"},
          "workers": {"renew": "watchdog", "renew_every": "5s", "work": "10ms"},
          "workload": {"jobs": 1}})");
  const Result result = run_locksim("run " + path + " --seeds 3 --quiet");
  const std::string warning = path + ": warning: /workers/renew_every: the watchdog renews every 5s, but the lease is 2s";
  EXPECT_EQ(occurrences(result.output, warning), 1u) << result.output;
  EXPECT_EQ(result.exit_code, 0) << result.output;  // a warning is no failure
}

TEST(SettingWarnings, ReplayPrintsTheWarningToo) {
  const std::string path = write_scenario(
      "short-lease.json", R"({"name": "short-lease", "duration": "10s", "lock": {"lease": "1ms"}, "network": {"delay": "5ms"},
                             "workload": {"jobs": 1}, "expect": {"any": {"stopped_short": ">=0"}}})");
  const Result result = run_locksim("replay " + path + " --seed 1");
  EXPECT_EQ(occurrences(result.output, path + ": warning: /lock/lease: the lease (1ms) is shorter than the network's "
                                                 "p99 round trip (10ms"),
            1u)
      << result.output;
}

TEST(SettingWarnings, ALeaseGivenAsABareNumberShorterThanTheWorkAsksWhetherSecondsWereMeant) {
  const std::string path = write_scenario(
      "bare-lease.json", R"({"name": "bare-lease", "duration": "1m", "lock": {"lease": 45},
                            "workers": {"work": "2s"}, "workload": {"jobs": 1},
                            "expect": {"any": {"stopped_short": ">=0"}}})");
  const Result result = run_locksim("run " + path + " --seeds 1 --quiet");
  EXPECT_EQ(occurrences(result.output, path + ": warning: /lock/lease: is 45ms (a bare number is milliseconds), "
                                                 "shorter than the work (2s at its 99th percentile)"),
            1u)
      << result.output;
  EXPECT_NE(result.output.find("write \"45s\""), std::string::npos) << result.output;
  // The same lease written with its unit is what the file says: no warning.
  const std::string written = write_scenario(
      "unit-lease.json", R"({"name": "unit-lease", "duration": "1m", "lock": {"lease": "45ms"},
                            "workers": {"work": "2s"}, "workload": {"jobs": 1},
                            "expect": {"any": {"stopped_short": ">=0"}}})");
  EXPECT_EQ(run_locksim("run " + written + " --seeds 1 --quiet").output.find("bare number"), std::string::npos);
}

TEST(SettingWarnings, RenewEveryZeroIsExitTwo) {
  const std::string path =
      write_scenario("zero-renewal.json", R"({"name": "z", "workers": {"renew": "watchdog", "renew_every": 0}})");
  const Result result = run_locksim("run " + path + " --seeds 1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find(path + ": /workers/renew_every: expected a positive duration, got 0"), std::string::npos)
      << result.output;
}

TEST(FormatVersion, AFileFromANewerLocksimIsExitTwoWithTheReason) {
  const std::string path = write_scenario("future.json", R"({"format_version": 3, "name": "future"})");
  const Result result = run_locksim("run " + path + " --seeds 1");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find(path + ": /format_version: written for format version 3, but this locksim reads "
                                      "versions 1 to 2"),
            std::string::npos)
      << result.output;
}

TEST(FormatVersion, AVersionOneFileRuns) {
  const std::string path = write_scenario(
      "old.json", R"({"format_version": 1, "name": "old", "duration": "1m", "workload": {"jobs": 1}})");
  EXPECT_EQ(run_locksim("run " + path + " --seeds 2 --quiet").exit_code, 0);
}

}  // namespace
