#include "checker/stale_write_check.h"

#include <gtest/gtest.h>

#include "history_builder.h"

namespace locksim::checker {
namespace {

using namespace testing;

Fields orders_lease(const char* owner, std::int64_t token) {
  return Fields{{"lock", "orders"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(10)}};
}
Fields write(const char* writer, std::int64_t token, std::int64_t value) {
  return Fields{{"key", "qty"}, {"value", value}, {"writer", writer}, {"token", token}};
}
Fields read(const char* reader, std::int64_t token) {
  return Fields{{"key", "qty"}, {"reader", reader}, {"token", token}};
}

// worker-1 is granted token 3; its lease expires; worker-2 is granted token 4 at 45.002 s.
HistoryBuilder superseded_history() {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", orders_lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(45002), "redis-0", "lease.grant", orders_lease("worker-2", 4), "newer");
  return history;
}

TEST(StaleWrite, WriteAcceptedAfterStorageServedTheLaterHolderIsStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46100), "storage", "read.accept", read("worker-2", 4), "served")
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6), "stale");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "white-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("served"),
                                                        history.index_of("stale")}));
  EXPECT_EQ(found[0].time_ns, ms(47210));
  EXPECT_EQ(found[0].detail,
            "stale_write at 47.210s: storage accepted qty=6 from worker-1 (token 3) after it had served a read by "
            "worker-2 at 46.100s, who was granted lock orders later (token 4)");
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, WriteAcceptedAfterTheLaterHoldersOwnWriteIsStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46100), "storage", "write.accept", write("worker-2", 4, 5), "served")
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("served"),
                                                        history.index_of("stale")}));
  EXPECT_NE(found[0].detail.find("after it had served a write by worker-2 at 46.100s"), std::string::npos)
      << found[0].detail;
}

TEST(StaleWrite, WriteAcceptedAfterAnotherOwnersGrantButBeforeItTouchedStorageIsALateWriteNotAViolation) {
  HistoryBuilder history = superseded_history();
  history.add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6))
      .add(ms(48000), "storage", "read.accept", read("worker-2", 4));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, NamesEachLateWriteByItsWriteAcceptSoAReportCanDrawIt) {
  // worker-1 writes twice after worker-2's grant, before worker-2 touches
  // storage (both late); then once more after worker-2's read (stale, not late).
  HistoryBuilder history = superseded_history();
  history.add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6), "late-1")
      .add(ms(47300), "storage", "write.accept", write("worker-1", 3, 7), "late-2")
      .add(ms(48000), "storage", "read.accept", read("worker-2", 4))
      .add(ms(48100), "storage", "write.accept", write("worker-1", 3, 8), "stale")
      .add(ms(48200), "storage", "write.accept", write("worker-2", 4, 9));
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.counts.late_writes, 2);
  EXPECT_EQ(verdict.counts.late_write_events,
            (std::vector<std::int64_t>{history.index_of("late-1"), history.index_of("late-2")}));
  const auto stale = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(stale.size(), 1U);
  EXPECT_EQ(stale[0].events.back(), history.index_of("stale"));
}

TEST(StaleWrite, RejectedReadOfTheLaterHolderIsNoServe) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46100), "storage", "read.reject", read("worker-2", 4))
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, ServeRecordedAfterTheWriteAtTheSameNanosecondDoesNotMakeItStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6))
      .add(ms(47210), "storage", "read.accept", read("worker-2", 4));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, WriteAcceptedOneNanosecondBeforeTheNewerGrantIsNeitherStaleNorLate) {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", orders_lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(45002) - 1, "storage", "write.accept", write("worker-1", 3, 6))
      .add(ms(45002), "redis-0", "lease.grant", orders_lease("worker-2", 4))
      .add(ms(45003), "storage", "read.accept", read("worker-2", 4));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, HolderWhoseLeaseExpiredButNobodyElseAcquiredIsNeitherStaleNorLate) {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", orders_lease("worker-1", 3))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(20000), "storage", "write.accept", write("worker-1", 3, 6));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, TheNewOwnersOwnWritesAreNotStale) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46000), "storage", "read.accept", read("worker-2", 4))
      .add(ms(46001), "storage", "write.accept", write("worker-2", 4, 4));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, ReadsOfAWorkerThatNeverGainedTheLockServeNoLaterHolder) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46000), "storage", "read.accept", read("worker-9", 9))
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

