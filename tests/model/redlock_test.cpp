// The `redlock` service and client: a control run, and one deterministic test
// per Redlock hazard of the catalogue (shared/hazards.md H5, H6, H14, H27;
// acceptance cases 2 and 3), each a hand-built plan with assertions on the
// events the models emit.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/redlock_client.h"
#include "model/redlock_service.h"
#include "model_test_support.h"
#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;

constexpr std::int64_t kSecondNs = 1'000'000'000;

// Five instances, a 10 s TTL, two workers with one job each whose work (5 s)
// is long enough for a second holder to overlap the first.
SystemOptions five_instances_two_workers() {
  SystemOptions options = testing::two_workers_one_job();
  options.service.kind = ServiceKind::kRedlock;
  options.service.instances = 5;
  options.workers.work = sim::Distribution::constant(5_s);
  return options;
}

std::int64_t time_of(const Event& event) { return event["t"].get<std::int64_t>(); }

// Grants an instance made while, by its own record, another key of the lock
// was still there (granted, and neither expired, released nor forgotten).
int grants_over_a_live_key(const History& history) {
  std::map<std::string, bool> live_key;  // by instance
  int grants = 0;
  for (const Event& event : history.events) {
    const std::string ev = event["ev"];
    const std::string proc = event["proc"];
    if (ev == "lease.grant") {
      if (live_key[proc]) ++grants;
      live_key[proc] = true;
    } else if (ev == "lease.expire" || ev == "lease.release" || ev == "lease.lost") {
      live_key[proc] = false;
    }
  }
  return grants;
}

// How many instances promise `owner` a lease at true time `at_ns`, in the
// sense of docs/history-format.md: a promise runs from lease.grant until the
// instance's lease.expire or lease.release of it, else for lease_ns (extended
// by lease.renew); a lease.lost (restart) does not end it.
int instances_promising(const History& history, const std::string& owner, std::int64_t at_ns) {
  struct Promise {
    std::int64_t token = 0;
    std::int64_t begin_ns = 0;
    std::int64_t end_ns = 0;
  };
  std::map<std::string, std::vector<Promise>> promises;  // by instance
  for (const Event& event : history.events) {
    const std::string ev = event["ev"];
    if (!event.contains("owner") || event["owner"] != owner) continue;
    std::vector<Promise>& of_instance = promises[event["proc"]];
    const std::int64_t token = event["token"];
    if (ev == "lease.grant") {
      of_instance.push_back({token, time_of(event), time_of(event) + event["lease_ns"].get<std::int64_t>()});
    } else if (ev == "lease.renew" || ev == "lease.expire" || ev == "lease.release") {
      for (Promise& promise : of_instance) {
        if (promise.token != token) continue;
        promise.end_ns = ev == "lease.renew" ? time_of(event) + event["lease_ns"].get<std::int64_t>()
                                             : std::min(promise.end_ns, time_of(event));
      }
    }
  }
  int promising = 0;
  for (const auto& [instance, of_instance] : promises) {
    for (const Promise& promise : of_instance) {
      if (promise.begin_ns <= at_ns && at_ns < promise.end_ns) {
        ++promising;
        break;
      }
    }
  }
  return promising;
}

// Acquire attempts that failed for want of a quorum while nobody else had one
// either: the lock was free, the vote split.
int split_votes(const History& history, int workers) {
  int splits = 0;
  for (const Event& failed : history.all("acquire.fail")) {
    if (failed["reason"] != "no-quorum") continue;
    bool anyone_had_quorum = false;
    for (int number = 1; number <= workers; ++number) {
      anyone_had_quorum |= instances_promising(history, "worker-" + std::to_string(number), time_of(failed)) >= 3;
    }
    if (!anyone_had_quorum) ++splits;
  }
  return splits;
}

// worker-1 reaches only redis-0..2, worker-2 only redis-2..4 (storage and
// everything else stay reachable): acceptance case 2's reachability.
void split_reachability(Nemesis& nemesis, System& system) {
  const std::vector<sim::NodeId> instances = system.service().nodes();
  nemesis.partition({system.worker_node(1)}, {instances[3], instances[4]}, 60_s);
  nemesis.partition({system.worker_node(2)}, {instances[0], instances[1]}, 60_s);
}

sim::Time at_seconds(double seconds) {
  return sim::Time{} + sim::Duration::nanoseconds(static_cast<std::int64_t>(seconds * 1e9));
}

