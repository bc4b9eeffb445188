// Incidents: the violations of one kind that are one thing that went wrong
// (checker/violation.h), counted once — the table's headline.

#include <algorithm>
#include <set>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields hold(std::int64_t token) { return Fields{{"lock", "L"}, {"token", token}}; }
Fields released() { return Fields{{"lock", "L"}, {"reason", "released"}}; }
Fields write(const char* writer, std::int64_t token, std::int64_t value) {
  return Fields{{"key", "qty"}, {"value", value}, {"writer", writer}, {"token", token}};
}

std::int64_t incidents(const HistoryVerdict& verdict, ViolationKind kind) {
  return verdict.incident_count(kind).value_or(-1);
}
std::int64_t violations(const HistoryVerdict& verdict, ViolationKind kind) {
  return verdict.violation_count(kind).value_or(-1);
}

TEST(Incidents, OnePauseOverlappingThreeShortHoldsIsThreePairsAndOneIncident) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", hold(1));  // then frozen for a minute
  for (int hold_number = 0; hold_number < 3; ++hold_number) {
    const std::int64_t start = seconds(15 + 5 * hold_number);
    history.add(start, "worker-2", "hold.begin", hold(2 + hold_number)).add(start + seconds(1), "worker-2", "hold.end", released());
  }
  history.add(seconds(60), "worker-1", "hold.end", released());
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kDoubleHolder), 3);
  EXPECT_EQ(incidents(verdict, ViolationKind::kDoubleHolder), 1);
}

TEST(Incidents, TwoOverlapsWithTheLockFreeInBetweenAreTwoIncidents) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", hold(1))
      .add(seconds(1), "worker-2", "hold.begin", hold(2))
      .add(seconds(2), "worker-1", "hold.end", released())
      .add(seconds(3), "worker-2", "hold.end", released())  // nobody holds it now
      .add(seconds(4), "worker-3", "hold.begin", hold(3))
      .add(seconds(5), "worker-1", "hold.begin", hold(4));
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kDoubleHolder), 2);
  EXPECT_EQ(incidents(verdict, ViolationKind::kDoubleHolder), 2);
}

TEST(Incidents, OverlapsChainedWithoutTheLockEverFreeAreOneIncident) {
  // worker-1 overlaps worker-2, worker-1 leaves, worker-3 overlaps worker-2:
  // the lock was never free in between, so it is one stretch of trouble.
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", hold(1))
      .add(seconds(1), "worker-2", "hold.begin", hold(2))
      .add(seconds(2), "worker-1", "hold.end", released())
      .add(seconds(3), "worker-3", "hold.begin", hold(3));
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kDoubleHolder), 2);
  EXPECT_EQ(incidents(verdict, ViolationKind::kDoubleHolder), 1);
}

TEST(Incidents, ACrashEndsTheCrashedWorkersPartInTheStretch) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", hold(1))
      .add(seconds(1), "worker-2", "hold.begin", hold(2))
      .add(seconds(2), "worker-1", "crash")
      .add(seconds(3), "worker-2", "hold.end", released())
      .add(seconds(4), "worker-1", "hold.begin", hold(3))
      .add(seconds(5), "worker-2", "hold.begin", hold(4));
  EXPECT_EQ(incidents(check(history), ViolationKind::kDoubleHolder), 2);
}

TEST(Incidents, DoubleGrantsInOneStretchOfPromisedLeasesAreOneIncident) {
  // worker-1's 60 s lease (say, a server clock jumped) overlaps two short
  // leases of worker-2 granted one after the other; later, with the lock
  // free in between, worker-3's and worker-1's leases overlap once more.
  const auto expire = [](const char* owner, std::int64_t token) {
    return Fields{{"lock", "L"}, {"owner", owner}, {"token", token}};
  };
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1, seconds(60)))
      .add(seconds(10), "redis-1", "lease.grant", lease("worker-2", 2, seconds(5)))
      .add(seconds(15), "redis-1", "lease.expire", expire("worker-2", 2))
      .add(seconds(20), "redis-1", "lease.grant", lease("worker-2", 3, seconds(5)))
      .add(seconds(25), "redis-1", "lease.expire", expire("worker-2", 3))
      .add(seconds(60), "redis-0", "lease.expire", expire("worker-1", 1))
      .add(seconds(100), "redis-1", "lease.grant", lease("worker-3", 4, seconds(5)))
      .add(seconds(101), "redis-0", "lease.grant", lease("worker-1", 5, seconds(5)));
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kDoubleGrant), 3);
  EXPECT_EQ(incidents(verdict, ViolationKind::kDoubleGrant), 2);
}

