// The `consensus` service (etcd/ZooKeeper-like): deterministic hand-built
// plans asserting on the events it emits, and a rapidcheck property that
// says exactly which configuration keeps stale writes out under pauses and
// delay spikes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "model/consensus_service.h"
#include "model_test_support.h"
#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::RunSettings;
using testing::run_system;

sim::Time at(sim::Duration since_start) { return sim::Time::from_ns(since_start.count_ns()); }
std::int64_t ns(sim::Duration length) { return length.count_ns(); }

// Two workers, one job each, a 10 s session, 100 ms of work, on `consensus`.
SystemOptions consensus_two_workers() {
  SystemOptions options = testing::two_workers_one_job();
  options.service.kind = ServiceKind::kConsensus;
  options.service.nodes = 1;  // the single node; the ensemble: consensus_ensemble_test.cpp
  return options;
}

// Every lease.grant's token is higher than the one before.
bool grant_tokens_strictly_increase(const History& history) {
  std::int64_t previous = 0;
  for (const Event& grant : history.all("lease.grant")) {
    if (grant["token"].get<std::int64_t>() <= previous) return false;
    previous = grant["token"].get<std::int64_t>();
  }
  return true;
}

// --- control: nothing goes wrong ------------------------------------------------------

TEST(ConsensusControl, WithoutFaultsThreeWorkersNeverOverlapAndEveryWriteIsAccepted) {
  SystemOptions options = testing::with_fencing(consensus_two_workers());
  options.workers.count = 3;
  options.workload = CounterWorkload{"qty", 3};
  const History history = run_system(options);

  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_EQ(history.count("write.accept"), 9u);
  EXPECT_EQ(history.count("write.reject"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 9);
  EXPECT_EQ(history.count("lease.grant"), 9u);
  EXPECT_EQ(history.count("lease.release"), 9u);
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_TRUE(grant_tokens_strictly_increase(history));
  // Each acquire.ok carries the token the service granted, and the grant came first.
  const auto grants = history.all("lease.grant");
  for (const Event& grant : grants) {
    const auto acquired = history.first("acquire.ok", grant["owner"].get<std::string>(), [&grant](const Event& e) {
      return e["token"] == grant["token"];
    });
    ASSERT_TRUE(acquired) << grant.dump();
    EXPECT_GE((*acquired)["t"], grant["t"]);
    // The session's remaining time: a waiter's session has been ticking.
    EXPECT_GT(grant["lease_ns"], 0);
    EXPECT_LE(grant["lease_ns"], ns(10_s));
  }
  EXPECT_EQ(grants.at(0)["lease_ns"], ns(10_s)) << "a key granted on arrival gets the whole TTL";
  EXPECT_EQ(history.all("run.end").size(), 1u);
}

TEST(ConsensusControl, AWaiterQueuedBehindTheHolderIsGrantedTheMomentItReleases) {
  const History history = run_system(consensus_two_workers());
  const auto release = history.first("lease.release", "consensus");
  ASSERT_TRUE(release);
  EXPECT_EQ((*release)["by"], (*release)["owner"]);
  const auto next = history.first("lease.grant", "consensus", [&release](const Event& e) {
    return e["owner"] != (*release)["owner"];
  });
  ASSERT_TRUE(next);
  // The waiter's acquire request was held by the server, not polled later.
  EXPECT_EQ((*next)["t"], (*release)["t"]);
  EXPECT_EQ(history.count("acquire.fail"), 0u);
}

// --- H16: session expiry learned late -------------------------------------------------

// Session 10 s kept alive by a watchdog; worker-1 takes the lock, then is cut
// off from `consensus` (not from storage) from 1 s to 21 s and works 12 s.
SystemOptions h16_options() {
  SystemOptions options = consensus_two_workers();
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.work = sim::Distribution::constant(12_s);
  return options;
}

void cut_worker_1_from_consensus(Nemesis& nemesis, System& system) {
  nemesis.at(at(1_s), [&nemesis, &system] {
    nemesis.partition({system.worker_node(1)}, system.service().nodes(), 20_s);
  });
}

TEST(ConsensusH16SessionExpiryLearnedLate, WithoutFencingTheCutOffHoldersLateWriteIsAccepted) {
  const History history = run_system(h16_options(), cut_worker_1_from_consensus);
  const auto first_grant = history.first("lease.grant", "consensus");
  ASSERT_TRUE(first_grant);
  ASSERT_EQ((*first_grant)["owner"], "worker-1");
  // Its keep-alives cannot get through, so the session expires at the service...
  EXPECT_TRUE(history.first("renew.fail", "worker-1"));
  const auto expired = history.first("lease.expire", "consensus");
  ASSERT_TRUE(expired);
  EXPECT_EQ((*expired)["owner"], "worker-1");
  EXPECT_GE((*expired)["t"], ns(10_s));
  EXPECT_LT((*expired)["t"], ns(11_s));
  // ...and worker-2 gets a higher revision.
  const auto second_grant = history.first("lease.grant", "consensus", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(second_grant);
  EXPECT_GT((*second_grant)["token"], (*first_grant)["token"]);
  // worker-1 still believes it holds and writes at ~12 s: accepted, and stale.
  const auto late = history.first("write.accept", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(late);
  EXPECT_GT((*late)["t"], (*second_grant)["t"]);
  const auto stale = history.stale_accepts();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
  EXPECT_GE(history.overlapping_holds(), 1);
}

TEST(ConsensusH16SessionExpiryLearnedLate, WithFencingTheRevisionRejectsTheLateWrite) {
  // Reads are fenced too: worker-2's read registers its revision at storage
  // before worker-1's write arrives (with unfenced reads that is hazard H22).
  SystemOptions options = testing::with_fencing(h16_options());
  options.storage.fence_reads = true;
  const History history = run_system(options, cut_worker_1_from_consensus);
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "stale-token");
  EXPECT_EQ((*rejected)["token"], history.first("lease.grant", "consensus")->at("token"));
  EXPECT_TRUE(history.stale_accepts().empty());
  // worker-1 does its job again once the partition heals.
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// --- H15: an etcd waiter's session expires in the queue ---------------------------------

// Three workers, 2 s sessions kept alive by a watchdog, 5 s of work: worker-1
// holds, worker-2 and worker-3 queue behind it. worker-2 freezes 1–4 s, so its
// polls stop and its session expires in the queue at about 2.7 s; on waking it
// polls again while worker-1 still holds.
SystemOptions h15_options() {
  SystemOptions options = consensus_two_workers();
  options.workers.count = 3;
  options.lock.lease = 2_s;
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.work = sim::Distribution::constant(5_s);
  options.service.request_timeout = 30_s;
  return options;
}

void freeze_waiting_worker_2(Nemesis& nemesis, System& system) {
  nemesis.at(at(1_s), [&nemesis, &system] { nemesis.pause(system.worker_node(2), 3_s); });
}

void with_the_etcd_3_4_3_bug(Nemesis& nemesis, System& system) {
  dynamic_cast<ConsensusService&>(system.service()).reproduce_etcd_3_4_3_lock_bug();
  freeze_waiting_worker_2(nemesis, system);
}

TEST(ConsensusH15EtcdWaiterExpiresInTheQueue, AFixedServerTellsTheExpiredWaiterItsSessionIsGone) {
  const History history = run_system(h15_options(), freeze_waiting_worker_2);
  const auto failed = history.first("acquire.fail", "worker-2");
  ASSERT_TRUE(failed);
  EXPECT_EQ((*failed)["reason"], "session-expired");
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_EQ(history.final_values()["qty"], 3);
}

TEST(ConsensusH15EtcdWaiterExpiresInTheQueue, WithEtcd343sBugTheExpiredWaiterIsToldItHoldsTheLock) {
  const History history = run_system(h15_options(), with_the_etcd_3_4_3_bug);
  const auto told = history.first("acquire.ok", "worker-2");
  ASSERT_TRUE(told);
  // Its old revision, which the service never granted...
  EXPECT_FALSE(history.first("lease.grant", "consensus", [&told](const Event& e) { return e["token"] == (*told)["token"]; }));
  // ...while the lock went to worker-3 at the same moment.
  const auto granted = history.first("lease.grant", "consensus", [](const Event& e) { return e["owner"] == "worker-3"; });
  ASSERT_TRUE(granted);
  EXPECT_LT((*told)["token"], (*granted)["token"]);
  EXPECT_GE(history.overlapping_holds(), 1);
}

TEST(ConsensusH15EtcdWaiterExpiresInTheQueue, WithTheBugValidatingTheRevisionKeepsTheExpiredWaiterOut) {
  SystemOptions options = testing::with_fencing(h15_options());
  options.storage.fence_reads = true;
  options.storage.validate = Validation::kService;
  const History history = run_system(options, with_the_etcd_3_4_3_bug);
  const auto told = history.first("acquire.ok", "worker-2");
  ASSERT_TRUE(told);
  const auto refused = history.first("read.reject", "storage", [&told](const Event& e) {
    return e["reader"] == "worker-2" && e["token"] == (*told)["token"];
  });
  ASSERT_TRUE(refused);
  EXPECT_EQ((*refused)["reason"], "not-current");
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 3);
}

// --- lock_delay -------------------------------------------------------------------------

// worker-1 takes a 2 s session and freezes 4 s right after acquiring: the
// session expires at the service while worker-2 keeps trying.
SystemOptions expiring_holder_options(sim::Duration lock_delay) {
  SystemOptions options = consensus_two_workers();
  options.lock.lease = 2_s;
  options.service.lock_delay = lock_delay;
  return options;
}

void freeze_worker_1_after_acquire(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 4_s); });
}