// The example, on a consensus-like service with fenced reads and
// writes: worker-1 reads with token 1 and pauses past its lease; worker-2 is
// granted token 2 and pauses too — after reading first, if `later_holder_reads`;
// worker-1 wakes and storage accepts its write with token 1.
HistoryBuilder paused_holders_history(bool later_holder_reads) {
  const auto grant = [](const char* owner, std::int64_t token) {
    return Fields{{"lock", "orders"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(5)}};
  };
  const auto acquired = [](std::int64_t token) {
    return Fields{{"lock", "orders"}, {"token", token}, {"lease_ns", seconds(5)}};
  };
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"scenario", "issue-8"}, {"seed", 1}, {"fencing", true}})
      .add(ms(1000), "consensus", "lease.grant", grant("worker-1", 1))
      .add(ms(1001), "worker-1", "acquire.ok", acquired(1))
      .add(ms(1002), "worker-1", "read.invoke", Fields{{"key", "qty"}})
      .add(ms(1003), "storage", "read.accept", read("worker-1", 1))
      .add(ms(1004), "worker-1", "read.ok", Fields{{"key", "qty"}, {"value", 5}})
      .add(ms(1500), "nemesis", "fault.begin", Fields{{"kind", "pause"}, {"target", "worker-1"}})
      .add(ms(6000), "consensus", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}, {"token", 1}})
      .add(ms(7000), "consensus", "lease.grant", grant("worker-2", 2), "later-grant")
      .add(ms(7001), "worker-2", "acquire.ok", acquired(2));
  if (later_holder_reads) {
    history.add(ms(7100), "worker-2", "read.invoke", Fields{{"key", "qty"}})
        .add(ms(7101), "storage", "read.accept", read("worker-2", 2), "served")
        .add(ms(7102), "worker-2", "read.ok", Fields{{"key", "qty"}, {"value", 5}});
  }
  history.add(ms(7200), "nemesis", "fault.begin", Fields{{"kind", "pause"}, {"target", "worker-2"}})
      .add(ms(12000), "consensus", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-2"}, {"token", 2}})
      .add(ms(20000), "nemesis", "fault.end", Fields{{"kind", "pause"}, {"target", "worker-1"}})
      .add(ms(20001), "worker-1", "write.invoke", Fields{{"key", "qty"}, {"value", 6}, {"token", 1}})
      .add(ms(20002), "storage", "write.accept", write("worker-1", 1, 6), "old-write")
      .add(ms(20003), "worker-1", "write.ok");
  return history;
}

TEST(StaleWrite, FencedWriteOfAPausedHolderBeforeTheNextHolderTouchedStorageIsALateWrite) {
  const HistoryVerdict verdict = check(paused_holders_history(false));
  EXPECT_EQ(verdict.stale_write_mode, "white-box");
  EXPECT_EQ(verdict.violation_count(ViolationKind::kStaleWrite), 0);
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, FencedWriteOfAPausedHolderAfterTheNextHolderReadIsStale) {
  const HistoryBuilder history = paused_holders_history(true);
  const HistoryVerdict verdict = check(history);
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("later-grant"), history.index_of("served"),
                                                        history.index_of("old-write")}));
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

// The same history as a client sees it: no lock-service events; storage
// events only if `with_storage`.
HistoryBuilder client_side(const HistoryBuilder& full, bool with_storage) {
  HistoryBuilder history;
  for (const EventSpec& event : full.events()) {
    if (event.process == "consensus" || (event.process == "storage" && !with_storage)) {
      continue;
    }
    history.add(event.time_ns, event.process, event.event, event.fields, event.label);
  }
  return history;
}

