#include "reports/trace_view.h"

#include <gtest/gtest.h>

namespace locksim::reports {
namespace {

const std::vector<std::string> kProcs = trace_proc_names({"redis-0", "storage", "worker-1", "worker-2"});

TraceView parsed(const TraceFlags& flags) {
  const TraceViewParse result = parse_trace_view(flags, kProcs);
  EXPECT_TRUE(result.view.has_value()) << result.error;
  return result.view.value_or(TraceView{});
}

TraceFlags procs(std::vector<std::string> lists) {
  TraceFlags flags;
  flags.procs = std::move(lists);
  return flags;
}

TraceFlags around(std::string text) {
  TraceFlags flags;
  flags.around = std::move(text);
  return flags;
}

TraceFlags hide(std::vector<std::string> lists) {
  TraceFlags flags;
  flags.hide = std::move(lists);
  return flags;
}

TraceFlags raw() {
  TraceFlags flags;
  flags.raw = true;
  return flags;
}

std::string error_of(const TraceFlags& flags) {
  const TraceViewParse result = parse_trace_view(flags, kProcs);
  EXPECT_FALSE(result.view.has_value());
  return result.error;
}

TEST(TraceView, NoFlagsShowEverythingReadably) {
  const TraceView view = parsed({});
  EXPECT_TRUE(view.procs.empty());
  EXPECT_FALSE(view.around.has_value());
  EXPECT_TRUE(view.hidden.empty());
  EXPECT_EQ(view.numbers, NumberStyle::kReadable);
  EXPECT_EQ(parsed(raw()).numbers, NumberStyle::kRaw);
}

TEST(TraceView, TheProcsAreTheNodesAndTheNemesisAndTheRun) {
  EXPECT_EQ(kProcs, (std::vector<std::string>{"redis-0", "storage", "worker-1", "worker-2", "nemesis", "run"}));
}

TEST(TraceView, ProcsMayBeCommaSeparatedOrRepeated) {
  const TraceView view = parsed(procs({"worker-1,redis-0", "nemesis"}));
  EXPECT_EQ(view.procs, (std::set<std::string>{"nemesis", "redis-0", "worker-1"}));
}

TEST(TraceView, AnUnknownProcIsAnErrorListingTheValidOnes) {
  EXPECT_EQ(error_of(procs({"worker-1,worker-9"})),
            "--procs: unknown proc \"worker-9\"; this scenario's procs are redis-0, storage, worker-1, worker-2, nemesis, run");
  EXPECT_NE(error_of(procs({"worker-1,"})).find("unknown proc \"\""), std::string::npos);
}

TEST(TraceView, AroundTakesAViolationKindAndFiveSecondsByDefault) {
  const TraceView view = parsed(around("double_holder"));
  ASSERT_TRUE(view.around.has_value());
  EXPECT_EQ(view.around->kind, checker::ViolationKind::kDoubleHolder);
  EXPECT_EQ(view.around->within_ns, 5'000'000'000);
}

TEST(TraceView, AroundSecondsAreSecondsOrADuration) {
  EXPECT_EQ(parsed(around("stale_write:2")).around->within_ns, 2'000'000'000);
  EXPECT_EQ(parsed(around("stale_write:0.5")).around->within_ns, 500'000'000);
  EXPECT_EQ(parsed(around("stale_write:250ms")).around->within_ns, 250'000'000);
  EXPECT_EQ(parsed(around("stale_write:0")).around->within_ns, 0);
  EXPECT_EQ(parsed(around("stale_write:2")).around->kind, checker::ViolationKind::kStaleWrite);
}

TEST(TraceView, AnUnknownViolationIsAnErrorListingEveryKind) {
  EXPECT_EQ(error_of(around("stale_writes:2")),
            "--around: unknown violation \"stale_writes\"; the violations are double_grant, double_holder, stale_write, "
            "foreign_release, stuck_lock, lost_update, duplicate_effect, token_order");
}

TEST(TraceView, AroundSecondsThatAreNotATimeOrNegativeAreErrors) {
  for (const std::string seconds : {"x", "", "-1", "2 s", "1.5.2"}) {
    EXPECT_EQ(error_of(around("stale_write:" + seconds)),
              "--around: \"" + seconds +
                  "\" after \"stale_write:\" is not a time; expected seconds like 2 or 0.5, or a duration like 500ms");
  }
}

TEST(TraceView, HiddenEventsKeepTheOrderFirstNamedWithoutRepeats) {
  const TraceView view = parsed(hide({"acquire.fail,renew.ok", "acquire.fail"}));
  EXPECT_EQ(view.hidden, (std::vector{checker::EventKind::kAcquireFail, checker::EventKind::kRenewOk}));
}

TEST(TraceView, AnUnknownEventIsAnErrorListingTheEvents) {
  const std::string error = error_of(hide({"acquire.fial"}));
  EXPECT_TRUE(error.starts_with("--hide: unknown event \"acquire.fial\"; the events are run.begin, run.end, "))
      << error;
  EXPECT_TRUE(error.ends_with(", fault.begin, fault.end")) << error;
}

}  // namespace
}  // namespace locksim::reports