// --- the service as configured ----------------------------------------------------------

TEST(RedlockService, LeftAtOneInstanceItRunsFiveWithAMajorityQuorumOfThree) {
  sim::Simulation simulation{sim::SimulationOptions{}};
  SystemOptions options;
  options.service.kind = ServiceKind::kRedlock;
  System system{simulation, options};
  EXPECT_EQ(system.service().nodes().size(), 5u);
  EXPECT_EQ(simulation.node_name(system.service().nodes()[4]), "redis-4");
  EXPECT_EQ(system.service().describe_json(), R"({"kind":"redlock","instances":5,"quorum":3})");
}

TEST(RedlockService, SixInstancesNeedFourForAMajority) {
  sim::Simulation simulation{sim::SimulationOptions{}};
  SystemOptions options;
  options.service.kind = ServiceKind::kRedlock;
  options.service.instances = 6;
  System system{simulation, options};
  EXPECT_EQ(system.service().describe_json(), R"({"kind":"redlock","instances":6,"quorum":4})");
}

TEST(RedlockClient, ValiditySubtractsElapsedTimeAndTheDriftAllowanceOnlyWhenAskedTo) {
  RedlockClientOptions options;
  options.lease = 10_s;
  RedlockClient checking{{sim::NodeId{}}, "lock", options};
  // 10 s − 1 s − (0.01 · 10 s + 2 ms) = 8.898 s
  EXPECT_EQ(checking.validity_after(1_s), 8898_ms);
  EXPECT_EQ(checking.per_request_timeout(), 500_ms);
  options.elapsed_check = ElapsedCheck::kIgnoreElapsed;
  options.lease = 2_s;
  RedlockClient ignoring{{sim::NodeId{}}, "lock", options};
  EXPECT_EQ(ignoring.validity_after(12_s), 2_s - 22_ms);
  EXPECT_EQ(ignoring.per_request_timeout(), 200_ms);  // a tenth of the TTL
}

