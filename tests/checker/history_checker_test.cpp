// The whole checker on generated histories: legal ones show no violation;
// each mutator injects exactly one violation, which must be found, alone, at
// the right events. rapidcheck prints the seed of a failure; replay it with
// RC_PARAMS="reproduce=..." (or fix the seed with RC_PARAMS="seed=N").

#include "checker/history_checker.h"

#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/verdict_report.h"
#include "legal_history.h"

namespace locksim::checker {
namespace {

using namespace testing;

struct Plan {
  int workers = 2;
  std::vector<int> choices;
  Workload workload = Workload::kCounter;
};

Plan any_plan() {
  Plan plan;
  plan.workers = *rc::gen::inRange(1, 5);
  plan.choices = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 1000));
  plan.workload = *rc::gen::element(Workload::kCounter, Workload::kBilling);
  return plan;
}

LegalHistory legal_from(const Plan& plan) { return legal_history(plan.workers, plan.choices, plan.workload); }

HistoryVerdict checked(const HistoryBuilder& history) {
  const CheckOutcome outcome = check_history_text(history.text(), "generated.jsonl", CheckOptions{});
  RC_ASSERT(!outcome.error.has_value());
  return outcome.verdict;
}

// Exactly one violation, of `kind`, at `events`.
void expect_only(const HistoryVerdict& verdict, ViolationKind kind, const std::vector<std::int64_t>& events) {
  RC_ASSERT(verdict.violations.size() == 1U);
  RC_ASSERT(verdict.violations[0].kind == kind);
  RC_ASSERT(verdict.violations[0].events == events);
}

std::string other_worker(const LegalHistory& legal, const std::string& worker) {
  for (const std::string& candidate : legal.workers) {
    if (candidate != worker) {
      return candidate;
    }
  }
  return {};
}

// Inserts `event` just before the event labelled `before`, at its time.
void insert_before(HistoryBuilder& history, const std::string& before, EventSpec event) {
  const std::int64_t position = history.index_of(before);
  RC_ASSERT(position >= 0);
  event.time_ns = history.events()[static_cast<std::size_t>(position)].time_ns;
  history.insert(static_cast<std::size_t>(position), std::move(event));
}

// Inserts `event` just after the event labelled `after`, at its time.
void insert_after(HistoryBuilder& history, const std::string& after, EventSpec event) {
  const std::int64_t position = history.index_of(after);
  RC_ASSERT(position >= 0);
  event.time_ns = history.events()[static_cast<std::size_t>(position)].time_ns;
  history.insert(static_cast<std::size_t>(position) + 1, std::move(event));
}

RC_GTEST_PROP(HistoryChecker, LegalHistoriesHaveNoViolation, ()) {
  const Plan plan = any_plan();
  const LegalHistory legal = legal_from(plan);
  const HistoryVerdict verdict = checked(legal.history);
  RC_ASSERT(verdict.violations.empty());
  for (const ViolationKind kind : {ViolationKind::kDoubleGrant, ViolationKind::kDoubleHolder,
                                   ViolationKind::kForeignRelease, ViolationKind::kStuckLock,
                                   ViolationKind::kTokenOrder}) {
    RC_ASSERT(verdict.violation_count(kind) == std::optional<std::int64_t>{0});
  }
  // A history without writes has nothing for stale_write to judge: not judged, never a 0.
  const bool writes = std::any_of(legal.history.events().begin(), legal.history.events().end(),
                                  [](const EventSpec& event) { return event.event.starts_with("write."); });
  const std::optional<std::int64_t> no_stale = writes ? std::optional<std::int64_t>{0} : std::nullopt;
  RC_ASSERT(verdict.violation_count(ViolationKind::kStaleWrite) == no_stale);
  const ViolationKind workload_check =
      plan.workload == Workload::kCounter ? ViolationKind::kLostUpdate : ViolationKind::kDuplicateEffect;
  RC_ASSERT(verdict.violation_count(workload_check) == std::optional<std::int64_t>{0});
  RC_ASSERT(verdict.counts.acquisitions == static_cast<std::int64_t>(legal.turns.size()));
  RC_ASSERT(verdict.counts.accepted_writes == legal.accepted_writes);
  RC_ASSERT(verdict.counts.late_writes == 0);
}