TEST(StaleWrite, WithoutServiceOrStorageEventsAWriteOkBeforeTheNextHolderCompletedAnythingIsALateWrite) {
  const HistoryVerdict verdict = check(client_side(paused_holders_history(false), false));
  EXPECT_EQ(verdict.stale_write_mode, "black-box");
  EXPECT_EQ(verdict.violation_count(ViolationKind::kStaleWrite), 0);
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, NamesABlackBoxLateWriteByItsWriteOkWithoutStorageEvents) {
  HistoryBuilder history = client_side(paused_holders_history(false), false);
  const HistoryVerdict verdict = check(history);
  ASSERT_EQ(verdict.counts.late_write_events.size(), 1U);
  const std::int64_t late = verdict.counts.late_write_events.front();
  EXPECT_EQ(history.events().at(static_cast<std::size_t>(late)).event, "write.ok");
  EXPECT_EQ(history.events().at(static_cast<std::size_t>(late)).process, "worker-1");
}

TEST(StaleWrite, WithoutServiceOrStorageEventsAWriteInvokedAfterTheNextHoldersReadOkIsStale) {
  HistoryBuilder history = client_side(paused_holders_history(true), false);
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "black-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  // worker-2's acquire.ok, its read.ok, and the judged write.ok (the last event).
  const auto last = static_cast<std::int64_t>(history.events().size()) - 1;
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{5, 7, last}));
  EXPECT_EQ(found[0].detail,
            "stale_write at 20.003s: storage acknowledged qty=6 from worker-1 (token 1) after a read by worker-2 had "
            "completed at 7.102s, who acquired lock orders later (token 2)");
}

TEST(StaleWrite, WithStorageButNoServiceEventsTheWriteAcceptIsJudged) {
  HistoryBuilder history = client_side(paused_holders_history(true), true);
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "black-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events.back(), history.index_of("old-write"));
  EXPECT_EQ(check(client_side(paused_holders_history(false), true)).counts.late_writes, 1);
}

TEST(StaleWrite, WithoutServiceEventsANextHoldersReadThatCompletesAfterTheWriteWasSentIsNoProof) {
  // worker-2's read.ok comes after worker-1's write.invoke: storage may have
  // taken the write first, so black-box cannot call it stale.
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 1}})
      .add(ms(7000), "worker-2", "acquire.ok", Fields{{"lock", "orders"}, {"token", 2}})
      .add(ms(7100), "worker-2", "read.invoke", Fields{{"key", "qty"}})
      .add(ms(7150), "worker-1", "write.invoke", Fields{{"key", "qty"}, {"value", 6}, {"token", 1}})
      .add(ms(7200), "worker-2", "read.ok", Fields{{"key", "qty"}, {"value", 5}})
      .add(ms(7300), "worker-1", "write.ok");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kStaleWrite), 0);
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, WithoutServiceEventsAWriteCarryingTheHighestTokenIsNotStale) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 3}})
      .add(ms(2000), "worker-2", "acquire.ok", Fields{{"lock", "orders"}, {"token", 4}})
      .add(ms(2500), "worker-2", "read.ok", Fields{{"key", "qty"}, {"value", 1}})
      .add(ms(3000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", 5}})
      .add(ms(3500), "worker-1", "write.invoke", Fields{{"key", "qty"}, {"value", 2}, {"token", 5}})
      .add(ms(4000), "storage", "write.accept", Fields{{"key", "qty"}, {"writer", "worker-1"}, {"token", 5}});
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.violation_count(ViolationKind::kStaleWrite), 0);
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, WithoutServiceEventsOrTokensTheCheckIsSkipped) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}})
      .add(ms(2000), "storage", "write.accept", Fields{{"key", "qty"}, {"writer", "worker-1"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(verdict.stale_write_mode.empty());
}

TEST(StaleWrite, HistoryWithoutStorageReadEventsCountsTheReadersReadOkAsTheServe) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46100), "worker-2", "read.ok", Fields{{"key", "qty"}, {"value", 5}}, "served")
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("served"),
                                                        history.index_of("stale")}));
}

