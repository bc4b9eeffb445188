// One deterministic test per hazard of the catalogue (shared/hazards.md),
// each with a hand-built plan and assertions on the events the models emit.
#include <algorithm>

#include <gtest/gtest.h>

#include "model_test_support.h"

#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::Plan;
using testing::run_system;
using testing::two_workers_one_job;
using testing::with_fencing;

bool has_token(const Event& event, std::int64_t token) { return event.contains("token") && event["token"] == token; }

// --- control: nothing goes wrong ------------------------------------------------------

TEST(Control, WithoutFaultsEveryJobWritesOnceUnderItsOwnLease) {
  SystemOptions options = two_workers_one_job();
  options.workload = CounterWorkload{"qty", 5};
  const History history = run_system(options);
  EXPECT_EQ(history.count("write.accept"), 10u);
  EXPECT_EQ(history.count("write.reject"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 10);
  EXPECT_EQ(history.count("lease.grant"), 10u);
  EXPECT_EQ(history.count("lease.release"), 10u);
  EXPECT_EQ(history.count("lease.expire"), 0u);
  // Holds never overlap: each hold.begin comes after the previous hold.end.
  int open_holds = 0;
  for (const Event& event : history.events) {
    if (event["ev"] == "hold.begin") {
      EXPECT_EQ(++open_holds, 1);
    }
    if (event["ev"] == "hold.end") {
      --open_holds;
    }
  }
}

// --- H1: pause past the lease ---------------------------------------------------------

void pause_worker_1_after_acquire(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 15_s); });
}

TEST(H1PausePastLease, WithoutFencingTheWokenHoldersStaleWriteIsAccepted) {
  const History history = run_system(two_workers_one_job(), pause_worker_1_after_acquire);
  const auto second_grant = history.first("lease.grant", "redis-0", [](const Event& e) { return has_token(e, 2); });
  ASSERT_TRUE(second_grant);
  EXPECT_EQ((*second_grant)["owner"], "worker-2");
  const auto stale = history.first("write.accept", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(stale);
  EXPECT_GT((*stale)["t"], (*second_grant)["t"]);
  EXPECT_TRUE(history.first("lease.expire", "redis-0", [](const Event& e) { return has_token(e, 1); }));
}

TEST(H1PausePastLease, WithFencingTheWokenHoldersWriteIsRejectedAsStale) {
  const History history = run_system(with_fencing(two_workers_one_job()), pause_worker_1_after_acquire);
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "stale-token");
  EXPECT_EQ((*rejected)["token"], 1);
  // worker-1 then does its job again under a new lease.
  EXPECT_EQ(history.final_values()["qty"], 2);
}


// --- H2: delayed message ---------------------------------------------------------------

// worker-1's write leaves just before its lease ends and spends 90 s in the network.
void delay_worker_1s_write(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.delay_spike(system.worker_node(1), 90_s, 1_ms); });
}

SystemOptions nine_second_work() {
  SystemOptions options = two_workers_one_job();
  options.workers.work = sim::Distribution::constant(9_s);
  return options;
}

TEST(H2DelayedMessage, ALateArrivingWriteIsAcceptedAfterTheNextHoldersWithoutFencing) {
  const History history = run_system(nine_second_work(), delay_worker_1s_write);
  const std::vector<Event> stale = history.stale_accepts();
  ASSERT_FALSE(stale.empty());
  EXPECT_EQ(stale.front()["writer"], "worker-1");
  EXPECT_EQ(history.overlapping_holds(), 0);  // no double holder: worker-1 had let go
}

TEST(H2DelayedMessage, FencingRejectsTheLateWrite) {
  const History history = run_system(with_fencing(nine_second_work()), delay_worker_1s_write);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("write.reject", "storage", [](const Event& e) {
    return e["writer"] == "worker-1" && e["reason"] == "stale-token";
  }));
}

// --- H3: the holder's clock jumps back ---------------------------------------------------

// worker-1 freezes for 11 s right after acquiring; its wall clock is set back
// 5 s meanwhile, so when it wakes (true 11 s) that clock reads about 6 s.
SystemOptions checking_before_write(sim::ClockKind lease_clock = sim::ClockKind::kWall) {
  SystemOptions options = two_workers_one_job();
  options.workers.check_before_write = true;
  options.workers.clock = lease_clock;
  return options;
}

void freeze_worker_1_for_eleven_seconds(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 11_s); });
}