TEST(ConsensusLockDelay, AfterAHoldersSessionExpiresNoOneIsGrantedForTheLockDelay) {
  const History history = run_system(expiring_holder_options(5_s), freeze_worker_1_after_acquire);
  const auto expired = history.first("lease.expire", "consensus");
  ASSERT_TRUE(expired);
  EXPECT_EQ((*expired)["owner"], "worker-1");
  const auto next = history.first("lease.grant", "consensus", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(next);
  const std::int64_t gap = (*next)["t"].get<std::int64_t>() - (*expired)["t"].get<std::int64_t>();
  EXPECT_GE(gap, ns(5_s));
  EXPECT_LT(gap, ns(6_s)) << "worker-2 keeps trying, so it is granted soon after the delay";
}

TEST(ConsensusLockDelay, WithoutALockDelayTheNextWaiterIsGrantedAtTheExpiry) {
  const History history = run_system(expiring_holder_options(0_s), freeze_worker_1_after_acquire);
  const auto expired = history.first("lease.expire", "consensus");
  ASSERT_TRUE(expired);
  const auto next = history.first("lease.grant", "consensus", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(next);
  EXPECT_LT((*next)["t"].get<std::int64_t>() - (*expired)["t"].get<std::int64_t>(), ns(1_s));
}

TEST(ConsensusLockDelay, AfterANormalReleaseTheNextWaiterIsGrantedAtOnce) {
  SystemOptions options = consensus_two_workers();
  options.service.lock_delay = 5_s;
  const History history = run_system(options);
  const auto releases = history.all("lease.release", "consensus");
  ASSERT_EQ(releases.size(), 2u);
  const auto next = history.first("lease.grant", "consensus", [&releases](const Event& e) {
    return e["owner"] != releases[0]["owner"];
  });
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["t"], releases[0]["t"]);
  EXPECT_EQ(history.count("lease.expire"), 0u);
}

// --- tokens -------------------------------------------------------------------------------

TEST(ConsensusTokens, RevisionsStrictlyIncreaseAcrossGrantsThroughExpiriesAndReleases) {
  SystemOptions options = testing::with_fencing(consensus_two_workers());
  options.workers.count = 3;
  options.lock.lease = 1_s;
  options.workload = CounterWorkload{"qty", 4};
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    // Holders freeze past their session now and then: grants follow expiries too.
    for (int worker = 1; worker <= 3; ++worker) {
      nemesis.after_event("worker-" + std::to_string(worker), EventKind::kAcquireOk, 2, 0_s,
                          [&nemesis, &system, worker] { nemesis.pause(system.worker_node(worker), 1500_ms); });
    }
  });
  EXPECT_GE(history.count("lease.expire"), 3u);
  EXPECT_GE(history.count("lease.release"), 9u);
  EXPECT_TRUE(grant_tokens_strictly_increase(history));
  // Every token a worker acted on is one the service granted to it.
  for (const Event& acquired : history.all("acquire.ok")) {
    EXPECT_TRUE(history.first("lease.grant", "consensus", [&acquired](const Event& e) {
      return e["token"] == acquired["token"] && e["owner"] == acquired["proc"];
    })) << acquired.dump();
  }
}

