// `locksim report` as a user runs it: the files it writes, that every
// minimal plan it names replays as printed, and its bad-input messages.

#include <filesystem>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

TEST(ReportCommand, WritesAnIndexAPagePerScenarioAndMinimalPlansThatReplayAsPrinted) {
  const std::string out = scratch("report");
  const Result reported = run_locksim("report h01-gc-pause-past-lease control-no-faults --seeds 10 --out " + out);
  ASSERT_EQ(reported.exit_code, 0) << reported.output;
  EXPECT_NE(reported.output.find("wrote " + out + "/index.html and 2 scenario pages"), std::string::npos)
      << reported.output;
  for (const std::string file : {"index.html", "h01-gc-pause-past-lease.html", "control-no-faults.html"}) {
    pugi::xml_document document;
    const std::string html = read_text(out + "/" + file);
    EXPECT_TRUE(document.load_string(html.c_str(), pugi::parse_default | pugi::parse_doctype)) << file;
  }
  // The explored hazard has a minimal plan; the control, where nothing fails, has none.
  const std::string plan = out + "/plans/h01-gc-pause-past-lease-minimal.json";
  ASSERT_TRUE(std::filesystem::exists(plan));
  EXPECT_FALSE(std::filesystem::exists(out + "/plans/control-no-faults-minimal.json"));
  const Result run = run_locksim("run " + plan);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(table_of(run.output).find("reproduced"), std::string::npos) << run.output;
  // The page's replay command, run as printed, shows the stale write.
  const std::string page = read_text(out + "/h01-gc-pause-past-lease.html");
  const std::size_t start = page.find(std::string{LOCKSIM_BINARY} + " replay " + plan);
  ASSERT_NE(start, std::string::npos) << "no replay command naming the plan";
  const std::string command = page.substr(start, page.find('<', start) - start);
  const Result replayed = run_shell(command + " --around stale_write");
  EXPECT_EQ(replayed.exit_code, 1) << command << "\n" << replayed.output;
  EXPECT_NE(replayed.output.find("stale_write"), std::string::npos) << replayed.output;
}

TEST(ReportCommand, AnOutThatIsAFileOrABadScenarioIsExitTwoNamingIt) {
  const std::string file = scratch("not-a-directory");
  std::ofstream{file} << "x";
  const Result bad_out = run_locksim("report control-no-faults --seeds 1 --out " + file);
  EXPECT_EQ(bad_out.exit_code, 2) << bad_out.output;
  EXPECT_NE(bad_out.output.find("--out " + file + ": cannot create the directory"), std::string::npos) << bad_out.output;

  const Result bad_name = run_locksim("report no-such-scenario --out " + scratch("unused"));
  EXPECT_EQ(bad_name.exit_code, 2) << bad_name.output;
  EXPECT_NE(bad_name.output.find("no-such-scenario"), std::string::npos) << bad_name.output;

  const Result bad_seeds = run_locksim("report control-no-faults --seeds 0 --out " + scratch("unused"));
  EXPECT_EQ(bad_seeds.exit_code, 2) << bad_seeds.output;
}

}  // namespace
}  // namespace locksim::cli_test