TEST(H3HolderClockJumpsBack, CheckBeforeWriteIsFooledIntoAStaleWrite) {
  const History history = run_system(checking_before_write(), [](Nemesis& nemesis, System& system) {
    // Frozen once it has read (not at its acquire.ok, where whether the read
    // was already sent depends on the worker's yield points): it read 0.
    nemesis.after_event("worker-1", EventKind::kReadOk, 1, 0_s,
                        [&nemesis, &system] { nemesis.pause(system.worker_node(1), 11_s); });
    nemesis.at(sim::Time{} + 6_s, [&nemesis, &system] { nemesis.jump_clock(system.worker_node(1), -(5_s)); });
  });
  EXPECT_GT(history.overlapping_holds(), 0);
  ASSERT_FALSE(history.stale_accepts().empty());
  EXPECT_EQ(history.stale_accepts().front()["writer"], "worker-1");
  EXPECT_EQ(history.final_values()["qty"], 1);  // worker-2 read 0 too: an update lost
}

// check_before_write looks at the lease, then the write leaves
// check_to_write later. A pause in that gap is not seen: worker-1 wakes past
// its lease and writes after worker-2. With no gap the same pause comes
// after the write was sent, and nothing goes wrong.
History pause_600ms_after_the_read(sim::Duration check_to_write) {
  SystemOptions options = checking_before_write(sim::ClockKind::kMonotonic);
  options.workers.check_to_write = sim::Distribution::constant(check_to_write);  // work is 100 ms
  return run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.after_event("worker-1", EventKind::kReadOk, 1, 600_ms,
                        [&nemesis, &system] { nemesis.pause(system.worker_node(1), 11_s); });
  });
}

TEST(CheckBeforeWrite, APauseBetweenTheCheckAndTheWriteIsNotSeen) {
  const History in_the_gap = pause_600ms_after_the_read(1_s);
  ASSERT_FALSE(in_the_gap.stale_accepts().empty());
  EXPECT_EQ(in_the_gap.stale_accepts().front()["writer"], "worker-1");
  // Its one write was sent after it woke, though its check came before the pause.
  ASSERT_EQ(in_the_gap.all("write.invoke", "worker-1").size(), 1u);
  EXPECT_GT(in_the_gap.first("write.invoke", "worker-1").value()["t"].get<std::int64_t>(), 11'000'000'000);

  const History after_the_write = pause_600ms_after_the_read(sim::Duration::zero());
  EXPECT_TRUE(after_the_write.stale_accepts().empty());
}

TEST(H3HolderClockJumpsBack, AClientTimingItsLeaseOnTheMonotonicClockIsNotFooled) {
  const History history = run_system(checking_before_write(sim::ClockKind::kMonotonic), [](Nemesis& nemesis, System& system) {
    freeze_worker_1_for_eleven_seconds(nemesis, system);
    nemesis.at(sim::Time{} + 6_s, [&nemesis, &system] { nemesis.jump_clock(system.worker_node(1), -(5_s)); });
  });
  EXPECT_TRUE(history.stale_accepts().empty());
  // Its first hold ends, seen to have expired, before it ever writes (it redoes the job under a new lease).
  const auto first_end = history.first("hold.end", "worker-1");
  const auto first_write = history.first("write.invoke", "worker-1");
  ASSERT_TRUE(first_end && first_write);
  EXPECT_EQ((*first_end)["reason"], "expired");
  EXPECT_LT((*first_end)["t"], (*first_write)["t"]);
}

TEST(H3HolderClockJumpsBack, WithAnHonestClockCheckBeforeWriteHoldsBack) {
  const History history = run_system(checking_before_write(), freeze_worker_1_for_eleven_seconds);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "expired"; }));
}

// --- H4: the server's clock jumps forward ------------------------------------------------

TEST(H4ServerClockJumpsForward, TheKeyDiesEarlyAndTwoWorkersHoldWithoutADoubleGrant) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 30_s;
  options.workers.work = sim::Distribution::constant(10_s);
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.at(sim::Time{} + 5_s, [&nemesis, &system] { nemesis.jump_clock(system.service().nodes()[0], 30_s); });
  });
  const auto expiry = history.first("lease.expire", "redis-0");
  ASSERT_TRUE(expiry);
  EXPECT_EQ((*expiry)["t"], 5'000'000'000);  // expired by the instance's own clock at the jump
  EXPECT_GT(history.overlapping_holds(), 0);
  EXPECT_FALSE(history.stale_accepts().empty());
}

// --- H7: failover with asynchronous replication ------------------------------------------

SystemOptions failover_setup() {
  SystemOptions options = two_workers_one_job();
  options.service.kind = ServiceKind::kRedisFailover;
  options.service.replication_lag = sim::Distribution::constant(100_ms);
  // Sentinel's default down-after (30 s), then its own promotion steps: the first holder's
  // job outlasts the detection, as H7 needs.
  options.lock.lease = 60_s;
  options.workers.work = sim::Distribution::constant(40_s);
  return options;
}