TEST(RedlockClient, ALeaseIsBelievedUntilStartPlusTtlMinusDriftAndAcquireOkSaysWhatWasLeft) {
  // A 4 s pause inside worker-1's round: the published client counts the
  // validity from the round's start (redsync's mutex.go, node-redlock), so
  // it believes the lease until 10 s − 102 ms after it began, not 4 s less.
  const History history = run_system(five_instances_two_workers(), [](Nemesis& nemesis, System& system) {
    nemesis.after_event("worker-1", EventKind::kAcquireInvoke, 1, 500_us,
                        [&nemesis, &system] { nemesis.pause(system.worker_node(1), 4_s); });
  });
  const auto acquired = history.first("acquire.ok", "worker-1");
  ASSERT_TRUE(acquired);
  EXPECT_EQ((*acquired)["lease_ns"], 10 * kSecondNs) << "the TTL asked for";
  const std::int64_t validity = (*acquired)["validity_ns"].get<std::int64_t>();
  EXPECT_GT(validity, 5'800'000'000);
  EXPECT_LT(validity, 5'898'000'000) << "what was left when the round ended: 10 s − 4 s and a little − 102 ms";
  // Its 5 s of work end before the believed end (about 9.9 s): it releases.
  const auto ended = history.first("hold.end", "worker-1");
  ASSERT_TRUE(ended);
  EXPECT_EQ(ended->at("reason"), "released");
}

// --- control: nothing goes wrong -------------------------------------------------------

TEST(RedlockControl, WithoutFaultsThreeWorkersNeverHoldAtOnceAndEveryWriteIsAccepted) {
  SystemOptions options = five_instances_two_workers();
  options.workers.count = 3;
  options.workers.work = sim::Distribution::constant(100_ms);
  options.workers.retry = sim::Distribution::uniform(50_ms, 500_ms);
  options.workload = CounterWorkload{"qty", 4};
  const History history = run_system(options);
  EXPECT_EQ(history.count("acquire.ok"), 12u);
  EXPECT_GT(history.count("acquire.fail"), 0u);  // they did contend
  EXPECT_EQ(history.count("write.accept"), 12u);
  EXPECT_EQ(history.count("write.reject"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 12);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_EQ(grants_over_a_live_key(history), 0);
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_EQ(history.count("release.ok"), 12u);
  // Every acquisition was granted by all five instances.
  for (const Event& acquired : history.all("acquire.ok")) {
    EXPECT_EQ(instances_promising(history, acquired["proc"], time_of(acquired)), 5);
  }
}

// --- H5 / acceptance case 2: clock jump + partial reachability ------------------------------

TEST(H5RedlockClockJump, BothWorkersHoldTheLockThoughNoInstanceGrantedTwiceWhileItsKeyWasLive) {
  const History history = run_system(five_instances_two_workers(), [](Nemesis& nemesis, System& system) {
    split_reachability(nemesis, system);
    // redis-2 alone sees 11 s pass at once: worker-1's 10 s key expires by its clock.
    nemesis.at(at_seconds(2), [&nemesis, &system] { nemesis.jump_clock(system.service().nodes()[2], 11_s); });
  });
  const auto first_hold = history.first("acquire.ok", "worker-1");
  const auto second_hold = history.first("acquire.ok", "worker-2");
  ASSERT_TRUE(first_hold && second_hold);
  // worker-1 won A, B, C; worker-2 lost the race for C until C's clock jumped.
  EXPECT_LT(time_of(*first_hold), 2 * kSecondNs);
  EXPECT_GT(time_of(*second_hold), 2 * kSecondNs);
  EXPECT_EQ(history.first("acquire.fail", "worker-2")->at("reason"), "no-quorum");
  const auto expired = history.first("lease.expire", "redis-2", [](const Event& e) { return e["owner"] == "worker-1"; });
  ASSERT_TRUE(expired);
  EXPECT_EQ(time_of(*expired), 2 * kSecondNs);  // at the jump, 8 s before worker-1's TTL ran out in true time
  const auto regrant = history.first("lease.grant", "redis-2", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(regrant);
  EXPECT_GT(time_of(*regrant), time_of(*expired));

  // Both believe they hold the lock at once.
  EXPECT_GT(history.overlapping_holds(), 0);
  const auto first_end = history.first("hold.end", "worker-1");
  ASSERT_TRUE(first_end);
  EXPECT_LT(time_of(*second_hold), time_of(*first_end));
  // Yet every instance followed its own clock: none granted over a live key,
  // and there is no moment when both workers had a quorum of promises.
  EXPECT_EQ(grants_over_a_live_key(history), 0);
  EXPECT_EQ(instances_promising(history, "worker-1", time_of(*second_hold)), 2);
  EXPECT_EQ(instances_promising(history, "worker-2", time_of(*second_hold)), 3);
  // worker-1 lets go of what it still has, A and B: not a quorum any more.
  EXPECT_EQ(history.first("release.fail", "worker-1")->at("reason"), "no-quorum");
  EXPECT_EQ(history.count("write.accept"), 2u);
  EXPECT_EQ(history.final_values()["qty"], 1);  // both read 0 while holding: one update is lost
}

// --- H6 / acceptance case 3: an instance restarts empty -------------------------------------

void restart_redis_2_at_one_second(Nemesis& nemesis, System& system) {
  split_reachability(nemesis, system);
  nemesis.at(at_seconds(1), [&nemesis, &system] { nemesis.crash(system.service().nodes()[2], 100_ms); });
}

TEST(H6RedlockRestartWithoutPersistence, TheForgottenKeyLetsASecondWorkerWinAQuorumWhileTheFirstStillHasOne) {
  const History history = run_system(five_instances_two_workers(), restart_redis_2_at_one_second);
  const auto lost = history.first("lease.lost", "redis-2");
  ASSERT_TRUE(lost);
  EXPECT_EQ((*lost)["owner"], "worker-1");
  EXPECT_EQ((*lost)["reason"], "restart");
  EXPECT_EQ(time_of(*lost), 1100 * kSecondNs / 1000);
  const auto second_hold = history.first("acquire.ok", "worker-2");
  ASSERT_TRUE(second_hold);
  const auto first_grant = history.first("lease.grant", "redis-2", [](const Event& e) { return e["owner"] == "worker-1"; });
  ASSERT_TRUE(first_grant);
  EXPECT_LT(time_of(*second_hold), time_of(*first_grant) + 10 * kSecondNs);
  // A double grant in the quorum sense: three instances promise each worker.
  EXPECT_EQ(instances_promising(history, "worker-1", time_of(*second_hold)), 3);
  EXPECT_EQ(instances_promising(history, "worker-2", time_of(*second_hold)), 3);
  EXPECT_GT(history.overlapping_holds(), 0);
}

TEST(H6RedlockRestartWithoutPersistence, ARestartDelayedPastTheTtlKeepsTheLockUnavailableInsteadOfGrantingItTwice) {
  SystemOptions options = five_instances_two_workers();
  options.service.delayed_restart = 15_s;
  const History history = run_system(options, restart_redis_2_at_one_second);
  ASSERT_TRUE(history.first("lease.lost", "redis-2"));  // it still forgot the key…
  const auto back_at = history.first("restart", "redis-2");
  ASSERT_TRUE(back_at);
  // …but voted for nobody until worker-1's lease had long run out.
  const auto regrant = history.first("lease.grant", "redis-2", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(regrant);
  EXPECT_GE(time_of(*regrant), time_of(*back_at) + 15 * kSecondNs);
  const auto first_grant = history.first("lease.grant", "redis-2", [](const Event& e) { return e["owner"] == "worker-1"; });
  const auto second_hold = history.first("acquire.ok", "worker-2");
  ASSERT_TRUE(first_grant && second_hold);
  EXPECT_GT(time_of(*second_hold), time_of(*first_grant) + 10 * kSecondNs);
  EXPECT_EQ(history.overlapping_holds(), 0);
  // Unavailable meanwhile: worker-1 gave the lock up at ~5.5 s, yet worker-2,
  // which reaches only C, D and E, kept failing until C came back.
  const auto released_at = history.first("hold.end", "worker-1");
  ASSERT_TRUE(released_at);
  const auto failed_after_release = history.first("acquire.fail", "worker-2", [&](const Event& e) {
    return time_of(e) > time_of(*released_at) + 5 * kSecondNs;
  });
  ASSERT_TRUE(failed_after_release);
  EXPECT_EQ((*failed_after_release)["reason"], "no-quorum");
  EXPECT_EQ(history.final_values()["qty"], 2);
}

// --- H14: the acquire replies are handled late ----------------------------------------------

// worker-1's requests have left; it freezes for 12 s while the replies wait.
void pause_worker_1_before_the_replies(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kAcquireInvoke, 1, 500_us,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 12_s); });
}

TEST(H14RedlockReplyHandledLate, RecheckingTheElapsedTimeTurnsTheLateQuorumIntoAFailure) {
  SystemOptions options = five_instances_two_workers();
  options.service.recheck_elapsed = true;
  const History history = run_system(options, pause_worker_1_before_the_replies);
  // Every instance granted worker-1 its key, and expired it during the pause.
  EXPECT_EQ(history.count("lease.expire"), 5u);
  const auto failed = history.first("acquire.fail", "worker-1");
  ASSERT_TRUE(failed);
  EXPECT_EQ((*failed)["reason"], "validity-elapsed");
  EXPECT_GE(time_of(*failed), 12 * kSecondNs);
  const auto first_acquired = history.first("acquire.ok", "worker-1");
  ASSERT_TRUE(first_acquired);
  EXPECT_GT(time_of(*first_acquired), time_of(*failed));
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_EQ(history.final_values()["qty"], 2);
}

TEST(H14RedlockReplyHandledLate, SkippingTheElapsedCheckHoldsAnExpiredLeaseAlongsideTheNextHolder) {
  SystemOptions options = five_instances_two_workers();
  options.service.recheck_elapsed = false;
  const History history = run_system(options, pause_worker_1_before_the_replies);
  EXPECT_EQ(history.count("lease.expire"), 5u);
  const auto second_hold = history.first("acquire.ok", "worker-2");
  const auto late_hold = history.first("acquire.ok", "worker-1");
  ASSERT_TRUE(second_hold && late_hold);
  EXPECT_LT(time_of(*second_hold), time_of(*late_hold));  // worker-2 took the expired keys first
  EXPECT_GE(time_of(*late_hold), 12 * kSecondNs);
  EXPECT_EQ(history.count("acquire.fail", "worker-1"), 0u);
  // At that moment no instance promised worker-1 anything: its lease was dead on arrival.
  EXPECT_EQ(instances_promising(history, "worker-1", time_of(*late_hold)), 0);
  EXPECT_GT(history.overlapping_holds(), 0);
  // Its own clock tells it so only at the end of the hold.
  EXPECT_EQ(history.first("hold.end", "worker-1")->at("reason"), "expired");
  EXPECT_EQ(history.final_values()["qty"], 1);  // both read 0: worker-2's update is lost
}

// --- H27: split vote ---------------------------------------------------------------------

// Three workers start at the same instant; replies take 1–10 ms, so the five
// instances see the three requests in different orders.
SystemOptions three_workers_racing(sim::Distribution retry) {
  SystemOptions options = five_instances_two_workers();
  options.workers.count = 3;
  options.workers.work = sim::Distribution::constant(100_ms);
  options.workers.retry = retry;
  options.workload = CounterWorkload{"qty", 1};
  return options;
}

testing::RunSettings jittery_network(std::uint64_t seed) {
  testing::RunSettings settings;
  settings.seed = seed;
  settings.network.delay = sim::Distribution::uniform(1_ms, 10_ms);
  return settings;
}

// Seed 18: of seeds 1–30, 9 split the first (simultaneous) round; in this one
// the split also repeats twice when every worker retries after a fixed 200 ms.
constexpr std::uint64_t kSplitVoteSeed = 18;

TEST(H27RedlockSplitVote, ThreeWorkersStartingTogetherCanSplitTheFiveVotesSoNobodyWins) {
  const History history =
      run_system(three_workers_racing(sim::Distribution::constant(200_ms)), {}, jittery_network(kSplitVoteSeed));
  // Every instance voted for somebody in the first round…
  std::map<std::string, int> first_round_votes;
  const std::int64_t first_failure_ns = time_of(*history.first("acquire.fail"));
  for (const Event& grant : history.all("lease.grant")) {
    if (time_of(grant) < first_failure_ns) ++first_round_votes[grant["owner"]];
  }
  EXPECT_EQ(first_round_votes.size(), 3u);
  int votes = 0;
  for (const auto& [owner, count] : first_round_votes) {
    EXPECT_LT(count, 3) << owner;
    votes += count;
  }
  EXPECT_EQ(votes, 5);
  // …and all three attempts failed for want of a majority.
  for (const char* worker : {"worker-1", "worker-2", "worker-3"}) {
    const std::vector<Event> attempts = history.all("acquire.invoke", worker);
    const auto first_result = history.first(
        "acquire.fail", worker, [&](const Event& e) { return time_of(e) < time_of(attempts.at(1)); });
    ASSERT_TRUE(first_result) << worker;
    EXPECT_EQ((*first_result)["reason"], "no-quorum");
  }
  EXPECT_EQ(history.overlapping_holds(), 0);  // a liveness problem, never a safety one
}

TEST(H27RedlockSplitVote, WithoutRetryJitterTheSplitRepeatsAndTheLockStaysUnheldLonger) {
  const History fixed =
      run_system(three_workers_racing(sim::Distribution::constant(200_ms)), {}, jittery_network(kSplitVoteSeed));
  const History jittered =
      run_system(three_workers_racing(sim::Distribution::uniform(50_ms, 500_ms)), {}, jittery_network(kSplitVoteSeed));
  // The same first round splits in both (3 failures while nobody had a quorum);
  // retrying in lockstep splits it again, retrying after a random wait does not.
  EXPECT_GE(split_votes(fixed, 3), 6);
  EXPECT_EQ(split_votes(jittered, 3), 3);
  EXPECT_GT(time_of(*fixed.first("hold.begin")), time_of(*jittered.first("hold.begin")) + 400'000'000);
  EXPECT_EQ(fixed.final_values()["qty"], 3);
  EXPECT_EQ(jittered.final_values()["qty"], 3);
}

// --- determinism --------------------------------------------------------------------------

TEST(RedlockDeterminism, TheSameSeedGivesTheSameHistoryEventForEvent) {
  const SystemOptions options = three_workers_racing(sim::Distribution::uniform(50_ms, 500_ms));
  for (const std::uint64_t seed : {kSplitVoteSeed, std::uint64_t{7}}) {
    const History first = run_system(options, {}, jittery_network(seed));
    const History second = run_system(options, {}, jittery_network(seed));
    EXPECT_EQ(first.events, second.events) << "seed " << seed;
  }
  EXPECT_NE(run_system(options, {}, jittery_network(1)).events, run_system(options, {}, jittery_network(2)).events);
}

}  // namespace
}  // namespace locksim::model
