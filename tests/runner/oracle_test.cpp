// The oracle on hand-made sequences of model records: each test is one fact
// of the ground truth it must get right on its own, without the checker.

#include <gtest/gtest.h>

#include "reports/summary_json.h"
#include "runner/oracle.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"
#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::runner {
namespace {

using checker::ViolationKind;
using sim::Duration;
using sim::Field;
using sim::Time;

Time at_ms(std::int64_t milliseconds) { return Time{} + Duration::milliseconds(milliseconds); }

class OracleTest : public ::testing::Test {
 protected:
  void record(std::int64_t milliseconds, std::string_view proc, EventKind event,
              std::initializer_list<Field> fields = {}) {
    oracle_.observe(at_ms(milliseconds), proc, event, std::span{fields.begin(), fields.size()});
  }
  void grant(std::int64_t milliseconds, std::string_view instance, std::string_view owner, std::int64_t token,
             std::int64_t lease_ms = 10'000) {
    record(milliseconds, instance, EventKind::kLeaseGrant,
           {{"lock", "lock"}, {"owner", owner}, {"token", token}, {"lease_ns", Duration::milliseconds(lease_ms)}});
  }
  OracleCounts finish(std::int64_t final_qty = 0) { return oracle_.finish({{"qty", final_qty}}); }