Plan failover_after_grant(sim::Duration delay) {
  return [delay](Nemesis& nemesis, System&) {
    nemesis.after_event("redis-0", EventKind::kLeaseGrant, 1, delay, [&nemesis] { nemesis.failover(); });
  };
}

TEST(H7Failover, APromotedReplicaThatMissedTheGrantGrantsTheLockAgain) {
  const History history = run_system(failover_setup(), failover_after_grant(10_ms));
  const auto lost = history.first("lease.lost", "redis-0", [](const Event& e) { return e["reason"] == "failover"; });
  ASSERT_TRUE(lost);
  EXPECT_EQ((*lost)["owner"], "worker-1");
  EXPECT_TRUE(history.first("replica.promote", "redis-1"));
  const auto regrant = history.first("lease.grant", "redis-1", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(regrant);
  // The token counter was not replicated either: the token repeats.
  EXPECT_EQ((*regrant)["token"], 1);
  // Not before Sentinel's detection (30 s) and promotion (1 s) after the crash.
  const auto crash = history.first("crash", "redis-0");
  ASSERT_TRUE(crash);
  EXPECT_GE((*regrant)["t"].get<std::int64_t>(), (*crash)["t"].get<std::int64_t>() + 31'000'000'000);
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(H7Failover, AfterReplicationTheReplicaKeepsTheLeaseAndNobodyElseGetsIt) {
  const History history = run_system(failover_setup(), failover_after_grant(500_ms));
  EXPECT_FALSE(history.first("lease.lost"));
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
}

// --- H8: plain DEL release ---------------------------------------------------------------

// Three workers with 3 s of work under a 5 s lease; worker-1 freezes 8 s
// right after acquiring, so it releases while someone else holds the lock.
SystemOptions three_workers_plain_delete(ReleaseMethod release) {
  SystemOptions options = two_workers_one_job();
  options.workers.count = 3;
  options.lock.lease = 5_s;
  options.workers.work = sim::Distribution::constant(3_s);
  options.workers.release = release;
  options.workload = CounterWorkload{"qty", 2};
  return options;
}

void freeze_worker_1_for_eight_seconds(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 8_s); });
}

TEST(H8PlainDelete, TheLateHolderDeletesTheNextHoldersLock) {
  const History history = run_system(three_workers_plain_delete(ReleaseMethod::kPlainDelete),
                                     freeze_worker_1_for_eight_seconds);
  const auto foreign = history.first("lease.release", "redis-0", [](const Event& e) { return e["by"] != e["owner"]; });
  ASSERT_TRUE(foreign);
  EXPECT_EQ((*foreign)["by"], "worker-1");
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(H8PlainDelete, CompareAndDeleteMakesTheLateReleaseANoOp) {
  const History history = run_system(three_workers_plain_delete(ReleaseMethod::kCompareAndDelete),
                                     freeze_worker_1_for_eight_seconds);
  EXPECT_FALSE(history.first("lease.release", "redis-0", [](const Event& e) { return e["by"] != e["owner"]; }));
  EXPECT_TRUE(history.first("release.fail", "worker-1", [](const Event& e) { return e["reason"] == "not-owner"; }));
}

// --- H9: non-atomic acquire --------------------------------------------------------------

TEST(H9GetThenSet, TwoWorkersRacingWithinOneRoundTripAreBothGranted) {
  SystemOptions options = two_workers_one_job();
  options.workers.acquire = AcquireMethod::kGetThenSet;
  const History history = run_system(options);
  const std::vector<Event> grants = history.all("lease.grant", "redis-0");
  ASSERT_GE(grants.size(), 2u);
  EXPECT_NE(grants[0]["owner"], grants[1]["owner"]);
  EXPECT_LT(grants[1]["t"].get<std::int64_t>() - grants[0]["t"].get<std::int64_t>(), 10'000'000);
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(H9GetThenSet, ThePlainSetRecordsTheReplacedLeaseAsLostJustBeforeTheNewGrant) {
  SystemOptions options = two_workers_one_job();
  options.workers.acquire = AcquireMethod::kGetThenSet;
  const History history = run_system(options);
  const std::vector<Event> grants = history.all("lease.grant", "redis-0");
  ASSERT_GE(grants.size(), 2u);
  const auto overwritten = history.first("lease.lost", "redis-0", [](const Event& e) { return e["reason"] == "overwritten"; });
  ASSERT_TRUE(overwritten);
  EXPECT_EQ((*overwritten)["lock"], grants[0]["lock"]);
  EXPECT_EQ((*overwritten)["owner"], grants[0]["owner"]);
  EXPECT_EQ((*overwritten)["token"], grants[0]["token"]);
  EXPECT_EQ((*overwritten)["i"].get<std::int64_t>() + 1, grants[1]["i"].get<std::int64_t>());
  // Only a live key is overwritten: every overwritten lease was granted and not yet ended.
  EXPECT_EQ(history.count("lease.lost"), 1u);
}

TEST(H9GetThenSet, SetNxPxLetsOnlyOneOfTheRacersIn) {
  const History history = run_system(two_workers_one_job());
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.first("acquire.fail", "worker-2", [](const Event& e) { return e["reason"] == "held"; }));
}

// --- H10: no lease -----------------------------------------------------------------------

TEST(H10NoLease, ACrashedHolderBlocksEveryoneForever) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = std::nullopt;
  options.workers.work = sim::Distribution::constant(2_s);
  testing::RunSettings settings;
  settings.time_limit = 60_s;
  const History history = run_system(
      options,
      [](Nemesis& nemesis, System& system) {
        nemesis.at(sim::Time{} + 1_s, [&nemesis, &system] { nemesis.crash(system.worker_node(1), std::nullopt); });
      },
      settings);
  EXPECT_FALSE(history.first("lease.expire"));
  EXPECT_FALSE(history.first("hold.begin", "worker-2"));
  EXPECT_GT(history.count("acquire.fail", "worker-2"), 100u);
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "crash"; }));
}

