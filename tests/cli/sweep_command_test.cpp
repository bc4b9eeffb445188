// `locksim sweep` as a user runs it: the files it writes, what it prints,
// and exit 2 with the flag or pointer named for bad input.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "locksim_process.h"

namespace {

using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;

const std::string kConstantPause = std::string{LOCKSIM_TEST_DATA_DIR} + "/scenarios/sweep-constant-pause.json";

std::size_t line_count(const std::string& text) {
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  return lines;
}

TEST(SweepCommand, WritesTheCsvAndTheLinePlotAndPrintsATable) {
  const std::string out = locksim::cli_test::scratch("sweep-one/new-dir");
  std::filesystem::remove_all(out);
  const Result swept =
      run_locksim("sweep " + kConstantPause + " --vary /faults/0/for=5s..20s:3 --seeds 3 --threads 2 --out " + out);
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("sweep-constant-pause: 3 seeds per point and fencing mode"), std::string::npos)
      << swept.output;
  EXPECT_NE(swept.output.find("/faults/0/for  mode          runs  dgrant dholder   stale"), std::string::npos)
      << swept.output;
  EXPECT_NE(swept.output.find("12.5s          fencing-off      3"), std::string::npos) << swept.output;
  EXPECT_NE(swept.output.find("wrote " + out + "/sweep.csv and " + out + "/sweep.svg"), std::string::npos)
      << swept.output;
  EXPECT_EQ(line_count(locksim::cli_test::read_text(out + "/sweep.csv")), 1 + 3 * 2 * 8u);
  pugi::xml_document svg;
  EXPECT_TRUE(svg.load_file((out + "/sweep.svg").c_str()));
}

TEST(SweepCommand, TwoVariesWriteAHeatMap) {
  const std::string out = locksim::cli_test::scratch("sweep-two");
  const Result swept = run_locksim("sweep " + kConstantPause +
                                   " --vary /faults/0/for=5s..20s:2 --vary /lock/lease=5s..10s:2 --seeds 2 --kind "
                                   "double_holder --out " + out);
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  EXPECT_NE(swept.output.find("wrote " + out + "/sweep.csv and " + out + "/heatmap.svg"), std::string::npos);
  pugi::xml_document svg;
  ASSERT_TRUE(svg.load_file((out + "/heatmap.svg").c_str()));
  EXPECT_EQ(svg.select_nodes("//rect[@class='cell']").size(), 8u);
  EXPECT_EQ(locksim::cli_test::read_text(out + "/sweep.csv").rfind("value_1,value_2,mode,kind,", 0), 0u);
}

TEST(SweepCommand, AnUnknownPointerIsExitTwoNamingIt) {
  const Result result =
      run_locksim("sweep " + kConstantPause + " --vary /lok/lease=5s..20s --seeds 2 --out " +
                  locksim::cli_test::scratch("sweep-bad"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "locksim: --vary /lok/lease=5s..20s: " + kConstantPause +
                               " has no /lok: the pointer's parent must be an object or an existing array element in "
                               "the file (only its last member may be new)\n");
}

TEST(SweepCommand, ABadRangeIsExitTwoNamingTheFlag) {
  const Result result = run_locksim("sweep " + kConstantPause + " --vary /faults/0/for=20s..5s --out " +
                                    locksim::cli_test::scratch("sweep-bad"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output, "locksim: --vary /faults/0/for=20s..5s: FROM must be less than TO, got 20s..5s\n");
}

TEST(SweepCommand, AValueTheScenarioRefusesIsExitTwoWithTheParsersMessage) {
  const Result result = run_locksim("sweep " + kConstantPause + " --vary /workers/count=0..2 --out " +
                                    locksim::cli_test::scratch("sweep-bad"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.output.rfind("locksim: --vary: the scenario with /workers/count = 0 is refused: " + kConstantPause +
                                    ": /workers/count: ",
                                0),
            0u)
      << result.output;
}

TEST(SweepCommand, AnUnknownKindIsExitTwo) {
  const Result result = run_locksim("sweep " + kConstantPause + " --vary /workers/count=1..2 --kind stale --out " +
                                    locksim::cli_test::scratch("sweep-bad"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--kind: expected a violation kind (double_grant, "), std::string::npos)
      << result.output;
}

TEST(SweepCommand, AnUnknownBuiltinNameIsExitTwo) {
  const Result result = run_locksim("sweep h01-gc-pause-past-leas --vary /workers/count=1..2 --out " +
                                    locksim::cli_test::scratch("sweep-bad"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("did you mean h01-gc-pause-past-lease?"), std::string::npos) << result.output;
}

}  // namespace