TEST(StaleWrite, HistoryWithStorageReadEventsDoesNotCountReadOkAsAServe) {
  // The read.accept events say which reads reached storage; worker-2's read.ok
  // without one did not (e.g. a cache answered it).
  HistoryBuilder history = superseded_history();
  history.add(ms(46000), "storage", "read.accept", read("worker-1", 3))
      .add(ms(46100), "worker-2", "read.ok", Fields{{"key", "qty"}, {"value", 5}})
      .add(ms(47210), "storage", "write.accept", write("worker-1", 3, 6));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 1);
}

TEST(StaleWrite, OpaqueStringTokensStillLetWhiteBoxFindAnOutOfOrderWrite) {
  const auto uuid_lease = [](const char* owner, const char* token) {
    return Fields{{"lock", "orders"}, {"owner", owner}, {"token", token}, {"lease_ns", seconds(10)}};
  };
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", uuid_lease("worker-1", "a1b2c3d4-0000-4000-8000-000000000001"))
      .add(ms(45002), "redis-0", "lease.grant", uuid_lease("worker-2", "a1b2c3d4-0000-4000-8000-000000000002"),
           "newer")
      .add(ms(46100), "storage", "read.accept",
           Fields{{"key", "qty"}, {"reader", "worker-2"}, {"token", "a1b2c3d4-0000-4000-8000-000000000002"}}, "served")
      .add(ms(47210), "storage", "write.accept",
           Fields{{"key", "qty"}, {"value", 6}, {"writer", "worker-1"}, {"token", "a1b2c3d4-0000-4000-8000-000000000001"}},
           "stale");
  const HistoryVerdict verdict = check(history);
  EXPECT_EQ(verdict.stale_write_mode, "white-box");
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].detail,
            "stale_write at 47.210s: storage accepted qty=6 from worker-1 (token a1b2c3d4-0000-4000-8000-000000000001) "
            "after it had served a read by worker-2 at 46.100s, who was granted lock orders later (token "
            "a1b2c3d4-0000-4000-8000-000000000002)");
}

TEST(StaleWrite, OpaqueStringTokensWithoutServiceEventsSkipTheCheckAndSayWhy) {
  HistoryBuilder history;
  history.add(ms(1000), "worker-1", "acquire.ok", Fields{{"lock", "orders"}, {"token", "u-1"}})
      .add(ms(2000), "worker-2", "acquire.ok", Fields{{"lock", "orders"}, {"token", "u-2"}})
      .add(ms(3000), "worker-1", "write.invoke", Fields{{"key", "qty"}, {"value", 6}, {"token", "u-1"}})
      .add(ms(3001), "worker-1", "write.ok");
  const HistoryVerdict verdict = check(history);
  EXPECT_FALSE(ran(verdict, ViolationKind::kStaleWrite));
  EXPECT_TRUE(verdict.stale_write_mode.empty());
  bool said_why = false;
  for (const CheckSkip& skip : verdict.checks_skipped) {
    if (skip.check == ViolationKind::kStaleWrite) {
      said_why = skip.why == "the history's tokens are opaque strings (equality only), so token order is unknown";
    }
  }
  EXPECT_TRUE(said_why);
}