// --- H12: renewal cut off from the service only -------------------------------------------

SystemOptions watchdog_setup() {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 30_s;
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.renew_every = 10_s;
  options.workers.work = sim::Distribution::constant(45_s);
  return options;
}

void cut_worker_1_from_redis(Nemesis& nemesis, System& system) {
  nemesis.at(sim::Time{} + 1_s, [&nemesis, &system] {
    nemesis.partition({system.worker_node(1)}, {system.service().nodes()[0]}, 40_s);
  });
}

TEST(H12RenewalCutOff, TheWorkerKeepsWritingAfterItsLeaseExpired) {
  const History history = run_system(watchdog_setup(), cut_worker_1_from_redis);
  EXPECT_TRUE(history.first("renew.fail", "worker-1"));
  EXPECT_GT(history.overlapping_holds(), 0);
  ASSERT_FALSE(history.stale_accepts().empty());
  // Every renewal and re-send timed out, none was answered before the write
  // at 45 s: the holder knows only that its own lease clock ran out.
  EXPECT_FALSE(history.first("renew.ok", "worker-1"));
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "expired"; }));
}

TEST(H12RenewalCutOff, FencingRejectsTheWrite) {
  // worker-2's first op is its read: fenced, it registers token 2 before
  // worker-1's late write (unfenced reads leave the window of H22 open).
  SystemOptions options = with_fencing(watchdog_setup());
  options.storage.fence_reads = true;
  const History history = run_system(options, cut_worker_1_from_redis);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; }));
}

// --- A renewal that gets no answer (workers.renew_on_error) ------------------------------

// The watchdog setup with 60 s of work (the holder still holds when a
// period after the fault comes) and the given reaction to a failed renewal.
SystemOptions watchdog_with_60s_of_work(RenewOnError on_error) {
  SystemOptions options = watchdog_setup();
  options.workers.work = sim::Distribution::constant(60_s);
  options.workers.renew_on_error = on_error;
  return options;
}

// worker-1's first renewal (10 s into its 45 s hold) is held 5 s in the
// network, past the 500 ms request timeout.
void delay_worker_1s_first_renewal(Nemesis& nemesis, System& system) {
  nemesis.at(sim::Time{} + 9990_ms, [&nemesis, &system] { nemesis.delay_spike(system.worker_node(1), 5_s, 20_ms); });
}

TEST(RenewOnError, RetryRenewsAgainAtTheNextPeriodAndKeepsTheLock) {
  SystemOptions options = watchdog_with_60s_of_work(RenewOnError::kRetry);
  options.workers.renew_retries = 0;
  const History history = run_system(options, delay_worker_1s_first_renewal);
  const auto failed = history.first("renew.fail", "worker-1");
  ASSERT_TRUE(failed);
  EXPECT_EQ((*failed)["reason"], "timeout");
  EXPECT_TRUE(history.first("renew.ok", "worker-1", [&](const Event& e) { return e["t"] > (*failed)["t"]; }))
      << "the next period's renewal";
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_FALSE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
}