RC_GTEST_PROP(HistoryChecker, InjectedGrantToAnotherOwnerIsFoundAsTheOnlyDoubleGrant, ()) {
  Plan plan = any_plan();
  plan.workers = std::max(plan.workers, 2);
  LegalHistory legal = legal_from(plan);
  const auto turn = static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, legal.turns.size()));
  const std::string intruder = other_worker(legal, legal.turns[turn].owner);
  // No token: any token between the legal ones' would also be a token_order violation.
  const Fields lease{{"lock", "L"}, {"owner", intruder}, {"lease_ns", kLeaseNs}};
  Fields release = lease;
  release["by"] = intruder;
  insert_before(legal.history, label("hold-end", turn), EventSpec{0, "redis-0", "lease.grant", lease, "intruder"});
  insert_before(legal.history, label("hold-end", turn), EventSpec{0, "redis-0", "lease.release", release, {}});
  expect_only(checked(legal.history), ViolationKind::kDoubleGrant,
              {legal.history.index_of(label("grant", turn)), legal.history.index_of("intruder")});
}

RC_GTEST_PROP(HistoryChecker, InjectedOverlappingHoldIsFoundAsTheOnlyDoubleHolder, ()) {
  Plan plan = any_plan();
  plan.workers = std::max(plan.workers, 2);
  LegalHistory legal = legal_from(plan);
  const auto turn = static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, legal.turns.size()));
  const std::string intruder = other_worker(legal, legal.turns[turn].owner);
  insert_before(legal.history, label("hold-end", turn),
                EventSpec{0, intruder, "hold.begin", Fields{{"lock", "L"}}, "intruder"});
  insert_before(legal.history, label("hold-end", turn),
                EventSpec{0, intruder, "hold.end", Fields{{"lock", "L"}, {"reason", "released"}}, {}});
  expect_only(checked(legal.history), ViolationKind::kDoubleHolder,
              {legal.history.index_of(label("hold-begin", turn)), legal.history.index_of("intruder")});
}

// Gives the first turn to `to` instead of its owner: every event of that turn
// (before the second turn's acquire) that names the owner names `to`.
void give_first_turn_to(LegalHistory& legal, const std::string& to) {
  const std::string from = legal.turns[0].owner;
  const std::int64_t second_grant = legal.history.index_of(label("grant", 1));
  for (std::int64_t position = 1; position < second_grant - 1; ++position) {
    EventSpec& event = legal.history.events()[static_cast<std::size_t>(position)];
    if (event.process == from) {
      event.process = to;
    }
    for (const char* field : {"owner", "writer", "reader", "by"}) {
      if (event.fields.contains(field) && event.fields[field] == from) {
        event.fields[field] = to;
      }
    }
  }
  legal.turns[0].owner = to;
}

// A legal history and a write by a superseded owner, for the caller to
// insert: the owner of turn `next` - 1, which is not `next`'s owner.
struct WithOldWrite {
  LegalHistory legal;
  std::size_t next = 0;
  EventSpec write;
};

WithOldWrite with_old_write() {
  Plan plan = any_plan();
  plan.workers = std::max(plan.workers, 2);
  while (plan.choices.size() < 6) {  // at least two turns
    plan.choices.push_back(*rc::gen::inRange(0, 1000));
  }
  WithOldWrite made{legal_from(plan), 0, {}};
  LegalHistory& legal = made.legal;
  for (std::size_t turn = 1; turn < legal.turns.size(); ++turn) {
    if (legal.turns[turn - 1].owner != legal.turns[turn].owner) {
      made.next = turn;
    }
  }
  if (made.next == 0) {
    give_first_turn_to(legal, other_worker(legal, legal.turns[1].owner));
    made.next = 1;
  }
  const Turn* earlier = &legal.turns[made.next - 1];
  Fields write{{"key", "counter"}, {"value", 1}, {"writer", earlier->owner}, {"token", earlier->token}};
  if (plan.workload == Workload::kBilling) {
    write["job"] = "job-late";
  }
  made.write = EventSpec{0, "storage", "write.accept", write, "old-write"};
  // The old write took effect: the counter's final value counts it.
  legal.history.events().back().fields["final"]["counter"] = legal.accepted_writes + 1;
  return made;
}

