// The terminal swimlanes (replay --timeline) of h01 seed 2 without fencing:
// the frozen holder's belief running on past the lease, the expiry, and the
// stale write, in the rows where the model puts them; colours only on request.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "reports/timeline.h"
#include "reports/timeline_text.h"
#include "reports/trace.h"
#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"
#include "tests/text_files.h"

namespace locksim::reports {
namespace {

using test_support::lines_of;

Timeline h01_seed_2_without_fencing() {
  const scenario::Scenario scenario =
      scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json");
  std::vector<TraceEntry> entries;
  const runner::SeedRun run = runner::run_plan(scenario, scenario::make_plan(scenario, 2), model::Fencing::kOff,
                                               [&](std::string_view line, const sim::Simulation&) {
                                                 entries.push_back(trace_entry(line));
                                               });
  return build_timeline(entries, run.verdict);
}

bool any_line_has(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) { return line.find(part) != std::string::npos; });
}

TEST(TimelineText, ShowsTheBeliefOutlivingTheLeaseTheExpiryAndTheStaleWrite) {
  const Timeline timeline = h01_seed_2_without_fencing();
  const std::string text = timeline_text(timeline, {.rows = 60, .colour = false});
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_GT(lines.size(), 60U);
  EXPECT_EQ(lines[0].find("worker-1"), 9U);
  EXPECT_NE(lines[0].find("redis-0"), std::string::npos);
  EXPECT_NE(lines[0].find("storage"), std::string::npos);
  EXPECT_TRUE(any_line_has(lines, "expired"));
  EXPECT_TRUE(any_line_has(lines, "STALE qty=8 t3"));
  EXPECT_TRUE(any_line_has(lines, "!! stale_write"));
  EXPECT_TRUE(any_line_has(lines, "▒ pause 16.12s"));
  // Rows in which worker-1 believes (┃) with no lease promised to it (no █): the gap.
  const std::size_t worker_1 = lines[0].find("worker-1");
  int gap_rows = 0;
  for (std::size_t line = 2; line < 62; ++line) {
    if (lines[line].substr(worker_1, 4) == " ┃") ++gap_rows;
  }
  EXPECT_GE(gap_rows, 5);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text, timeline_text(timeline, {.rows = 60, .colour = false}));
}

TEST(TimelineText, ColoursOnlyWhenAsked) {
  const std::string coloured = timeline_text(h01_seed_2_without_fencing(), {.rows = 40, .colour = true});
  EXPECT_NE(coloured.find("\x1b[1;31mSTALE qty=8 t3\x1b[0m"), std::string::npos);
}

}  // namespace
}  // namespace locksim::reports