TEST(RenewOnError, StopEndsTheWatchdogAndTheLeaseRunsOutUnderTheHolder) {
  SystemOptions options = watchdog_with_60s_of_work(RenewOnError::kStop);
  options.workers.renew_retries = 0;
  const History history = run_system(options, delay_worker_1s_first_renewal);
  ASSERT_TRUE(history.first("renew.fail", "worker-1"));
  EXPECT_EQ(history.count("renew.invoke", "worker-1"), 1u) << "no renewal after the failed one";
  EXPECT_GT(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
}

TEST(RenewRetries, ARenewalWithNoAnswerIsSentAgainAndAStoppingWatchdogKeepsTheLock) {
  // The same held renewal, with Redisson's re-sends: the one sent after the
  // spike is answered, so nothing fails even for a watchdog that stops.
  SystemOptions options = watchdog_with_60s_of_work(RenewOnError::kStop);
  const History history = run_system(options, delay_worker_1s_first_renewal);
  const auto timed_out = history.first("renew.fail", "worker-1");
  ASSERT_TRUE(timed_out);
  EXPECT_EQ((*timed_out)["reason"], "timeout");
  const auto resent = history.first("renew.invoke", "worker-1", [&](const Event& e) { return e["t"] > (*timed_out)["t"]; });
  ASSERT_TRUE(resent);
  const std::int64_t waited = (*resent)["t"].get<std::int64_t>() - (*timed_out)["t"].get<std::int64_t>();
  EXPECT_GE(waited, 1'000'000'000) << "after renew_retry_delay, uniform 1 to 2 s";
  EXPECT_LE(waited, 2'000'000'000);
  EXPECT_TRUE(history.first("renew.ok", "worker-1", [&](const Event& e) { return e["t"] < 20'000'000'000; }))
      << "a re-send renewed the lease within the period";
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_FALSE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
}

TEST(RenewRetries, EverySendOfAPeriodLostToACutEndsAStoppingWatchdogAfterTheLastReSend) {
  SystemOptions options = watchdog_setup();
  options.workers.renew_on_error = RenewOnError::kStop;
  options.workers.renew_retries = 3;
  options.workers.renew_retry_delay = sim::Distribution::constant(1500_ms);
  const History history = run_system(options, cut_worker_1_from_redis);
  // The period at 10 s: the first send and 3 re-sends, each timed out.
  EXPECT_EQ(history.count("renew.invoke", "worker-1"), 4u) << "then the watchdog stops";
  EXPECT_EQ(history.count("renew.fail", "worker-1"), 4u);
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
}

TEST(RenewOnError, ARenewalThatFindsTheLockGoneEndsTheWatchdogEvenWithRetry) {
  // The H12 cut outlasts the lease: the first renewal after the heal finds
  // worker-2's key, and no renewal follows it. (With 60 s of work the holder
  // still holds when its first period after the heal comes.)
  SystemOptions options = watchdog_with_60s_of_work(RenewOnError::kRetry);
  const History history = run_system(options, cut_worker_1_from_redis);
  const auto gone = history.first("renew.fail", "worker-1", [](const Event& e) { return e["reason"] == "not-owner"; });
  ASSERT_TRUE(gone);
  EXPECT_FALSE(history.first("renew.invoke", "worker-1", [&](const Event& e) { return e["t"] > (*gone)["t"]; }));
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
}

TEST(H12RenewalCutOff, WithoutTheCutTheWatchdogKeepsTheLeaseAlive) {
  const History history = run_system(watchdog_setup());
  EXPECT_GE(history.count("lease.renew", "redis-0"), 4u);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
}


// --- H22: the fencing window ---------------------------------------------------------------

// worker-1 reads, works 2 s, then freezes before its write until 10.6 s: just
// after worker-2 was granted the expired lock (about 10.1 s) but long before
// worker-2 writes (about 12.1 s).
SystemOptions fencing_window(bool fence_reads) {
  SystemOptions options = with_fencing(two_workers_one_job());
  options.workers.work = sim::Distribution::constant(2_s);
  options.storage.fence_reads = fence_reads;
  return options;
}

void freeze_worker_1_before_its_write(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 8600_ms); });
}

TEST(H22FencingWindow, MaxSeenFencingAcceptsALateWriteBeforeTheNewHoldersFirstFencedOp) {
  const History history = run_system(fencing_window(false), freeze_worker_1_before_its_write);
  const std::vector<Event> stale = history.stale_accepts();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
  EXPECT_EQ(stale[0]["token"], 1);
  // Both wrote read+1 = 1: one update is lost.
  EXPECT_EQ(history.count("write.accept"), 2u);
  EXPECT_EQ(history.final_values()["qty"], 1);
}

TEST(H22FencingWindow, FencedReadsCloseTheWindow) {
  const History history = run_system(fencing_window(true), freeze_worker_1_before_its_write);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("read.accept", "storage", [](const Event& e) { return e["reader"] == "worker-2"; }));
  EXPECT_TRUE(history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; }));
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// --- H24: idempotence is not fencing -------------------------------------------------------

SystemOptions idempotent_writes(Fencing fencing) {
  SystemOptions options = two_workers_one_job();
  options.storage.idempotency_keys = true;
  options.storage.fencing = fencing;
  options.storage.fence_reads = fencing == Fencing::kOn;
  return options;
}

void freeze_worker_1_before_its_write_past_the_lease(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 15_s); });
}

