#include "reports/plan_text.h"

#include <gtest/gtest.h>

namespace locksim::reports {
namespace {

using namespace sim::literals;

TEST(WorkerStartsText, NamesTheWorkersInTheOrderTheyFirstAskTiesInWorkerOrder) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-1", 800_ms}, {"worker-2", 250_ms}, {"worker-3", 800_ms}};
  EXPECT_EQ(worker_starts_text(plan), "workers begin: worker-2 at 250ms, worker-1 at 800ms, worker-3 at 800ms");
}

TEST(WorkerStartsText, TiesGoByWorkerNumberNotByName) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-10", 5_ms}, {"worker-2", 5_ms}, {"worker-1", 9_ms}};
  EXPECT_EQ(worker_starts_text(plan), "workers begin: worker-2 at 5ms, worker-10 at 5ms, worker-1 at 9ms");
}

TEST(WorkerStartsText, IsEmptyWhenEveryWorkerBeginsAtTimeZero) {
  scenario::Plan plan;
  plan.worker_starts = {{"worker-1", 0_s}, {"worker-2", 0_s}};
  EXPECT_EQ(worker_starts_text(plan), "");
}

scenario::PlannedFault pause_at(std::size_t index, sim::Duration at) {
  scenario::PlannedFault fault;
  fault.index = index;
  fault.target = "worker-1";
  fault.trigger = scenario::AtTime{at};
  fault.length = 2_s;
  fault.params = model::faults::Pause{};
  return fault;
}

// A rate's later occurrences fall after a short run has ended: they never
// fired, so the page does not list them as the run's faults.
TEST(PlanLines, FaultsPlannedAfterTheRunEndedAreCountedNotListed) {
  scenario::Plan plan;
  plan.faults = {pause_at(0, 3_s), pause_at(0, 40_s), pause_at(0, 95_s)};
  const std::vector<std::string> lines = plan_lines(plan, (30_s).count_ns());
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0], planned_fault_text(plan.faults[0]));
  EXPECT_EQ(lines[1], "2 more planned after the run ended at 30s: never fired");
  EXPECT_EQ(plan_lines(plan, (100_s).count_ns()).size(), 3U);
}

}  // namespace
}  // namespace locksim::reports