// --- determinism ----------------------------------------------------------------------------

TEST(ConsensusDeterminism, TheSameSeedAndPlanGiveTheSameHistoryEventForEvent) {
  SystemOptions options = testing::with_fencing(consensus_two_workers());
  options.workers.count = 3;
  options.lock.lease = 1_s;
  options.service.lock_delay = 2_s;
  options.workers.work = sim::Distribution::uniform(10_ms, 1500_ms);
  options.workload = CounterWorkload{"qty", 3};
  RunSettings settings;
  settings.seed = 7;
  settings.network.delay = sim::Distribution::uniform(500_us, 5_ms);
  const auto plan = [](Nemesis& nemesis, System& system) {
    nemesis.at(at(500_ms), [&nemesis, &system] { nemesis.pause(system.service().nodes().at(0), 1_s); });
  };
  const History first = run_system(options, plan, settings);
  const History second = run_system(options, plan, settings);
  ASSERT_EQ(first.events.size(), second.events.size());
  for (std::size_t index = 0; index < first.events.size(); ++index) {
    ASSERT_EQ(first.events[index], second.events[index]) << "at event " << index;
  }
  EXPECT_GE(first.count("lease.expire"), 1u) << "the run exercises expiry and lock_delay";
}

// --- the fencing window, and what closes it ----------------------------------------------

