// One precedence for exit codes in every command: 3 over 2 over 1 over 0.
#include "cli/exit_code.h"

#include <gtest/gtest.h>

namespace locksim::cli {
namespace {

constexpr ExitCode kBySeverity[] = {ExitCode::kOk, ExitCode::kExpectationFailed, ExitCode::kBadInput,
                                    ExitCode::kInternalError};

TEST(ExitCodePrecedence, TheMoreSevereCodeWinsWhicheverComesFirst) {
  for (std::size_t lower = 0; lower < std::size(kBySeverity); ++lower) {
    for (std::size_t higher = lower; higher < std::size(kBySeverity); ++higher) {
      EXPECT_EQ(more_severe(kBySeverity[lower], kBySeverity[higher]), kBySeverity[higher]) << lower << " " << higher;
      EXPECT_EQ(more_severe(kBySeverity[higher], kBySeverity[lower]), kBySeverity[higher]) << lower << " " << higher;
    }
  }
}

TEST(ExitCodePrecedence, InternalErrorOutranksBadInputWhichOutranksAFailedExpectation) {
  static_assert(more_severe(ExitCode::kBadInput, ExitCode::kInternalError) == ExitCode::kInternalError);
  static_assert(more_severe(ExitCode::kExpectationFailed, ExitCode::kBadInput) == ExitCode::kBadInput);
  static_assert(more_severe(ExitCode::kOk, ExitCode::kExpectationFailed) == ExitCode::kExpectationFailed);
  EXPECT_EQ(static_cast<int>(more_severe(ExitCode::kInternalError, ExitCode::kBadInput)), 3);
}

runner::ScenarioSummary summary(bool ok, bool determinism_failed) {
  runner::ScenarioSummary scenario;
  scenario.ok = ok;
  if (determinism_failed) scenario.recheck_failed.push_back(7);
  return scenario;
}

TEST(ExitCodeOfSummaries, IsOneForAFailedScenarioAndThreeForADeterminismFailureAnywhere) {
  EXPECT_EQ(exit_code_of({}), ExitCode::kOk);
  EXPECT_EQ(exit_code_of({summary(true, false), summary(true, false)}), ExitCode::kOk);
  EXPECT_EQ(exit_code_of({summary(true, false), summary(false, false)}), ExitCode::kExpectationFailed);
  // A determinism failure makes its scenario fail too; it still reads as 3,
  // before or after other failures.
  EXPECT_EQ(exit_code_of({summary(false, true), summary(false, false)}), ExitCode::kInternalError);
  EXPECT_EQ(exit_code_of({summary(false, false), summary(false, true)}), ExitCode::kInternalError);
}

TEST(ExitCodeOfSummaries, IsThreeWhenTheCheckerAndTheOracleDisagreedOnAnyRun) {
  runner::ScenarioSummary passing = summary(true, false);
  runner::ModeSummary mode;
  mode.oracle_runs = 20;
  passing.modes.push_back(mode);
  EXPECT_EQ(exit_code_of({passing}), ExitCode::kOk);
  mode.oracle_disagreeing_runs = 1;
  passing.modes.push_back(mode);
  EXPECT_EQ(exit_code_of({passing, summary(false, false)}), ExitCode::kInternalError);
}

}  // namespace
}  // namespace locksim::cli