RC_GTEST_PROP(HistoryChecker, InjectedWriteAfterTheLaterHolderWasServedIsFoundAsTheOnlyStaleWrite, ()) {
  WithOldWrite made = with_old_write();
  HistoryBuilder& history = made.legal.history;
  const Turn& next = made.legal.turns[made.next];
  // The next holder reads first; then storage accepts the old write: out of lock order.
  insert_after(history, label("hold-begin", made.next),
               EventSpec{0, "storage", "read.accept",
                         Fields{{"key", "counter"}, {"reader", next.owner}, {"token", next.token}}, "served"});
  insert_after(history, "served", made.write);
  const HistoryVerdict verdict = checked(history);
  expect_only(verdict, ViolationKind::kStaleWrite,
              {history.index_of(label("grant", made.next)), history.index_of("served"), history.index_of("old-write")});
  RC_ASSERT(verdict.counts.late_writes == 0);
}

RC_GTEST_PROP(HistoryChecker, InjectedWriteBeforeTheLaterHolderTouchedStorageIsALateWriteAndNoViolation, ()) {
  WithOldWrite made = with_old_write();
  HistoryBuilder& history = made.legal.history;
  insert_after(history, label("grant", made.next), made.write);
  const HistoryVerdict verdict = checked(history);
  RC_ASSERT(verdict.violations.empty());
  RC_ASSERT(verdict.counts.late_writes == 1);
}

RC_GTEST_PROP(HistoryChecker, InjectedReleaseByAnotherWorkerIsFoundAsTheOnlyForeignRelease, ()) {
  Plan plan = any_plan();
  plan.workers = std::max(plan.workers, 2);
  LegalHistory legal = legal_from(plan);
  std::vector<std::size_t> released;
  for (std::size_t turn = 0; turn < legal.turns.size(); ++turn) {
    if (legal.turns[turn].released) {
      released.push_back(turn);
    }
  }
  RC_PRE(!released.empty());
  const std::size_t turn = *rc::gen::elementOf(released);
  const std::int64_t release = legal.history.index_of(label("end", turn));
  legal.history.events()[static_cast<std::size_t>(release)].fields["by"] = other_worker(legal, legal.turns[turn].owner);
  expect_only(checked(legal.history), ViolationKind::kForeignRelease,
              {legal.history.index_of(label("grant", turn)), release});
}

RC_GTEST_PROP(HistoryChecker, InjectedEndlessRenewalAfterTheHoldIsFoundAsTheOnlyStuckLock, ()) {
  Plan plan = any_plan();
  plan.workers = std::max(plan.workers, 2);
  LegalHistory legal = legal_from(plan);
  const std::string owner = *rc::gen::elementOf(legal.workers);
  const std::string blocked = other_worker(legal, owner);
  HistoryBuilder& history = legal.history;
  EventSpec run_end = history.events().back();
  history.events().pop_back();
  std::int64_t t = run_end.time_ns;
  const Fields lease{{"lock", "L"}, {"owner", owner}, {"token", 999}, {"lease_ns", kLeaseNs}};
  history.add(t, "redis-0", "lease.grant", lease, "stuck-grant");
  history.add(t, owner, "hold.begin", Fields{{"lock", "L"}, {"token", 999}});
  t += ms(5);
  history.add(t, owner, "hold.end", Fields{{"lock", "L"}, {"reason", "released"}}, "stuck-useless");
  const std::int64_t useless = t;
  // The watchdog keeps renewing every half lease for 10.5 leases.
  for (int renewal = 1; renewal <= 21; ++renewal) {
    history.add(useless + renewal * kLeaseNs / 2, "redis-0", "lease.renew", lease);
  }
  t = useless + 21 * kLeaseNs / 2;
  history.add(t, blocked, "acquire.fail", Fields{{"lock", "L"}, {"reason", "held"}}, "stuck-fail");
  Fields release = lease;
  release["by"] = owner;
  history.add(t + 1, "redis-0", "lease.release", release);
  run_end.time_ns = t + 2;
  history.events().push_back(run_end);
  expect_only(checked(history), ViolationKind::kStuckLock,
              {history.index_of("stuck-grant"), history.index_of("stuck-useless"), history.index_of("stuck-fail")});
}

RC_GTEST_PROP(HistoryChecker, InjectedShortFinalCounterIsFoundAsTheOnlyLostUpdateWithItsCount, ()) {
  Plan plan = any_plan();
  plan.workload = Workload::kCounter;
  LegalHistory legal = legal_from(plan);
  RC_PRE(legal.accepted_writes > 0);
  const std::int64_t lost = *rc::gen::inRange<std::int64_t>(1, legal.accepted_writes + 1);
  legal.history.events().back().fields["final"]["counter"] = legal.accepted_writes - lost;
  const HistoryVerdict verdict = checked(legal.history);
  expect_only(verdict, ViolationKind::kLostUpdate, {legal.history.index_of("run-end")});
  RC_ASSERT(verdict.violations[0].count == lost);
  RC_ASSERT(verdict.violation_count(ViolationKind::kLostUpdate) == std::optional<std::int64_t>{lost});
}