TEST(StaleWrite, RedlockWriteIsStaleOnlyOnceAnotherOwnerHasAQuorumAndWasServed) {
  HistoryBuilder history;
  const auto grant = [](const char* owner) {
    return Fields{{"lock", "orders"}, {"owner", owner}, {"lease_ns", seconds(10)}};
  };
  history.add(0, "run", "run.begin", Fields{{"service", {{"kind", "redlock"}, {"instances", 3}, {"quorum", 2}}}})
      .add(ms(1), "redis-0", "lease.grant", grant("worker-1"))
      .add(ms(2), "redis-1", "lease.grant", grant("worker-1"))
      .add(ms(20000), "redis-2", "lease.grant", grant("worker-2"))
      // worker-2 has a minority only: it holds nothing, so its read serves no holder.
      .add(ms(20001), "storage", "read.accept", read("worker-2", 1))
      .add(ms(20001), "storage", "write.accept", write("worker-1", 1, 1))
      .add(ms(20002), "redis-0", "lease.grant", grant("worker-2"), "quorum")
      .add(ms(20003), "storage", "read.accept", read("worker-2", 1), "served")
      .add(ms(20004), "storage", "write.accept", write("worker-1", 1, 2), "stale");
  const HistoryVerdict verdict = check(history);
  const auto found = violations_of(verdict, ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("quorum"), history.index_of("served"),
                                                        history.index_of("stale")}));
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, RedlockTokensAreNotMatchedToEarlierGainsForTheyRepeatAcrossInstances) {
  // worker-1's first round ends on redis-0's token 2; its third round's write
  // carries 2 as well (redis-1's count), which is no sign of the first round.
  const auto release = [](const char* owner, std::int64_t token) {
    return Fields{{"lock", "orders"}, {"owner", owner}, {"token", token}, {"by", owner}};
  };
  HistoryBuilder history;
  history.add(0, "run", "run.begin", Fields{{"service", {{"kind", "redlock"}, {"instances", 3}, {"quorum", 2}}}})
      .add(ms(1), "redis-1", "lease.grant", orders_lease("worker-1", 1))
      .add(ms(2), "redis-0", "lease.grant", orders_lease("worker-1", 2))
      .add(ms(100), "redis-1", "lease.release", release("worker-1", 1))
      .add(ms(101), "redis-0", "lease.release", release("worker-1", 2))
      .add(ms(200), "redis-1", "lease.grant", orders_lease("worker-2", 2))
      .add(ms(201), "redis-0", "lease.grant", orders_lease("worker-2", 3))
      .add(ms(202), "storage", "read.accept", read("worker-2", 3))
      .add(ms(300), "redis-1", "lease.release", release("worker-2", 2))
      .add(ms(301), "redis-0", "lease.release", release("worker-2", 3))
      .add(ms(400), "redis-2", "lease.grant", orders_lease("worker-1", 1))
      .add(ms(401), "redis-1", "lease.grant", orders_lease("worker-1", 3))
      .add(ms(402), "storage", "write.accept", write("worker-1", 2, 7));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
}

// worker-1's lease (token 1) is evicted at 1 s, but it is promised until 10 s;
// worker-2 wins the lock, serves, releases; at 1.5 s worker-1 wins it again
// with token 3 while its forgotten token-1 promise still runs.
HistoryBuilder regained_while_own_lost_lease_runs() {
  HistoryBuilder history;
  history.add(ms(0), "redis-0", "lease.grant", orders_lease("worker-1", 1))
      .add(ms(1000), "redis-0", "lease.lost",
           Fields{{"lock", "orders"}, {"owner", "worker-1"}, {"token", 1}, {"reason", "evicted"}})
      .add(ms(1100), "redis-0", "lease.grant", orders_lease("worker-2", 2))
      .add(ms(1200), "storage", "read.accept", read("worker-2", 2))
      .add(ms(1300), "storage", "write.accept", write("worker-2", 2, 5))
      .add(ms(1400), "redis-0", "lease.release",
           Fields{{"lock", "orders"}, {"owner", "worker-2"}, {"token", 2}, {"by", "worker-2"}})
      .add(ms(1500), "redis-0", "lease.grant", orders_lease("worker-1", 3), "regrant");
  return history;
}

TEST(StaleWrite, AnOwnerGrantedANewTokenWhileItsOwnLostLeaseIsStillPromisedWritesInLockOrder) {
  HistoryBuilder history = regained_while_own_lost_lease_runs();
  history.add(ms(1600), "storage", "read.accept", read("worker-1", 3))
      .add(ms(1700), "storage", "write.accept", write("worker-1", 3, 6));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
  // worker-2's grant while token 1 was still promised is the one double grant;
  // worker-1 overlapping its own forgotten lease is none.
  EXPECT_EQ(violations_of(verdict, ViolationKind::kDoubleGrant).size(), 1U);
}

