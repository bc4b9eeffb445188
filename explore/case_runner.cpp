#include "explore/case_runner.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace locksim::explore {
namespace {

void require_oracle_agrees(const runner::SeedRun& run, const std::string& key) {
  if (run.oracle_mismatches.empty()) return;
  const runner::OracleMismatch& first = run.oracle_mismatches.front();
  throw std::runtime_error(fmt::format("the checker and the oracle disagree on {} (checker {}, oracle {}) in the case {}",
                                       first.measure, first.checker_count, first.oracle_count, key));
}

}  // namespace

CaseRunner::CaseRunner(model::Fencing mode, std::vector<checker::ViolationKind> kinds)
    : mode_{mode}, kinds_{std::move(kinds)} {}

const std::vector<checker::ViolationKind>& CaseRunner::shown_kinds(const RunnableCase& runnable_case) {
  const std::string key = run_key(runnable_case);
  if (const auto known = shown_by_key_.find(key); known != shown_by_key_.end()) return known->second;
  const runner::SeedRun run = runner::run_plan(runnable_case.scenario, runnable_case.plan, mode_);
  ++simulations_;
  require_oracle_agrees(run, key);
  std::vector<checker::ViolationKind> shown;
  for (const checker::ViolationKind kind : kinds_) {
    if (run.verdict.violation_count(kind).value_or(0) > 0) shown.push_back(kind);
  }
  return shown_by_key_.emplace(key, std::move(shown)).first->second;
}

std::optional<checker::ViolationKind> CaseRunner::shown(const RunnableCase& runnable_case) {
  const std::vector<checker::ViolationKind>& shown = shown_kinds(runnable_case);
  if (shown.empty()) return std::nullopt;
  return shown.front();
}

bool CaseRunner::shows(const RunnableCase& runnable_case, checker::ViolationKind kind) {
  return std::ranges::count(shown_kinds(runnable_case), kind) > 0;
}

runner::SeedRun CaseRunner::run_watched(const RunnableCase& runnable_case, std::vector<std::string>& history) const {
  history.clear();
  return runner::run_plan(runnable_case.scenario, runnable_case.plan, mode_,
                          [&history](std::string_view line, const sim::Simulation&) { history.emplace_back(line); });
}

}  // namespace locksim::explore