TEST(Incidents, TheStaleWritesOfOneHoldingAreOneIncidentAndOfTwoHoldingsTwo) {
  HistoryBuilder history;
  history.add(0, "redis-0", "lease.grant", lease("worker-1", 1))
      .add(seconds(10), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-1"}})
      .add(seconds(11), "redis-0", "lease.grant", lease("worker-2", 2))
      .add(seconds(12), "storage", "write.accept", write("worker-2", 2, 1))
      .add(seconds(13), "storage", "write.accept", write("worker-1", 1, 2))  // stale
      .add(seconds(14), "storage", "write.accept", write("worker-1", 1, 3))  // stale, same holding
      .add(seconds(21), "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", "worker-2"}})
      .add(seconds(22), "redis-0", "lease.grant", lease("worker-3", 3))
      .add(seconds(23), "storage", "write.accept", write("worker-3", 3, 4))
      .add(seconds(24), "storage", "write.accept", write("worker-2", 2, 5));  // stale, another holding
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kStaleWrite), 3);
  EXPECT_EQ(incidents(verdict, ViolationKind::kStaleWrite), 2);
}

TEST(Incidents, OneCustomerChargedThreeTimesIsTwoDuplicateEffectsAndOneIncident) {
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"workload", Fields{{"kind", "billing"}}}});
  for (const char* writer : {"worker-1", "worker-2", "worker-3"}) {
    history.add(seconds(1), "storage", "write.accept",
                Fields{{"key", "billed"}, {"value", 1}, {"writer", writer}, {"job", "customer-1"}});
  }
  history.add(seconds(2), "storage", "write.accept",
              Fields{{"key", "billed"}, {"value", 2}, {"writer", "worker-1"}, {"job", "customer-2"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(violations(verdict, ViolationKind::kDuplicateEffect), 2);
  EXPECT_EQ(incidents(verdict, ViolationKind::kDuplicateEffect), 1);
}

TEST(Incidents, ACheckThatDidNotRunHasNoIncidentCount) {
  HistoryBuilder history;
  history.add(0, "worker-1", "hold.begin", hold(1));
  EXPECT_FALSE(check(history).incident_count(ViolationKind::kDoubleGrant).has_value());
}

// For all interleavings of holds by a few workers: the incidents are the
// stretches in which the lock always had a holder and two held it at once
// at some point, counted here from the intervals after the fact; there are
// never more incidents than pairs, and one whenever there is a pair.
RC_GTEST_PROP(Incidents, DoubleHolderIncidentsAreTheBusyStretchesWithAnOverlap, ()) {
  const int workers = *rc::gen::inRange(2, 5);
  const auto steps = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 2 * workers));
  HistoryBuilder history;
  history.add(0, "run", "run.begin");
  std::vector<bool> holding(static_cast<std::size_t>(workers), false);
  // The expected count, from the same steps: open holds, and whether the
  // current busy stretch already had an overlap.
  int open = 0;
  bool stretch_overlapped = false;
  std::int64_t expected = 0;
  std::int64_t time = 0;
  for (const int step : steps) {
    const int worker = step % workers;
    const std::string name = "worker-" + std::to_string(worker + 1);
    time += ms(1);
    const bool held = holding[static_cast<std::size_t>(worker)];
    if (held) {
      history.add(time, name, "hold.end", released());
      holding[static_cast<std::size_t>(worker)] = false;
      if (--open == 0) stretch_overlapped = false;
    } else {
      history.add(time, name, "hold.begin", hold(time));
      holding[static_cast<std::size_t>(worker)] = true;
      if (open > 0 && !stretch_overlapped) {
        stretch_overlapped = true;
        ++expected;
      }
      ++open;
    }
  }
  const HistoryVerdict verdict = check(history);
  // With no hold.begin at all the check cannot run: nothing to count.
  const std::int64_t found = verdict.incident_count(ViolationKind::kDoubleHolder).value_or(0);
  const std::int64_t pairs = verdict.violation_count(ViolationKind::kDoubleHolder).value_or(0);
  RC_ASSERT(found == expected);
  RC_ASSERT(found <= pairs);
  RC_ASSERT((found > 0) == (pairs > 0));
}

}  // namespace
}  // namespace locksim::checker