  Oracle oracle_{OracleSetup{1, Duration::seconds(100), OracleSetup::Workload::kCounter, "qty"}};
};

TEST_F(OracleTest, AGrantOverALiveLeaseReplacesItSoTheOldPromiseRunsOutOnItsOwn) {
  grant(0, "redis-0", "worker-1", 1);
  grant(1'000, "redis-0", "worker-2", 2);  // a plain SET over worker-1's live key
  EXPECT_EQ(finish().of(ViolationKind::kDoubleGrant), 1);

  Oracle later{OracleSetup{}};
  const std::initializer_list<Field> first{{"owner", "worker-1"}, {"token", 1}, {"lease_ns", Duration::seconds(10)}};
  const std::initializer_list<Field> second{{"owner", "worker-2"}, {"token", 2}, {"lease_ns", Duration::seconds(10)}};
  const std::initializer_list<Field> third{{"owner", "worker-3"}, {"token", 3}, {"lease_ns", Duration::seconds(10)}};
  later.observe(at_ms(0), "redis-0", EventKind::kLeaseGrant, std::span{first.begin(), first.size()});
  later.observe(at_ms(1'000), "redis-0", EventKind::kLeaseGrant, std::span{second.begin(), second.size()});
  // worker-1's replaced lease ran out at 10 s; worker-2's key is gone too by 12 s,
  // so worker-3's grant overlaps nobody.
  const std::initializer_list<Field> expire{{"owner", "worker-2"}, {"token", 2}};
  later.observe(at_ms(11'000), "redis-0", EventKind::kLeaseExpire, std::span{expire.begin(), expire.size()});
  later.observe(at_ms(12'000), "redis-0", EventKind::kLeaseGrant, std::span{third.begin(), third.size()});
  EXPECT_EQ(later.finish({}).of(ViolationKind::kDoubleGrant), 1);
}

TEST_F(OracleTest, OneLongHoldOverlappedByThreeShortOnesIsThreePairsInOneIncident) {
  record(0, "worker-1", EventKind::kHoldBegin);
  for (const std::int64_t start : {1'000, 3'000, 5'000}) {
    record(start, "worker-2", EventKind::kHoldBegin);
    record(start + 500, "worker-2", EventKind::kHoldEnd);
  }
  record(9'000, "worker-1", EventKind::kHoldEnd);
  record(10'000, "worker-2", EventKind::kHoldBegin);  // the lock was free in between: no new incident
  record(11'000, "worker-3", EventKind::kHoldBegin);  // a second stretch with two holders
  const OracleCounts counts = finish();
  EXPECT_EQ(counts.of(ViolationKind::kDoubleHolder), 4);
  EXPECT_EQ(counts.incidents_of(ViolationKind::kDoubleHolder), 2);
}

TEST_F(OracleTest, DoubleGrantIncidentsAreStretchesOfPromisedLeasesWithTwoAtOnce) {
  grant(0, "redis-0", "worker-1", 1, 60'000);
  grant(10'000, "redis-1", "worker-2", 2, 5'000);
  grant(20'000, "redis-1", "worker-2", 3, 5'000);
  const OracleCounts counts = finish();
  EXPECT_EQ(counts.of(ViolationKind::kDoubleGrant), 2);
  EXPECT_EQ(counts.incidents_of(ViolationKind::kDoubleGrant), 1);
}

TEST_F(OracleTest, AnAdoptedLeaseIsTheSameLeaseAndEndsOnceWhereverItEnds) {
  grant(0, "redis-0", "worker-1", 1);
  record(500, "redis-0", EventKind::kCrash);
  record(500, "redis-1", EventKind::kLeaseAdopt,
         {{"lock", "lock"}, {"owner", "worker-1"}, {"token", 1}, {"lease_ns", Duration::milliseconds(9'500)}});
  record(10'000, "redis-1", EventKind::kLeaseExpire, {{"lock", "lock"}, {"owner", "worker-1"}, {"token", 1}});
  grant(10'001, "redis-1", "worker-2", 2);
  EXPECT_EQ(finish().of(ViolationKind::kDoubleGrant), 0);
}

TEST_F(OracleTest, AForgottenLeaseIsPromisedUntilItsLengthRunsOut) {
  grant(0, "redis-0", "worker-1", 1);
  record(1'000, "redis-0", EventKind::kLeaseLost,
         {{"lock", "lock"}, {"owner", "worker-1"}, {"token", 1}, {"reason", "restart"}});
  grant(5'000, "redis-0", "worker-2", 2);   // still promised to worker-1: a double grant
  record(6'000, "redis-0", EventKind::kLeaseRelease, {{"owner", "worker-2"}, {"token", 2}, {"by", "worker-2"}});
  grant(10'000, "redis-0", "worker-3", 3);  // worker-1's promise ended at 10 s, before this
  EXPECT_EQ(finish().of(ViolationKind::kDoubleGrant), 1);
}

TEST_F(OracleTest, AWriteAfterALaterHolderWasServedIsStaleAndOneBeforeIsOnlyLate) {
  grant(0, "redis-0", "worker-1", 1, 1'000);
  record(0, "worker-1", EventKind::kHoldBegin);
  record(1'000, "redis-0", EventKind::kLeaseExpire, {{"owner", "worker-1"}, {"token", 1}});
  grant(1'100, "redis-0", "worker-2", 2);
  // worker-1 writes before worker-2 touched storage: late, in lock order.
  record(1'200, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 1}, {"writer", "worker-1"}});
  record(1'300, "storage", EventKind::kReadAccept, {{"key", "qty"}, {"reader", "worker-2"}});
  // Now storage has served the later holder: worker-1's next write is stale.
  record(1'400, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 1}, {"writer", "worker-1"}});
  record(1'500, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 2}, {"writer", "worker-2"}});
  const OracleCounts counts = finish(2);
  EXPECT_EQ(counts.of(ViolationKind::kStaleWrite), 1);
  EXPECT_EQ(counts.late_writes, 1);
  EXPECT_EQ(counts.of(ViolationKind::kLostUpdate), 1);  // three accepted writes, final value 2
}

TEST_F(OracleTest, OverlappingHoldsCountOncePerPair) {
  record(0, "worker-1", EventKind::kHoldBegin);
  record(1, "worker-2", EventKind::kHoldBegin);
  record(2, "worker-3", EventKind::kHoldBegin);
  record(3, "worker-2", EventKind::kHoldEnd);
  record(3, "worker-2", EventKind::kHoldBegin);
  EXPECT_EQ(finish().of(ViolationKind::kDoubleHolder), 5);  // 1, then 2, then 2 again
}

TEST_F(OracleTest, AForeignReleaseIsAReleaseByAnotherThanTheOwner) {
  grant(0, "redis-0", "worker-1", 1);
  record(100, "redis-0", EventKind::kLeaseRelease, {{"owner", "worker-1"}, {"token", 1}, {"by", "worker-2"}});
  EXPECT_EQ(finish().of(ViolationKind::kForeignRelease), 1);
}

TEST_F(OracleTest, ALockIsStuckWhenAUselessOwnerIsStillPromisedItWhileOthersAreTurnedAway) {
  Oracle oracle{OracleSetup{1, Duration::seconds(1), OracleSetup::Workload::kCounter, "qty"}};
  const std::initializer_list<Field> lease{{"owner", "worker-1"}, {"token", 1}};
  const std::initializer_list<Field> none{};
  oracle.observe(at_ms(0), "redis-0", EventKind::kLeaseGrant, std::span{lease.begin(), lease.size()});  // no expiry
  oracle.observe(at_ms(0), "worker-1", EventKind::kHoldBegin, std::span{none.begin(), none.size()});
  oracle.observe(at_ms(100), "worker-1", EventKind::kCrash, std::span{none.begin(), none.size()});
  oracle.observe(at_ms(1'000), "worker-2", EventKind::kAcquireFail, std::span{none.begin(), none.size()});  // not yet
  oracle.observe(at_ms(1'200), "worker-2", EventKind::kAcquireFail, std::span{none.begin(), none.size()});
  oracle.observe(at_ms(1'300), "worker-2", EventKind::kAcquireFail,
                 std::span{none.begin(), none.size()});  // same moment
  EXPECT_EQ(oracle.finish({}).of(ViolationKind::kStuckLock), 1);
}

TEST_F(OracleTest, AnOwnerGrantedANewTokenWhileItsOwnForgottenLeaseIsStillPromisedWritesInLockOrder) {
  grant(0, "redis-0", "worker-1", 1);
  record(1'000, "redis-0", EventKind::kLeaseLost,
         {{"lock", "lock"}, {"owner", "worker-1"}, {"token", 1}, {"reason", "evicted"}});
  grant(1'100, "redis-0", "worker-2", 2);  // worker-1's token 1 is promised until 10 s: a double grant
  record(1'200, "storage", EventKind::kReadAccept, {{"key", "qty"}, {"reader", "worker-2"}});
  record(1'300, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 1}, {"writer", "worker-2"}});
  record(1'400, "redis-0", EventKind::kLeaseRelease, {{"owner", "worker-2"}, {"token", 2}, {"by", "worker-2"}});
  grant(1'500, "redis-0", "worker-1", 3);  // a new gain, though its token-1 promise still runs
  record(1'600, "storage", EventKind::kReadAccept, {{"key", "qty"}, {"reader", "worker-1"}});
  record(1'700, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 2}, {"writer", "worker-1"}});
  record(1'800, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 3}, {"writer", "worker-2"}});  // stale
  const OracleCounts counts = finish(3);
  EXPECT_EQ(counts.of(ViolationKind::kStaleWrite), 1);  // worker-2's last write only
  EXPECT_EQ(counts.late_writes, 0);
  EXPECT_EQ(counts.of(ViolationKind::kDoubleGrant), 1);  // an owner overlapping itself is none
}

TEST_F(OracleTest, ARenewalOrAdoptionOfTheSameTokenIsNoNewGain) {
  grant(0, "redis-0", "worker-1", 1);
  grant(100, "redis-0", "worker-2", 2);  // a plain SET over worker-1's lease
  record(200, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 1}, {"writer", "worker-2"}});
  record(300, "redis-0", EventKind::kLeaseRenew,
         {{"owner", "worker-1"}, {"token", 1}, {"lease_ns", Duration::milliseconds(10'000)}});  // starts one again
  record(400, "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", 2}, {"writer", "worker-1"}});
  EXPECT_EQ(finish(2).of(ViolationKind::kStaleWrite), 1);
}

TEST_F(OracleTest, AnOwnerGrantedTheLockAgainIsNotIdleWhileItWaitsToBeginHolding) {
  Oracle oracle{OracleSetup{1, Duration::seconds(5), OracleSetup::Workload::kCounter, "qty"}};
  const auto at = [&oracle](std::int64_t milliseconds, std::string_view proc, EventKind event,
                            std::initializer_list<Field> fields) {
    oracle.observe(at_ms(milliseconds), proc, event, std::span{fields.begin(), fields.size()});
  };
  at(0, "redis-0", EventKind::kLeaseGrant, {{"owner", "worker-1"}, {"token", 1}, {"lease_ns", Duration::seconds(1)}});
  at(10, "worker-1", EventKind::kHoldBegin, {});
  at(999, "worker-1", EventKind::kHoldEnd, {});
  at(1'000, "redis-0", EventKind::kLeaseRelease, {{"owner", "worker-1"}, {"token", 1}, {"by", "worker-1"}});
  at(2'000, "redis-0", EventKind::kLeaseGrant,
     {{"owner", "worker-1"}, {"token", 2}, {"lease_ns", Duration::seconds(30)}});
  at(14'000, "worker-2", EventKind::kAcquireFail, {});  // worker-1 waits on its replicas: acquiring, not idle
  EXPECT_EQ(oracle.finish({}).of(ViolationKind::kStuckLock), 0);
  at(15'000, "worker-1", EventKind::kCrash, {});
  at(20'001, "worker-2", EventKind::kAcquireFail, {});  // useless since the crash, more than 5 s ago
  EXPECT_EQ(oracle.finish({}).of(ViolationKind::kStuckLock), 1);
}

TEST(OracleBilling, EveryExtraAcceptedChargeOfAJobIsADuplicateEffect) {
  Oracle oracle{OracleSetup{1, Duration::seconds(100), OracleSetup::Workload::kBilling, ""}};
  const std::initializer_list<Field> charge{{"key", "customer-1"}, {"value", 1}, {"writer", "worker-1"}, {"job", 1}};
  for (int time = 0; time < 3; ++time) {
    oracle.observe(at_ms(time), "storage", EventKind::kWriteAccept, std::span{charge.begin(), charge.size()});
  }
  const OracleCounts counts = oracle.finish({});
  EXPECT_EQ(counts.of(ViolationKind::kDuplicateEffect), 2);
  EXPECT_EQ(counts.incidents_of(ViolationKind::kDuplicateEffect), 1);  // one customer, charged three times
}

ScenarioSummary run_h01(OracleChoice oracle) {
  const scenario::Scenario scenario =
      scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json");
  RunRequest request;
  request.seed_count = 6;
  request.oracle = oracle;
  return run_scenario(scenario, request);
}

TEST(OracleInRuns, ChecksEveryRunByDefaultAndAgreesOnABuiltInScenario) {
  const ScenarioSummary summary = run_h01(OracleChoice::kOn);
  ASSERT_EQ(summary.modes.size(), 2u);
  for (const ModeSummary& mode : summary.modes) {
    EXPECT_EQ(mode.oracle_runs, mode.runs);
    EXPECT_EQ(mode.oracle_disagreeing_runs, 0);
    EXPECT_TRUE(mode.oracle_disagreements.empty());
  }
}

TEST(OracleInRuns, OffChecksNothingAndChangesNoVerdict) {
  const ScenarioSummary on = run_h01(OracleChoice::kOn);
  const ScenarioSummary off = run_h01(OracleChoice::kOff);
  for (std::size_t mode = 0; mode < on.modes.size(); ++mode) {
    EXPECT_EQ(off.modes[mode].oracle_runs, 0);
    EXPECT_EQ(off.modes[mode].violations, on.modes[mode].violations);
  }
}

TEST(OracleInRuns, DisagreementsSurviveTheSummaryJsonAndAMerge) {
  ScenarioSummary summary = run_h01(OracleChoice::kOn);
  summary.modes[0].oracle_disagreeing_runs = 1;
  summary.modes[0].oracle_disagreements.push_back({5, "stale_write", 2, 1, "locksim replay x --seed 5 --fencing off"});
  const std::vector<ScenarioSummary> read =
      reports::summary_from_json(reports::summary_to_json({summary}), "summary.json");
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].modes[0].oracle_runs, summary.modes[0].oracle_runs);
  EXPECT_EQ(read[0].modes[0].oracle_disagreeing_runs, 1);
  ASSERT_EQ(read[0].modes[0].oracle_disagreements.size(), 1u);
  EXPECT_EQ(read[0].modes[0].oracle_disagreements[0].seed, 5u);
  EXPECT_EQ(read[0].modes[0].oracle_disagreements[0].kind, "stale_write");
  std::vector<ScenarioSummary> merged;
  merge_summaries(merged, read);
  merge_summaries(merged, read);
  EXPECT_EQ(merged[0].modes[0].oracle_disagreeing_runs, 2);
  EXPECT_EQ(merged[0].modes[0].oracle_runs, 2 * summary.modes[0].oracle_runs);
}

}  // namespace
}  // namespace locksim::runner