TEST(H24IdempotenceIsNotFencing, AStaleWriteWithAFreshRequestIdIsAcceptedAndAnUpdateIsLost) {
  const History history = run_system(idempotent_writes(Fencing::kOff), freeze_worker_1_before_its_write_past_the_lease);
  ASSERT_FALSE(history.stale_accepts().empty());
  EXPECT_TRUE(history.stale_accepts().front().contains("request_id"));
  EXPECT_EQ(history.count("write.accept"), 2u);
  EXPECT_EQ(history.final_values()["qty"], 1);  // two increments, one survives
}

TEST(H24IdempotenceIsNotFencing, FencingRejectsTheStaleWriteAndNoUpdateIsLost) {
  const History history = run_system(idempotent_writes(Fencing::kOn), freeze_worker_1_before_its_write_past_the_lease);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// --- Acceptance case 6: a Redisson-style watchdog through a freeze ---------------------------

// Lease 30 s (lockWatchdogTimeout), renewed every 10 s; worker-1's whole node
// freezes one second into its 5 s of work (the renewal process already runs).
SystemOptions redisson_watchdog() {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 30_s;
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.renew_every = 10_s;
  options.workers.work = sim::Distribution::constant(5_s);
  return options;
}

Plan freeze_worker_1_after_acquire_for(Duration length) {
  return [length](Nemesis& nemesis, System& system) {
    nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 1_s,
                        [&nemesis, &system, length] { nemesis.pause(system.worker_node(1), length); });
  };
}

// --- H13: a renewal that reports success wrongly -------------------------------------------

// Lease 10 s, a watchdog every 10/3 s, 20 s of work, and a client that checks
// its lease before writing; worker-1 freezes 1 s after acquiring for 12 s, so
// its key expires, worker-2 takes the lock, and worker-1's overdue renewal
// runs the moment it wakes, on worker-2's key.
SystemOptions renewal_after_a_freeze(RenewCommand renew_command) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 10_s;
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.renew_command = renew_command;
  options.workers.check_before_write = true;
  options.workers.work = sim::Distribution::constant(20_s);
  return options;
}

bool is_worker_2s_lease(const Event& event) { return event["owner"] == "worker-2" && has_token(event, 2); }

// How many times the instance extended worker-2's lease, whoever asked.
std::size_t renewals_of_worker_2s_lease(const History& history) {
  const std::vector<Event> renewals = history.all("lease.renew", "redis-0");
  return static_cast<std::size_t>(std::count_if(renewals.begin(), renewals.end(), is_worker_2s_lease));
}

TEST(H13PlainPexpireRenewal, TheOldHoldersRenewalExtendsTheNewHoldersKeyAndReportsSuccess) {
  const History history =
      run_system(renewal_after_a_freeze(RenewCommand::kPlainPexpire), freeze_worker_1_after_acquire_for(12_s));
  const auto grant = history.first("lease.grant", "redis-0", is_worker_2s_lease);
  ASSERT_TRUE(grant);
  // worker-1 believes it renewed its own lease (token 1) ...
  const auto renewed = history.first("renew.ok", "worker-1", [&grant](const Event& e) {
    return has_token(e, 1) && e["t"].get<std::int64_t>() > (*grant)["t"].get<std::int64_t>();
  });
  ASSERT_TRUE(renewed);
  // ... while what the instance extended was worker-2's.
  EXPECT_TRUE(history.first("lease.renew", "redis-0", is_worker_2s_lease));
  EXPECT_GT(renewals_of_worker_2s_lease(history), history.count("renew.ok", "worker-2"));
  EXPECT_FALSE(history.first("renew.fail", "worker-1"));
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "released"; }));
  EXPECT_GT(history.overlapping_holds(), 0);
  ASSERT_FALSE(history.stale_accepts().empty());
  EXPECT_EQ(history.stale_accepts().front()["writer"], "worker-1");
  EXPECT_EQ(history.final_values()["qty"], 1);  // worker-2 read 0 too: an update lost
}