// worker-1 (1 s session) freezes with its write in hand until its session has
// expired and worker-2 has been granted; worker-2 freezes right after its grant,
// before its first fenced read, so storage has not yet seen the new revision.
void stale_write_inside_the_fencing_window(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 2_s); });
  nemesis.after_event("worker-2", EventKind::kAcquireOk, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(2), 3_s); });
}

SystemOptions fenced_reads_and_writes(sim::Duration lease) {
  SystemOptions options = testing::with_fencing(consensus_two_workers());
  options.storage.fence_reads = true;
  options.lock.lease = lease;
  options.service.request_timeout = 60_s;
  return options;
}

TEST(ConsensusFencingWindow, WithMaxSeenAStaleWriteLandsBeforeTheNewHoldersFirstFencedRead) {
  const History history = run_system(fenced_reads_and_writes(1_s), stale_write_inside_the_fencing_window);
  const auto stale = history.stale_accepts();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
}

TEST(ConsensusFencingWindow, ValidatingWithTheServiceRejectsThatWrite) {
  SystemOptions options = fenced_reads_and_writes(1_s);
  options.storage.validate = Validation::kService;
  const History history = run_system(options, stale_write_inside_the_fencing_window);
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "not-current");
  EXPECT_TRUE(history.stale_accepts().empty());
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// Validation is a round trip: consensus says "current", and the answer takes
// a while to become a write.accept. Here it is held up 5 s by a delay spike on
// storage that starts just after the question left; worker-1's 2 s session
// expires meanwhile and worker-2, waiting in the queue, is granted.
void slow_validation_answer(Nemesis& nemesis, System& system) {
  // write.invoke at t; the write reaches storage at t + 1 ms, the question
  // reaches consensus at t + 2 ms, and its answer leaves inside the spike.
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 1500_us,
                      [&nemesis, &system] { nemesis.delay_spike(system.storage_node(), 5_s, 1_s); });
}

