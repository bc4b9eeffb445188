// `locksim advise` as a user runs it: the table, the files --write leaves
// (each one `run` accepts and shows as the table said), the JSON, and bad flags.

#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

TEST(AdviseCommand, WritesEachRowAsAFileThatRunShowsAsTheTableSaid) {
  const std::string directory = scratch("advise-h01");
  const std::string report = scratch("advise-h01.json");
  const Result advised =
      run_locksim("advise h01-gc-pause-past-lease --seeds 20 --threads 1 --write " + directory + " --json " + report);
  ASSERT_EQ(advised.exit_code, 0) << advised.output;
  EXPECT_NE(advised.output.find("a longer lease (lock.lease: 23s (was 10s)): removes the harm in these runs"),
            std::string::npos)
      << advised.output;

  const nlohmann::json json = nlohmann::json::parse(read_text(report));
  const auto seeds = json["seeds"].get<std::int64_t>();
  int checked = 0;
  for (const nlohmann::json& row : json["rows"]) {
    if (row["mitigation"] != "fence writes") continue;
    const std::string file = row["file"];
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    const std::string summary = scratch("advise-fence-writes-summary.json");
    const Result run = run_locksim("run " + file + " --seeds " + std::to_string(seeds) + " --json " + summary);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    const nlohmann::json counted = nlohmann::json::parse(read_text(summary));
    const nlohmann::json& mode = counted["scenarios"][0]["modes"]["fencing-on"];
    EXPECT_EQ(mode["runs_with"]["stale_write"], row["kinds"]["stale_write"]["runs_with"]);
    EXPECT_EQ(mode["runs_with"]["double_holder"], row["kinds"]["double_holder"]["runs_with"]);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

TEST(AdviseCommand, BadFlagsAreExitTwo) {
  EXPECT_EQ(run_locksim("advise h01-gc-pause-past-lease --seeds 0").exit_code, 2);
  EXPECT_EQ(run_locksim("advise h01-gc-pause-past-lease --seeds 500 --most-seeds 100").exit_code, 2);
  EXPECT_EQ(run_locksim("advise no-such-scenario").exit_code, 2);
}

}  // namespace
}  // namespace locksim::cli_test