TEST(H13PlainPexpireRenewal, FencedReadsTurnTheBelievingHoldersWriteAway) {
  SystemOptions options = with_fencing(renewal_after_a_freeze(RenewCommand::kPlainPexpire));
  options.storage.fence_reads = true;
  const History history = run_system(options, freeze_worker_1_after_acquire_for(12_s));
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_TRUE(history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; }));
}

TEST(H13CompareAndExtend, TheOldHoldersRenewalFailsAndItStopsWithoutWriting) {
  const History history =
      run_system(renewal_after_a_freeze(RenewCommand::kCompareAndExtend), freeze_worker_1_after_acquire_for(12_s));
  EXPECT_TRUE(history.first("renew.fail", "worker-1", [](const Event& e) { return e["reason"] == "not-owner"; }));
  // Every extension of worker-2's lease is worker-2's own renewal.
  EXPECT_EQ(renewals_of_worker_2s_lease(history), history.count("renew.ok", "worker-2"));
  EXPECT_TRUE(history.first("hold.end", "worker-1", [](const Event& e) { return e["reason"] == "lost"; }));
  // worker-1 writes only under a new lease, after worker-2 released.
  const auto second_hold = history.first("hold.begin", "worker-1", [](const Event& e) { return has_token(e, 3); });
  const auto first_write = history.first("write.invoke", "worker-1");
  ASSERT_TRUE(second_hold);
  ASSERT_TRUE(first_write);
  EXPECT_GT((*first_write)["t"].get<std::int64_t>(), (*second_hold)["t"].get<std::int64_t>());
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 2);
}

TEST(WatchdogThroughAFreeze, A35SecondFreezeLosesTheLockToTheOtherWorker) {
  const History history = run_system(redisson_watchdog(), freeze_worker_1_after_acquire_for(35_s));
  EXPECT_TRUE(history.first("lease.expire", "redis-0", [](const Event& e) { return has_token(e, 1); }));
  EXPECT_TRUE(history.first("lease.grant", "redis-0", [](const Event& e) { return e["owner"] == "worker-2"; }));
  EXPECT_TRUE(history.first("renew.fail", "worker-1"));
  EXPECT_GE(history.overlapping_holds(), 1);
}

TEST(WatchdogThroughAFreeze, A20SecondFreezeKeepsTheLockBecauseTheRenewalRunsOnWaking) {
  const History history = run_system(redisson_watchdog(), freeze_worker_1_after_acquire_for(20_s));
  EXPECT_FALSE(history.first("lease.expire", "redis-0"));
  const auto renewed = history.first("renew.ok", "worker-1");
  ASSERT_TRUE(renewed);
  EXPECT_GE((*renewed)["t"].get<std::int64_t>(), (20_s).count_ns());
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// --- H25: duplicate side effect ------------------------------------------------------------

// worker-1 charges customer 0; its write spends 1.7 s in the network and lands
// after worker-2 (genuinely newer token) has read the cursor but before it
// charges: both charge customer 0.
SystemOptions billing(bool idempotency_keys) {
  SystemOptions options = with_fencing(two_workers_one_job());
  options.workers.work = sim::Distribution::constant(2_s);
  options.workload = BillingWorkload{"billed", 3};
  options.storage.idempotency_keys = idempotency_keys;
  return options;
}

void delay_worker_1s_first_charge(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.delay_spike(system.worker_node(1), 1700_ms, 1_ms); });
}

std::map<std::int64_t, int> accepted_charges_per_job(const History& history) {
  std::map<std::int64_t, int> charges;
  for (const Event& accept : history.all("write.accept", "storage")) {
    ++charges[accept["job"].get<std::int64_t>()];
  }
  return charges;
}

TEST(H25DuplicateEffect, FencingDoesNotStopTwoHoldersChargingTheSameCustomer) {
  const History history = run_system(billing(false), delay_worker_1s_first_charge);
  EXPECT_EQ(accepted_charges_per_job(history)[0], 2);
  EXPECT_TRUE(history.stale_accepts().empty());  // worker-2's token was genuinely newer
}

TEST(H25DuplicateEffect, AnIdempotencyKeyDerivedFromTheJobDoes) {
  const History history = run_system(billing(true), delay_worker_1s_first_charge);
  for (const auto& [job, charges] : accepted_charges_per_job(history)) {
    EXPECT_EQ(charges, 1) << "customer " << job;
  }
  EXPECT_TRUE(history.first("write.reject", "storage",
                            [](const Event& e) { return e["reason"] == "duplicate-request" && e["job"] == 0; }));
  EXPECT_EQ(history.final_values()["billed"], 3);
}

// --- H25 as it really is: an external effect that takes no token ----------------------------