SystemOptions validated_with_the_service(sim::Duration lock_delay, sim::Duration request_timeout) {
  SystemOptions options = fenced_reads_and_writes(2_s);
  options.storage.validate = Validation::kService;
  options.service.lock_delay = lock_delay;
  options.service.request_timeout = request_timeout;
  return options;
}

TEST(ConsensusFencingWindow, WithoutALockDelayAValidatedWriteCanLandAfterTheNextGrant) {
  const History history = run_system(validated_with_the_service(0_s, 60_s), slow_validation_answer);
  const auto stale = history.stale_accepts();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
  const auto expired = history.first("lease.expire", "consensus");
  ASSERT_TRUE(expired);
  EXPECT_LT((*expired)["t"], stale[0]["t"]);
}

TEST(ConsensusFencingWindow, ALockDelayLongerThanTheAnswersDelayKeepsTheNextGrantAfterTheWrite) {
  const History history = run_system(validated_with_the_service(6_s, 60_s), slow_validation_answer);
  EXPECT_TRUE(history.stale_accepts().empty());
  const auto accepted = history.first("write.accept", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  const auto next = history.first("lease.grant", "consensus", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(accepted);
  ASSERT_TRUE(next);
  EXPECT_LT((*accepted)["t"], (*next)["t"]);
}

TEST(ConsensusFencingWindow, ALockDelayDoesNotCoverAReleaseWhileTheHoldersWriteIsStillInFlight) {
  // Storage freezes 2 s just after asking consensus about worker-1's token;
  // the "current" answer waits in its inbox. With a 500 ms request timeout
  // worker-1 gives up on its write and releases normally (no lock_delay),
  // worker-2 is granted, and then storage wakes and accepts the write.
  const History history = run_system(validated_with_the_service(6_s, 500_ms), [](Nemesis& nemesis, System& system) {
    nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 1500_us,
                        [&nemesis, &system] { nemesis.pause(system.storage_node(), 2_s); });
  });
  const auto stale = history.stale_accepts();
  ASSERT_GE(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
  EXPECT_TRUE(history.first("write.fail", "worker-1", [](const Event& e) { return e["reason"] == "timeout"; }));
  const auto released = history.first("lease.release", "consensus", [](const Event& e) { return e["owner"] == "worker-1"; });
  ASSERT_TRUE(released);
  EXPECT_LT((*released)["t"], stale[0]["t"]);
}

// --- the property -----------------------------------------------------------------------------
//
// Claim: with `consensus`, fenced reads and writes and `validate: service`, no
// stale write (docs/history-format.md's definition, stale_accepts above) is ever
// accepted under any plan of node pauses (workers, consensus, storage) and
// network delay spikes — provided that
//
//   (1) lock_delay > the longest time from consensus answering "current" to
//       storage recording the write.accept: the answer's trip (network delay
//       plus every spike that can be active at once) plus every storage pause
//       that can hold it back. Then a holder whose session expires right after
//       its token was validated cannot be succeeded before its write lands.
//   (2) request_timeout > the longest write round trip (both trips, spikes,
//       the validation round trip, storage and consensus pauses, requests
//       queued ahead at storage). Then a holder never gives up on a write
//       still in flight and releases normally, which lock_delay does not cover.
//
// Worker pauses need no bound: a frozen old holder's write is validated when
// it arrives, and by then its session has expired. Here: at most 4 faults;
// worker pauses up to 20 s (longer than lock_delay on purpose), consensus and
// storage pauses up to 2 s, spikes up to +500 ms; so (1) needs more than
// 4·2 s + 4·0.5 s + 2 ms: lock_delay 11 s; (2) holds with request_timeout 60 s.
//
// Each condition is needed: the deterministic ConsensusFencingWindow tests
// above break (1) and (2) and find a stale write, and so does this property's
// search within a few hundred cases with lock_delay 0 or request_timeout
// 500 ms. With max-seen instead of validation, lock_delay would have to
// outlast the old holder's whole pause; the window (H22: the new holder stalls
// between its grant and its first fenced read) is narrow enough that the
// search finds it only now and then, so a deterministic test pins it.
RC_GTEST_PROP(ConsensusProperty, ValidatedFencingWithALockDelayAcceptsNoStaleWriteUnderPausesAndDelaySpikes, ()) {
  const int workers = *rc::gen::inRange(2, 4);
  const int fault_count = *rc::gen::inRange(0, 5);
  struct Fault {
    bool pause = true;
    int target = 0;  // 1..workers: that worker; 0: consensus; -1: storage
    std::int64_t at_ms = 0;
    std::int64_t length_ms = 0;
    std::int64_t extra_ms = 0;
  };
  std::vector<Fault> faults;
  for (int index = 0; index < fault_count; ++index) {
    Fault fault;
    fault.pause = *rc::gen::arbitrary<bool>();
    fault.target = *rc::gen::inRange(-1, workers + 1);
    // Half the faults early, where the first holders are; half anywhere in
    // the run, where grants come after a lock_delay.
    fault.at_ms = *rc::gen::inRange<std::int64_t>(0, *rc::gen::element<std::int64_t>(3'000, 30'000));
    // A worker may freeze far longer than lock_delay (the claim must not lean
    // on lock_delay outlasting the old holder); consensus and storage pauses
    // and spikes are bounded, and (1) and (2) above are stated in those bounds.
    const bool worker_pause = fault.pause && fault.target > 0;
    fault.length_ms = *rc::gen::inRange<std::int64_t>(10, worker_pause ? 20'001 : 2'001);
    fault.extra_ms = *rc::gen::inRange<std::int64_t>(1, 501);
    RC_LOG() << (fault.pause ? "pause" : "delay-spike") << " target " << fault.target << " at " << fault.at_ms
             << " ms for " << fault.length_ms << " ms extra " << fault.extra_ms << " ms\n";
    faults.push_back(fault);
  }
  const std::uint64_t seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000);
  RC_LOG() << "workers " << workers << " seed " << seed << "\n";

  SystemOptions options;
  options.service.kind = ServiceKind::kConsensus;
  options.service.nodes = 1;
  options.service.lock_delay = 11_s;
  options.service.request_timeout = 60_s;
  options.lock.lease = 1_s;
  options.workers.count = workers;
  options.workers.work = sim::Distribution::uniform(10_ms, 1200_ms);
  options.workers.retry = sim::Distribution::uniform(50_ms, 200_ms);
  options.workload = CounterWorkload{"qty", 2};
  options.storage.fencing = Fencing::kOn;
  options.storage.fence_reads = true;
  options.storage.validate = Validation::kService;

  RunSettings settings;
  settings.seed = seed;
  settings.time_limit = 10_min;
  settings.network.delay = sim::Distribution::uniform(500_us, 2_ms);
  const History history = run_system(
      options,
      [&faults](Nemesis& nemesis, System& system) {
        for (const Fault& fault : faults) {
          const sim::NodeId target = fault.target > 0    ? system.worker_node(fault.target)
                                     : fault.target == 0 ? system.service().nodes().at(0)
                                                         : system.storage_node();
          const sim::Duration length = sim::Duration::milliseconds(fault.length_ms);
          if (fault.pause) {
            nemesis.at(at(sim::Duration::milliseconds(fault.at_ms)),
                       [&nemesis, target, length] { nemesis.pause(target, length); });
          } else {
            const sim::Duration extra = sim::Duration::milliseconds(fault.extra_ms);
            nemesis.at(at(sim::Duration::milliseconds(fault.at_ms)),
                       [&nemesis, target, extra, length] { nemesis.delay_spike(target, extra, length); });
          }
        }
      },
      settings);

  const auto stale = history.stale_accepts();
  RC_ASSERT(stale.empty());
  RC_ASSERT(grant_tokens_strictly_increase(history));
  // Not vacuous: the workers finished their jobs and storage accepted them.
  RC_ASSERT(history.final_values()["qty"] == 2 * workers);
  RC_TAG(history.count("lease.expire") > 0 ? "a session expired" : "no expiry");
}

}  // namespace
}  // namespace locksim::model
