// `locksim verify`'s search on built-in scenarios: the statements and
// counterexamples it gives, that they do not depend on threads, and that a
// run is its script.

#include "verify/verification.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "scenario/scenario_parser.h"
#include "tests/explore/explore_support.h"

namespace locksim::verify {
namespace {

using checker::ViolationKind;
using explore::testing::builtin;
using explore::testing::builtin_text;

explore::ExploreGoal goal(model::Fencing mode, std::vector<ViolationKind> kinds) {
  explore::ExploreGoal goal;
  goal.mode = mode;
  goal.kinds = std::move(kinds);
  return goal;
}

Bounds with_deviations(int deviations) {
  Bounds bounds;
  bounds.deviations = deviations;
  return bounds;
}

std::int64_t showing(const Verification& verification, ViolationKind kind) {
  const auto found = verification.runs_showing.find(kind);
  return found == verification.runs_showing.end() ? 0 : found->second;
}

TEST(Verify, TheCheckThenActRaceIsAOneDeviationCounterexample) {
  // The client checks its lease (monotonic clock) before writing; the file's
  // pause strikes after the grant, before the check, which then sees the
  // lease ran out. Moved to the write.invoke anchor it lands between the
  // check and the write: one deviation.
  const scenario::Scenario scenario = builtin("h03-monotonic-lease-check");
  const explore::ExploreGoal wanted = goal(model::Fencing::kOff, {ViolationKind::kStaleWrite});

  const Verification none = verify(scenario, wanted, with_deviations(0), 1);
  EXPECT_FALSE(none.counterexample) << "the file's own timing is safe";
  EXPECT_EQ(none.levels_done, 1);

  const Verification one = verify(scenario, wanted, with_deviations(1), 2);
  ASSERT_TRUE(one.counterexample);
  const std::vector<ChoicePoint> deviations = one.counterexample->deviations();
  ASSERT_EQ(deviations.size(), 1u);
  EXPECT_EQ(deviations[0].site(), "fault trigger of faults[0], epoch 0");
  EXPECT_EQ(deviations[0].chosen, "at worker-1's write.invoke #1");
  EXPECT_GT(one.counterexample->run.verdict.violation_count(ViolationKind::kStaleWrite).value_or(0), 0);
  EXPECT_EQ(one.levels_done, 1) << "every run with no deviation was checked first";
}

TEST(Verify, H01WithoutFencingBreaksAtItsDefaults) {
  // The file's pause is uniform(12 s, 20 s), all past the 10 s lease: the
  // run with every draw at its default (a 16 s pause) already writes late.
  const Verification verification = verify(builtin("h01-gc-pause-past-lease"),
                                            goal(model::Fencing::kOff, {ViolationKind::kStaleWrite}), with_deviations(2), 2);
  ASSERT_TRUE(verification.counterexample);
  EXPECT_TRUE(verification.counterexample->deviations().empty());
  EXPECT_EQ(verification.runs, 1);
}

TEST(Verify, H01WithFencingHasNoStaleWriteWithinOneDeviationButStillTwoHolders) {
  const scenario::Scenario scenario = builtin("h01-gc-pause-past-lease");
  const explore::ExploreGoal wanted = goal(model::Fencing::kOn, {ViolationKind::kStaleWrite});
  const VerifiedRun base = run_script(scenario, wanted.mode, {}, with_deviations(1));
  const Verification verification = verify(scenario, wanted, with_deviations(1), 2);
  EXPECT_FALSE(verification.counterexample);
  EXPECT_EQ(verification.levels_done, 2);
  // Level 1 changes one choice point of the run with none: exactly one run per alternative.
  EXPECT_EQ(verification.runs, runs_per_level(base, with_deviations(1))[0] + runs_per_level(base, with_deviations(1))[1]);
  EXPECT_GT(verification.runs, 100);
  EXPECT_EQ(showing(verification, ViolationKind::kStaleWrite), 0);
  EXPECT_GT(showing(verification, ViolationKind::kDoubleHolder), verification.runs / 2)
      << "fencing stops the write, not the second holder";
}

TEST(Verify, TheControlHasNoViolationWithinOneDeviation) {
  const Verification verification =
      verify(builtin("control-no-faults"),
             goal(model::Fencing::kOff, {ViolationKind::kDoubleHolder, ViolationKind::kStaleWrite, ViolationKind::kLostUpdate}),
             with_deviations(1), 2);
  EXPECT_FALSE(verification.counterexample);
  EXPECT_TRUE(verification.runs_showing.empty());
  EXPECT_GT(verification.runs, 100);
}

// The true times of worker-1's pause's end and of its lease's expiry, from a run's history.
struct WakeAndExpiry {
  std::int64_t woke_ns = -1;
  std::int64_t expired_ns = -1;
};

WakeAndExpiry wake_and_expiry(const scenario::Scenario& scenario, const std::vector<std::uint32_t>& script,
                              const Bounds& bounds, VerifiedRun& made) {
  WakeAndExpiry found;
  made = run_script(scenario, model::Fencing::kOff, script, bounds, [&](std::string_view line, const sim::Simulation&) {
    const nlohmann::json event = nlohmann::json::parse(line);
    if (event["ev"] == "fault.end" && found.woke_ns < 0) found.woke_ns = event["t"];
    if (event["ev"] == "lease.expire" && event["owner"] == "worker-1" && found.expired_ns < 0) found.expired_ns = event["t"];
  });
  return found;
}

TEST(Verify, APauseOfTheLeaseLeftPlusOrMinusAMillisecondEndsJustAfterOrJustBeforeTheLeaseDoes) {
  // h01 with a pause whose tail is unbounded: its median (2 s) is well
  // inside the lease, so the lease left as it strikes is among its critical values.
  nlohmann::json document = nlohmann::json::parse(builtin_text("h01-gc-pause-past-lease"));
  document["faults"][0]["for"] = {{"dist", "exponential"}, {"mean", "3s"}};
  const scenario::Scenario scenario = scenario::parse_scenario(document.dump(), "h01-exponential.json");
  const Bounds bounds = with_deviations(1);
  VerifiedRun made;
  const WakeAndExpiry at_default = wake_and_expiry(scenario, {}, bounds, made);
  EXPECT_EQ(at_default.expired_ns, -1) << "a 2 s pause: worker-1 lets its lease go in time";
  EXPECT_EQ(made.run.verdict.violation_count(ViolationKind::kDoubleHolder).value_or(0), 0);

  const auto length = std::find_if(made.points.begin(), made.points.end(), [](const ChoicePoint& point) {
    return point.site().starts_with("fault length of faults[0]");
  });
  ASSERT_NE(length, made.points.end());
  ASSERT_EQ(length->domain_size, 5u) << "median, min, 99th percentile, the lease left − 1ms and + 1ms";
  std::vector<std::uint32_t> script(static_cast<std::size_t>(length - made.points.begin()), 0);

  script.push_back(3);
  const WakeAndExpiry short_of = wake_and_expiry(scenario, script, bounds, made);
  EXPECT_TRUE(made.deviations().at(0).chosen.ends_with("(the lease left − 1ms)")) << made.deviations().at(0).chosen;
  ASSERT_GE(short_of.expired_ns, 0) << "its work after waking outlasts the last millisecond";
  EXPECT_EQ(short_of.expired_ns - short_of.woke_ns, 1'000'000);

  script.back() = 4;
  const WakeAndExpiry past = wake_and_expiry(scenario, script, bounds, made);
  EXPECT_EQ(past.woke_ns - past.expired_ns, 1'000'000);
  EXPECT_GT(made.run.verdict.violation_count(ViolationKind::kDoubleHolder).value_or(0), 0);
  EXPECT_GT(made.run.verdict.violation_count(ViolationKind::kStaleWrite).value_or(0), 0);
}

TEST(Verify, FencedConsensusWithFencedReadsHasNoStaleWriteWithinTwoDeviationsAndTwoPauses) {
  // h16: the holder freezes 15 s right before its write, past its 10 s
  // session; storage compares revisions on reads and writes. One more pause
  // like it, on any node at any of its first two anchors of each kind, makes two.
  const scenario::Scenario file = builtin("h16-consensus-holder-pause");
  ASSERT_TRUE(file.system.storage.fence_reads);
  Bounds bounds = with_deviations(2);
  bounds.extra_faults = 1;
  const std::optional<scenario::Scenario> scenario = with_extra_faults(file, bounds.extra_faults);
  ASSERT_TRUE(scenario);
  ASSERT_EQ(scenario->faults.size(), 2u);
  const Verification verification =
      verify(*scenario, goal(model::Fencing::kOn, {ViolationKind::kStaleWrite}), bounds, 2);
  EXPECT_FALSE(verification.counterexample);
  EXPECT_EQ(verification.levels_done, 3);
  EXPECT_GT(verification.runs, 100);
  EXPECT_GT(showing(verification, ViolationKind::kDoubleHolder), 0) << "the two holders fencing does not prevent";

  bounds.extra_faults = 0;
  const Verification one_pause = verify(file, goal(model::Fencing::kOn, {ViolationKind::kStaleWrite}), bounds, 2);
  EXPECT_LT(one_pause.runs, verification.runs) << "the added pause's runs are runs the file alone does not have";
}

TEST(Verify, AFileWithoutAPauseOrACrashHasNothingToAddMoreOf) {
  EXPECT_FALSE(with_extra_faults(builtin("control-no-faults"), 1));
  EXPECT_TRUE(with_extra_faults(builtin("control-no-faults"), 0));
}

TEST(Verify, FindsABrokenGuardWithinTheDefaultBoundsWhereAThousandSeedsDoNot) {
  // The mutation: storage registers a fenced read's token as the highest
  // without comparing it. In h16 the holder freezes before its write, after
  // its read, so its late write meets the compare and is turned away: every
  // seed passes. Moved to after its grant, the frozen holder's first access
  // on waking is its read, which lowers the highest token back to its own,
  // and its write then passes.
  scenario::Scenario mutated = builtin("h16-consensus-holder-pause");
  mutated.system.storage.mutation = model::StorageMutation::kReadsSkipCompare;

  std::int64_t stale_writes = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    stale_writes += runner::run_seed(mutated, seed, model::Fencing::kOn, {}, runner::OracleChoice::kOff)
                        .verdict.violation_count(ViolationKind::kStaleWrite)
                        .value_or(0);
  }
  EXPECT_EQ(stale_writes, 0);