// Billing through the payments node; storage fences writes and reads. worker-1's
// charge of customer 0 spends 1.7 s in the network: past its 500 ms request
// timeout, so the job is redone under a newer token — and the charge lands anyway.
SystemOptions external_billing(bool idempotency_keys, IdempotencyKey key) {
  SystemOptions options = billing(idempotency_keys);
  options.storage.fence_reads = true;
  auto& workload = std::get<BillingWorkload>(options.workload);
  workload.charge = Charge::kExternal;
  workload.idempotency_key = key;
  return options;
}

void delay_worker_1s_first_external_charge(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kEffectInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.delay_spike(system.worker_node(1), 1700_ms, 1_ms); });
}

std::map<std::int64_t, int> external_charges_per_job(const History& history) {
  std::map<std::int64_t, int> charges;
  for (const Event& accept : history.all("effect.accept", "payments")) ++charges[accept["job"].get<std::int64_t>()];
  return charges;
}

TEST(H25ExternalEffect, FencedReadsAndWritesDoNotStopTheLateChargeAtThePaymentsApi) {
  const History history =
      run_system(external_billing(false, IdempotencyKey::kJob), delay_worker_1s_first_external_charge);
  EXPECT_EQ(external_charges_per_job(history)[0], 2);
  // The late charge carries token 1 and lands after storage registered token 2's read.
  const auto late = history.first("effect.accept", "payments", [](const Event& e) { return has_token(e, 1); });
  const auto newer_read = history.first("read.accept", "storage", [](const Event& e) { return has_token(e, 2); });
  ASSERT_TRUE(late);
  ASSERT_TRUE(newer_read);
  EXPECT_GT((*late)["t"], (*newer_read)["t"]);
  EXPECT_EQ(history.count("write.reject"), 0u);  // storage saw nothing stale: its step was never the problem
  EXPECT_EQ(history.final_values()["billed"], 3);
}

TEST(H25ExternalEffect, AnIdempotencyKeyDerivedFromTheJobMakesThePaymentsApiDropTheRepeat) {
  const History history =
      run_system(external_billing(true, IdempotencyKey::kJob), delay_worker_1s_first_external_charge);
  for (const auto& [job, charges] : external_charges_per_job(history)) EXPECT_EQ(charges, 1) << "customer " << job;
  const auto dropped = history.first("effect.reject", "payments", [](const Event& e) { return e["job"] == 0; });
  ASSERT_TRUE(dropped);
  EXPECT_EQ((*dropped)["reason"], "duplicate-request");
  EXPECT_EQ((*dropped)["request_id"], "customer-0");
  // The caller is told the customer stands charged, and marks it done.
  EXPECT_TRUE(history.first("effect.ok", "", [](const Event& e) { return e.value("replayed", false); }));
  EXPECT_EQ(history.final_values()["billed"], 3);
}

TEST(H25ExternalEffect, AKeyMadeFreshPerAttemptDoesNotStopTheRepeat) {
  const History history =
      run_system(external_billing(true, IdempotencyKey::kAttempt), delay_worker_1s_first_external_charge);
  EXPECT_EQ(external_charges_per_job(history)[0], 2);
  EXPECT_EQ(history.count("effect.reject"), 0u);
}

TEST(H25ExternalEffect, TheSameLateChargeAsAFencedStorageWriteIsTurnedAway) {
  SystemOptions options = billing(false);
  options.storage.fence_reads = true;
  const History history = run_system(options, delay_worker_1s_first_charge);
  for (const auto& [job, charges] : accepted_charges_per_job(history)) EXPECT_EQ(charges, 1) << "customer " << job;
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["job"] == 0; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "stale-token");
}

// --- H26: lease shorter than the work ------------------------------------------------------

SystemOptions lease_shorter_than_work(RenewMethod renew) {
  SystemOptions options = two_workers_one_job();
  options.lock.lease = 1_s;
  options.workers.work = sim::Distribution::uniform(500_ms, 2_s);
  options.workers.renew = renew;
  options.workers.renew_every = 300_ms;
  options.workload = CounterWorkload{"qty", 10};
  return options;
}

TEST(H26LeaseShorterThanWork, WithoutAnyFaultTwoWorkersHoldAndWriteStale) {
  const History history = run_system(lease_shorter_than_work(RenewMethod::kNone));
  EXPECT_FALSE(history.first("fault.begin"));
  EXPECT_GT(history.overlapping_holds(), 0);
  EXPECT_FALSE(history.stale_accepts().empty());
}

TEST(H26LeaseShorterThanWork, AWatchdogFixesItWithoutPauses) {
  const History history = run_system(lease_shorter_than_work(RenewMethod::kWatchdog));
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 20);
}

}  // namespace
}  // namespace locksim::model
