// `locksim sweep`'s engine: values written into the scenario at their
// pointer, refusals naming the pointer, the CSV's fixed shape, and the curve
// it exists to draw — without fencing, stale writes rise with a constant
// pause swept past the lease; with fencing, there are none.
#include "runner/sweep.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "reports/sweep_csv.h"
#include "reports/sweep_table.h"
#include "tests/text_files.h"

namespace locksim::runner {
namespace {

using test_support::read_text;
using test_support::lines_of;

const std::string kConstantPause = std::string{LOCKSIM_TEST_DATA_DIR} + "/scenarios/sweep-constant-pause.json";

SweepPlan plan(const std::vector<std::string>& varies) {
  std::vector<SweepAxis> axes;
  for (const std::string& vary : varies) axes.push_back(parse_vary(vary));
  return plan_sweep(read_text(kConstantPause), kConstantPause, std::move(axes));
}

std::string refusal(const std::vector<std::string>& varies) {
  try {
    (void)plan(varies);
  } catch (const SweepInputError& error) {
    return error.what();
  }
  return "(accepted)";
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream input{line};
  for (std::string field; std::getline(input, field, ',');) fields.push_back(field);
  return fields;
}

TEST(PlanSweep, WritesEachValueIntoTheScenario) {
  const SweepPlan swept = plan({"/faults/0/for=5s..20s:4"});
  ASSERT_EQ(swept.points.size(), 4u);
  EXPECT_EQ(swept.scenario_name, "sweep-constant-pause");
  EXPECT_EQ(swept.lease, sim::Duration::seconds(10));
  EXPECT_EQ(swept.points[1].scenario.faults[0].length, sim::Distribution::constant(sim::Duration::seconds(10)));
}

TEST(PlanSweep, AConstantReplacesADistributionObject) {
  const std::string builtin = std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json";
  const SweepPlan swept = plan_sweep(read_text(builtin), builtin, {parse_vary("/faults/0/for=12s..14s:2")});
  EXPECT_EQ(swept.points[1].scenario.faults[0].length, sim::Distribution::constant(sim::Duration::seconds(14)));
}

TEST(PlanSweep, AMissingLastMemberIsAdded) {
  // The file states no workers.retry: the sweep adds it.
  const SweepPlan swept = plan({"/workers/retry=1s..2s:2"});
  EXPECT_EQ(swept.points[1].scenario.system.workers.retry, sim::Distribution::constant(sim::Duration::seconds(2)));
  EXPECT_EQ(plan({"/workers/count=2..3"}).points[1].scenario.system.workers.count, 3);
}

TEST(PlanSweep, TwoAxesMakeEveryPairFirstAxisOutermost) {
  const SweepPlan swept = plan({"/faults/0/for=5s..20s:3", "/lock/lease=5s..10s:2"});
  ASSERT_EQ(swept.points.size(), 6u);
  EXPECT_EQ(swept.points[1].values, (std::vector<std::int64_t>{5'000'000'000, 10'000'000'000}));
  EXPECT_EQ(swept.points[1].scenario.system.lock.lease, sim::Duration::seconds(10));
  EXPECT_EQ(swept.points[2].scenario.system.lock.lease, sim::Duration::seconds(5));
}

TEST(PlanSweep, APointerWithoutAPlaceInTheFileIsRefusedByName) {
  EXPECT_NE(refusal({"/lok/lease=1s..2s"}).find("--vary /lok/lease=1s..2s: " + kConstantPause + " has no /lok:"),
            std::string::npos);
  EXPECT_NE(refusal({"/faults/3/for=1s..2s"}).find("has no /faults/3:"), std::string::npos);
  EXPECT_NE(refusal({"/faults/0/for/min=1s..2s"}).find("has no /faults/0/for"), std::string::npos);
}

TEST(PlanSweep, AValueTheFormatRefusesGetsTheParsersMessage) {
  const std::string message = refusal({"/lock/lease=-5s..5s:3"});
  EXPECT_NE(message.find("--vary: the scenario with /lock/lease = -5s is refused: "), std::string::npos) << message;
  EXPECT_NE(message.find("/lock/lease"), std::string::npos);
  EXPECT_NE(refusal({"/lock/leese=1s..2s"}).find("/lock/leese"), std::string::npos);
}

TEST(PlanSweep, TwoAxesMustVaryDifferentSettings) {
  EXPECT_NE(refusal({"/lock/lease=1s..2s", "/lock/lease=3s..4s"}).find("must vary different settings"),
            std::string::npos);
  EXPECT_NE(refusal({"/faults/0=1s..2s", "/faults/0/for=3s..4s"}).find("must vary different settings"),
            std::string::npos);
  EXPECT_NE(refusal({"/lock/lease=1s..2s", "/faults/0/for=1s..2s", "/workers/count=1..2"}).find("twice"),
            std::string::npos);
}

TEST(SweepCsv, HasOneRowPerValueModeAndKind) {
  const SweepResult result = run_sweep(plan({"/faults/0/for=5s..20s:3"}), {4, 2});
  const std::vector<std::string> lines = lines_of(reports::sweep_to_csv(result));
  ASSERT_EQ(lines.size(), 1 + 3 * 2 * checker::kAllViolationKinds.size());
  EXPECT_EQ(lines[0], "value,mode,kind,runs,runs_with,rate,ci95_low,ci95_high");
  EXPECT_EQ(fields_of(lines[1]).size(), 8u);
  EXPECT_EQ(lines[1].rfind("5,fencing-off,double_grant,4,", 0), 0u) << lines[1];
  const std::size_t kinds = checker::kAllViolationKinds.size();
  EXPECT_EQ(lines[1 + kinds].rfind("5,fencing-on,double_grant,4,", 0), 0u) << lines[1 + kinds];
  EXPECT_EQ(lines[1 + 2 * kinds].rfind("12.5,fencing-off,double_grant,4,", 0), 0u) << lines[1 + 2 * kinds];
  for (std::size_t index = 1; index < lines.size(); ++index) {
    const std::vector<std::string> fields = fields_of(lines[index]);
    ASSERT_EQ(fields.size(), 8u) << lines[index];
    for (std::size_t column = 5; column < 8; ++column) EXPECT_EQ(fields[column].size(), 8u) << lines[index];  // 0.xxxxxx
  }
}

TEST(SweepCsv, TwoAxesHaveTwoValueColumns) {
  const SweepResult result = run_sweep(plan({"/faults/0/for=5s..20s:2", "/workers/count=2..3"}), {2, 2});
  const std::vector<std::string> lines = lines_of(reports::sweep_to_csv(result));
  ASSERT_EQ(lines.size(), 1 + 2 * 2 * 2 * checker::kAllViolationKinds.size());
  EXPECT_EQ(lines[0], "value_1,value_2,mode,kind,runs,runs_with,rate,ci95_low,ci95_high");
  EXPECT_EQ(lines[1].rfind("5,2,fencing-off,double_grant,2,", 0), 0u) << lines[1];
  EXPECT_EQ(fields_of(lines.back()).size(), 9u);
}

TEST(Sweep, DoesNotDependOnTheThreadCount) {
  const SweepResult one = run_sweep(plan({"/faults/0/for=8s..14s:2"}), {6, 1});
  const SweepResult three = run_sweep(plan({"/faults/0/for=8s..14s:2"}), {6, 3});
  EXPECT_EQ(reports::sweep_to_csv(one), reports::sweep_to_csv(three));
}

TEST(Sweep, StaleWritesRiseWithThePauseWithoutFencingAndVanishWithIt) {
  const SweepResult result = run_sweep(plan({"/faults/0/for=5s..20s:6"}), {40, 4});
  std::vector<double> off;
  for (const SweepRow& row : sweep_rows(result)) {
    if (row.kind != checker::ViolationKind::kStaleWrite) continue;
    if (row.mode == model::Fencing::kOff) off.push_back(row.share.rate);
    if (row.mode == model::Fencing::kOn) {
      EXPECT_EQ(row.runs_with, 0) << reports::sweep_to_table(result);
    }
  }
  ASSERT_EQ(off.size(), 6u);
  EXPECT_EQ(off.front(), 0.0) << "a pause inside the lease writes in order";
  EXPECT_GT(off.back(), 0.5) << reports::sweep_to_table(result);
  for (std::size_t index = 1; index < off.size(); ++index) {
    EXPECT_LE(off[index - 1], off[index]) << reports::sweep_to_table(result);
  }
}

}  // namespace
}  // namespace locksim::runner