  const Verification verification = verify(mutated, goal(model::Fencing::kOn, {ViolationKind::kStaleWrite}), Bounds{}, 2);
  ASSERT_TRUE(verification.counterexample);
  const std::vector<ChoicePoint> deviations = verification.counterexample->deviations();
  ASSERT_EQ(deviations.size(), 1u);
  EXPECT_EQ(deviations[0].chosen, "at worker-1's acquire.ok #1");

  const Verification intact = verify(builtin("h16-consensus-holder-pause"),
                                     goal(model::Fencing::kOn, {ViolationKind::kStaleWrite}), Bounds{}, 2);
  EXPECT_FALSE(intact.counterexample) << "the intact guard holds within the same bounds";
}

TEST(Verify, RedlockWithFencingGivesATokenThatGoesBackwards) {
  // A Redlock instance restarts empty and grants its next holder a token it
  // already gave: fencing on the token cannot order the two holders. The
  // file as written shows it, with every draw at its default.
  const Verification verification = verify(builtin("h06-redlock-restart-empty"),
                                            goal(model::Fencing::kOn, {ViolationKind::kTokenOrder}), Bounds{}, 2);
  ASSERT_TRUE(verification.counterexample);
  EXPECT_TRUE(verification.counterexample->deviations().empty());
  const checker::HistoryVerdict& verdict = verification.counterexample->run.verdict;
  ASSERT_GT(verdict.violation_count(ViolationKind::kTokenOrder).value_or(0), 0);
  const auto backwards = std::find_if(verdict.violations.begin(), verdict.violations.end(),
                                      [](const checker::Violation& v) { return v.kind == ViolationKind::kTokenOrder; });
  EXPECT_NE(backwards->detail.find("with token 1, after it granted token 1"), std::string::npos) << backwards->detail;
}

TEST(Verify, TheResultIsTheSameOnOneThreadAndOnTwo) {
  for (const char* name : {"h03-monotonic-lease-check", "h01-gc-pause-past-lease"}) {
    const scenario::Scenario scenario = builtin(name);
    const explore::ExploreGoal wanted = goal(model::Fencing::kOff, {ViolationKind::kStaleWrite, ViolationKind::kLostUpdate});
    Bounds bounds = with_deviations(1);
    const Verification alone = verify(scenario, wanted, bounds, 1);
    const Verification together = verify(scenario, wanted, bounds, 2);
    EXPECT_EQ(alone.runs, together.runs) << name;
    EXPECT_EQ(alone.simulations, together.simulations) << name;
    EXPECT_EQ(alone.runs_showing, together.runs_showing) << name;
    ASSERT_EQ(alone.counterexample.has_value(), together.counterexample.has_value()) << name;
    if (alone.counterexample) {
      EXPECT_EQ(alone.counterexample->script, together.counterexample->script) << name;
      EXPECT_EQ(alone.counterexample->run.history_hash, together.counterexample->run.history_hash) << name;
    }
  }
}

TEST(Verify, ARunIsItsScript) {
  const scenario::Scenario scenario = builtin("h01-gc-pause-past-lease");
  const Bounds bounds = with_deviations(2);
  const std::vector<std::uint32_t> script{0, 0, 1, 0, 0, 2};
  const VerifiedRun first = run_script(scenario, model::Fencing::kOn, script, bounds);
  const VerifiedRun again = run_script(scenario, model::Fencing::kOn, script, bounds);
  EXPECT_EQ(first.run.history_hash, again.run.history_hash);
  ASSERT_EQ(first.points.size(), again.points.size());
  for (std::size_t position = 0; position < first.points.size(); ++position) {
    EXPECT_EQ(first.points[position].site(), again.points[position].site());
    EXPECT_EQ(first.points[position].index, again.points[position].index);
  }
  EXPECT_EQ(first.deviations().size(), 2u);
  EXPECT_NE(first.run.history_hash, run_script(scenario, model::Fencing::kOn, {}, bounds).run.history_hash);
}

}  // namespace
}  // namespace locksim::verify