RC_GTEST_PROP(HistoryChecker, InjectedSecondChargeOfAJobIsFoundAsTheOnlyDuplicateEffect, ()) {
  Plan plan = any_plan();
  plan.workload = Workload::kBilling;
  LegalHistory legal = legal_from(plan);
  std::vector<std::string> writes;
  for (std::size_t turn = 0; turn < legal.turns.size(); ++turn) {
    for (int write = 0; write < legal.turns[turn].writes; ++write) {
      writes.push_back(label("write", turn) + "-" + std::to_string(write));
    }
  }
  RC_PRE(!writes.empty());
  const std::string original = *rc::gen::elementOf(writes);
  EventSpec copy = legal.history.events()[static_cast<std::size_t>(legal.history.index_of(original))];
  copy.label = "copy";
  insert_after(legal.history, original, copy);
  expect_only(checked(legal.history), ViolationKind::kDuplicateEffect,
              {legal.history.index_of(original), legal.history.index_of("copy")});
}

RC_GTEST_PROP(HistoryChecker, SameHistoryGivesTheSameReportBytes, ()) {
  const LegalHistory legal = legal_from(any_plan());
  const std::string text = legal.history.text();
  const auto first = check_history_text(text, "a.jsonl", CheckOptions{});
  const auto second = check_history_text(text, "a.jsonl", CheckOptions{});
  RC_ASSERT(verdicts_json({first.verdict}) == verdicts_json({second.verdict}));
}

TEST(HistoryChecker, ViolationsAreListedInTheOrderTheyHappened) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", Fields{{"lock", "L"}})
      .add(seconds(1), "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"lease_ns", seconds(10)}})
      .add(seconds(2), "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-2"}, {"lease_ns", seconds(10)}})
      .add(seconds(3), "worker-2", "hold.begin", Fields{{"lock", "L"}})
      .add(seconds(3), "storage", "read.accept", Fields{{"key", "k"}, {"reader", "worker-2"}})
      .add(seconds(4), "storage", "write.accept", Fields{{"key", "k"}, {"writer", "worker-1"}});
  const HistoryVerdict verdict = check(history);
  ASSERT_EQ(verdict.violations.size(), 3U);
  EXPECT_EQ(verdict.violations[0].kind, ViolationKind::kDoubleGrant);
  EXPECT_EQ(verdict.violations[1].kind, ViolationKind::kDoubleHolder);
  EXPECT_EQ(verdict.violations[2].kind, ViolationKind::kStaleWrite);
}

TEST(HistoryChecker, StaleWriteWithNoWritesToJudgeIsSkippedNotZero) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", Fields{{"lock", "L"}, {"owner", "worker-1"}, {"token", 1}, {"lease_ns", seconds(10)}})
      .add(seconds(1), "worker-1", "hold.begin", Fields{{"lock", "L"}, {"token", 1}});
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(verdict.violation_count(ViolationKind::kStaleWrite).has_value());
  const auto skipped = std::find_if(verdict.checks_skipped.begin(), verdict.checks_skipped.end(),
                                    [](const CheckSkip& skip) { return skip.check == ViolationKind::kStaleWrite; });
  ASSERT_NE(skipped, verdict.checks_skipped.end());
  EXPECT_EQ(skipped->why, "no writes in the history (write.invoke, write.ok, write.accept): nothing to judge");
  EXPECT_TRUE(verdict.judged());
}

TEST(HistoryChecker, ChecksThatLackTheirEventsAreSkippedWithTheReasonNeverPassed) {
  HistoryBuilder history;
  history.add(0, "worker-1", "read.invoke", Fields{{"key", "k"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(verdict.checks_run.empty());
  EXPECT_EQ(verdict.checks_skipped.size(), kAllViolationKinds.size());
  EXPECT_TRUE(verdict.ok());
  EXPECT_FALSE(verdict.judged());
  for (const ViolationKind kind : kAllViolationKinds) {
    EXPECT_FALSE(verdict.violation_count(kind).has_value()) << violation_kind_name(kind);
  }
}

}  // namespace
}  // namespace locksim::checker