TEST(StaleWrite, AfterARegainTheOtherOwnersWriteIsStale) {
  HistoryBuilder history = regained_while_own_lost_lease_runs();
  history.add(ms(1600), "storage", "write.accept", write("worker-1", 3, 6), "served")
      .add(ms(1700), "storage", "write.accept", write("worker-2", 2, 7), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("regrant"), history.index_of("served"),
                                                        history.index_of("stale")}));
}

TEST(StaleWrite, ARenewalOfTheSameTokenIsNoNewGain) {
  HistoryBuilder history = superseded_history();
  history.add(ms(46000), "storage", "write.accept", write("worker-2", 4, 5))
      .add(ms(46500), "redis-0", "lease.renew", orders_lease("worker-2", 4))
      .add(ms(47000), "storage", "write.accept", write("worker-2", 4, 6));
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

// The h02-write-into-partition story: worker-1's write sent under token 1 is
// held in a partition; worker-1 itself wins the lock again (token 2) and
// reads; then the old write lands.
HistoryBuilder own_late_write_history() {
  HistoryBuilder history;
  history.add(ms(1000), "redis-0", "lease.grant", orders_lease("worker-1", 1))
      .add(ms(11000), "redis-0", "lease.expire", Fields{{"lock", "orders"}, {"owner", "worker-1"}})
      .add(ms(21000), "redis-0", "lease.grant", orders_lease("worker-1", 2), "newer")
      .add(ms(21002), "storage", "read.accept", Fields{{"key", "qty"}, {"reader", "worker-1"}}, "served");
  return history;
}

TEST(StaleWrite, AWriteCarryingAnEarlierTokenOfItsOwnWriterIsJudgedByTheHoldingThatSentIt) {
  HistoryBuilder history = own_late_write_history();
  history.add(ms(21600), "storage", "write.accept", write("worker-1", 1, 3), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events, (std::vector<std::int64_t>{history.index_of("newer"), history.index_of("served"),
                                                        history.index_of("stale")}));
}

TEST(StaleWrite, AWriteWithoutATokenBelongsToItsWritersNewestHolding) {
  // Fencing off: nothing says which holding sent it, so it counts as the newest's.
  HistoryBuilder history = own_late_write_history();
  history.add(ms(21600), "storage", "write.accept", Fields{{"key", "qty"}, {"value", 3}, {"writer", "worker-1"}});
  const HistoryVerdict verdict = check(history);
  EXPECT_TRUE(violations_of(verdict, ViolationKind::kStaleWrite).empty());
  EXPECT_EQ(verdict.counts.late_writes, 0);
}

TEST(StaleWrite, ATokenOlderThanTheGainsMatchedBelongsToTheNewestHolding) {
  // worker-1 gains tokens 1 … kGainsMatchedByToken + 1 in turn, each read once;
  // a write with token 1 is then older than every gain kept.
  HistoryBuilder history;
  const auto gains = static_cast<std::int64_t>(kGainsMatchedByToken) + 1;
  for (std::int64_t token = 1; token <= gains; ++token) {
    history.add(ms(1000 * token), "redis-0", "lease.grant", orders_lease("worker-1", token))
        .add(ms(1000 * token + 1), "storage", "read.accept", read("worker-1", token))
        .add(ms(1000 * token + 2), "redis-0", "lease.release",
             Fields{{"lock", "orders"}, {"owner", "worker-1"}, {"token", token}, {"by", "worker-1"}});
  }
  history.add(ms(1000 * gains + 500), "storage", "write.accept", write("worker-1", 1, 3));
  EXPECT_TRUE(violations_of(check(history), ViolationKind::kStaleWrite).empty());
  history.add(ms(1000 * gains + 600), "storage", "write.accept", write("worker-1", 2, 3), "stale");
  const auto found = violations_of(check(history), ViolationKind::kStaleWrite);
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].events.back(), history.index_of("stale"));
}

}  // namespace
}  // namespace locksim::checker
