// What a run's work cost (runner::SeedRun's jobs_done, calls and
// acquire_wait_ns, which `advise` prints) against the run's own history: every
// call is a worker's *.invoke event, and the wait for the lock is, per grant,
// the time from the first acquire.invoke after the worker's last grant or
// give-up to its acquire.ok.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"
#include "vocabulary/event_kind.h"

namespace locksim::runner {
namespace {

struct FromHistory {
  std::int64_t calls = 0;
  std::int64_t acquire_wait_ns = 0;
};

FromHistory costs_in(const std::vector<std::string>& history) {
  using vocabulary::EventKind;
  using vocabulary::event_kind_name;
  static const std::vector<std::string> kCalls = {
      std::string{event_kind_name(EventKind::kAcquireInvoke)}, std::string{event_kind_name(EventKind::kRenewInvoke)},
      std::string{event_kind_name(EventKind::kReleaseInvoke)}, std::string{event_kind_name(EventKind::kReadInvoke)},
      std::string{event_kind_name(EventKind::kWriteInvoke)},   std::string{event_kind_name(EventKind::kEffectInvoke)}};
  FromHistory found;
  std::map<std::string, std::int64_t> asked_at;  // per worker, since its last grant or give-up
  for (const std::string& line : history) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const std::string kind = event.at("ev");
    const std::string proc = event.at("proc");
    const std::int64_t time_ns = event.at("t");
    if (std::ranges::count(kCalls, kind) > 0) ++found.calls;
    if (kind == event_kind_name(EventKind::kAcquireInvoke)) asked_at.try_emplace(proc, time_ns);
    if (kind == event_kind_name(EventKind::kAcquireOk)) {
      found.acquire_wait_ns += time_ns - asked_at.at(proc);
      asked_at.erase(proc);
    }
    if (kind == event_kind_name(EventKind::kAcquireGiveUp)) asked_at.erase(proc);
  }
  return found;
}

class RunCosts : public ::testing::TestWithParam<std::string> {};

// No clock drift in these files, so a worker's monotonic clock keeps true time.
TEST_P(RunCosts, CallsAndTheWaitForTheLockAreWhatTheHistoryShows) {
  const scenario::Scenario scenario =
      scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + GetParam() + ".json");
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    std::vector<std::string> history;
    const SeedRun run = run_plan(scenario, scenario::make_plan(scenario, seed), model::Fencing::kOff,
                                 [&](std::string_view line, const sim::Simulation&) { history.emplace_back(line); });
    const FromHistory expected = costs_in(history);
    EXPECT_EQ(run.calls, expected.calls) << "seed " << seed;
    EXPECT_EQ(run.acquire_wait_ns, expected.acquire_wait_ns) << "seed " << seed;
    EXPECT_GT(run.calls, 0) << "seed " << seed;
    EXPECT_GT(run.jobs_done, 0) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, RunCosts,
                         ::testing::Values("h01-gc-pause-past-lease", "h25-duplicate-charge", "h26-watchdog-renewal",
                                           "h08-plain-del-release"));

// validate: service makes storage ask the lock service for every request: a
// round trip each, on top of the workers' calls.
TEST(RunCosts, StoragesValidationsCountAsCalls) {
  const scenario::Scenario scenario =
      scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/h22-validate-with-service.json");
  std::vector<std::string> history;
  const SeedRun run = run_plan(scenario, scenario::make_plan(scenario, 1), model::Fencing::kOn,
                               [&](std::string_view line, const sim::Simulation&) { history.emplace_back(line); });
  std::int64_t at_storage = 0;  // fenced requests storage judged (writes; reads too if fenced): one question each
  for (const std::string& line : history) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const std::string kind = event.at("ev");
    const bool judged = kind == "read.accept" || kind == "read.reject" || kind == "write.accept" || kind == "write.reject";
    if (judged && event.contains("token")) ++at_storage;
  }
  EXPECT_GT(at_storage, 0);
  EXPECT_EQ(run.calls, costs_in(history).calls + at_storage);
}

}  // namespace
}  // namespace locksim::runner
