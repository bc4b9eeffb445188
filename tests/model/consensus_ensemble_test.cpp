// The `consensus` service as an ensemble (service.nodes 3): leadership moves,
// sessions do not. Pausing, cutting off or losing the leader costs an
// election (1 to 2 s), and the new leader's lessor gives every session its
// full TTL plus the election timeout; only a holder that itself stops
// keeping its session alive loses it, and the revision fences its late write.
#include <gtest/gtest.h>

#include <string>

#include "model/consensus_member.h"
#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::at_ns;
using testing::run_system;

sim::Time after_start(sim::Duration length) { return sim::Time::from_ns(length.count_ns()); }
std::int64_t nanos(sim::Duration length) { return length.count_ns(); }

// Three members; two workers that keep a 10 s session alive every 3 s and
// work 15 s, one job each.
SystemOptions ensemble_of_three() {
  SystemOptions options = testing::two_workers_one_job();
  options.service.kind = ServiceKind::kConsensus;
  options.service.nodes = 3;
  options.workers.renew = RenewMethod::kWatchdog;
  options.workers.renew_every = 3_s;
  options.workers.work = sim::Distribution::constant(15_s);
  return options;
}

sim::NodeId member(System& system, int index) { return *system.find_node(consensus_member_name(index)); }

bool nothing_overlaps(const History& history) {
  const History::PromiseCheck promises = history.promises();
  return history.overlapping_holds() == 0 && promises.double_grants == 0 && promises.ended_twice == 0 &&
         promises.adopted_unknown == 0 && history.stale_accepts().empty();
}

TEST(ConsensusEnsemble, TheRunBeginsWithConsensus0LeadingAndGrantingAtOnce) {
  const History history = run_system(ensemble_of_three());
  const auto grant = history.first("lease.grant");
  ASSERT_TRUE(grant);
  EXPECT_EQ((*grant)["proc"], "consensus-0");
  EXPECT_LT((*grant)["t"], nanos(10_ms)) << "the first contender's key is committed in one round trip";
  EXPECT_EQ(history.count("lease.adopt"), 0u) << "no election in a quiet run";
  EXPECT_EQ(history.final_values()["qty"], 2);
  EXPECT_TRUE(nothing_overlaps(history));
}

TEST(ConsensusEnsemble, PausingTheLeaderPastTheTtlMovesLeadershipAndEndsNoSession) {
  const History history = run_system(ensemble_of_three(), [](Nemesis& nemesis, System& system) {
    nemesis.at(after_start(2_s), [&nemesis, &system] { nemesis.pause(member(system, 0), 15_s); });
  });
  const auto adopted = history.first("lease.adopt");
  ASSERT_TRUE(adopted);
  EXPECT_NE((*adopted)["proc"], "consensus-0");
  EXPECT_EQ((*adopted)["owner"], "worker-1");
  // An election timeout (1 s) with no heartbeat, randomized up to twice that, and a vote.
  EXPECT_GE((*adopted)["t"], nanos(2_s + 900_ms));
  EXPECT_LE((*adopted)["t"], nanos(2_s + 4_s));
  EXPECT_EQ((*adopted)["lease_ns"], nanos(11_s)) << "Promote: the full TTL plus the election timeout";
  // The holder's keep-alives reach the new leader through the other members.
  EXPECT_TRUE(history.first("lease.renew", (*adopted)["proc"]));
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 2);
  EXPECT_TRUE(nothing_overlaps(history));
}

TEST(ConsensusEnsemble, CrashingTheLeaderMovesLeadershipAndEndsNoSession) {
  const History history = run_system(ensemble_of_three(), [](Nemesis& nemesis, System& system) {
    nemesis.at(after_start(2_s), [&nemesis, &system] { nemesis.crash(member(system, 0), 20_s); });
  });
  ASSERT_TRUE(history.first("lease.adopt"));
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_EQ(history.final_values()["qty"], 2);
  EXPECT_TRUE(nothing_overlaps(history));
}

TEST(ConsensusEnsemble, ALeaderCutOffFromItsFollowersIsReplacedWithoutTwoLeadersGranting) {
  const History history = run_system(ensemble_of_three(), [](Nemesis& nemesis, System& system) {
    nemesis.at(after_start(2_s), [&nemesis, &system] {
      nemesis.partition({member(system, 0)}, {member(system, 1), member(system, 2)}, 10_s);
    });
  });
  const auto adopted = history.first("lease.adopt");
  ASSERT_TRUE(adopted);
  EXPECT_NE((*adopted)["proc"], "consensus-0");
  // The cut-off leader commits nothing: no grant, release or expiry of its own from the cut on.
  for (const char* ended : {"lease.grant", "lease.release", "lease.expire"}) {
    EXPECT_FALSE(history.first(ended, "consensus-0", [](const Event& e) { return e["t"] >= nanos(2_s); })) << ended;
  }
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_TRUE(nothing_overlaps(history));
}

TEST(ConsensusEnsemble, WithoutAQuorumNothingIsGrantedOrEndedUntilItIsBack) {
  SystemOptions options = ensemble_of_three();
  options.workers.work = sim::Distribution::constant(30_s);
  const History history = run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.at(after_start(2_s), [&nemesis, &system] {
      nemesis.crash(member(system, 1), 23_s);
      nemesis.crash(member(system, 2), 23_s);
    });
  });
  // From the crashes to the restarts (longer than the TTL): no grant, no expiry.
  for (const char* changed : {"lease.grant", "lease.expire", "lease.release"}) {
    EXPECT_FALSE(history.first(changed, "", [](const Event& e) { return e["t"] >= nanos(2_s) && e["t"] < nanos(25_s); }))
        << changed;
  }
  // The quorum back, a leader promotes worker-1's session: it was never lost.
  const auto adopted = history.first("lease.adopt", "", [](const Event& e) { return e["t"] >= nanos(25_s); });
  ASSERT_TRUE(adopted);
  EXPECT_EQ((*adopted)["owner"], "worker-1");
  EXPECT_EQ(history.count("lease.expire"), 0u);
  EXPECT_TRUE(nothing_overlaps(history));
}

History holder_frozen_before_its_write(Fencing fencing) {
  SystemOptions options = ensemble_of_three();
  options.workers.work = sim::Distribution::constant(1_s);
  options.storage.fencing = fencing;
  return run_system(options, [](Nemesis& nemesis, System& system) {
    nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                        [&nemesis, &system] { nemesis.pause(system.worker_node(1), 15_s); });
  });
}

TEST(ConsensusEnsemble, AHolderFrozenPastItsTtlLosesItsSessionAtTheLessorsNextLook) {
  const History history = holder_frozen_before_its_write(Fencing::kOff);
  const auto grant = history.first("lease.grant", "consensus-0");
  const auto expired = history.first("lease.expire", "consensus-0");
  ASSERT_TRUE(grant && expired);
  EXPECT_EQ((*expired)["owner"], "worker-1");
  // Its last keep-alive was its grant; the lessor looks every 500 ms, and the revocation takes a round trip.
  EXPECT_GE(testing::at_ns(*expired) - testing::at_ns(*grant), nanos(10_s));
  EXPECT_LE(testing::at_ns(*expired) - testing::at_ns(*grant), nanos(10_s + 510_ms));
  const auto next = history.first("lease.grant", "consensus-0", [](const Event& e) { return e["owner"] == "worker-2"; });
  ASSERT_TRUE(next);
  EXPECT_GT((*next)["token"], (*grant)["token"]);
  // Without fencing the frozen holder's write lands after worker-2's grant.
  const auto stale = history.stale_accepts();
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_EQ(stale[0]["writer"], "worker-1");
  EXPECT_GE(history.overlapping_holds(), 1);
}

TEST(ConsensusEnsemble, TheRevisionFencesTheFrozenHoldersLateWrite) {
  const History history = holder_frozen_before_its_write(Fencing::kOn);
  const auto rejected = history.first("write.reject", "storage");
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["writer"], "worker-1");
  EXPECT_TRUE(history.stale_accepts().empty());
}

TEST(ConsensusEnsemble, TheLeaderTargetStrikesWhoeverLeadsWhenTheFaultStrikes) {
  const History history = run_system(ensemble_of_three(), [](Nemesis& nemesis, System&) {
    BoundFault pause{std::nullopt, 5_s, faults::Pause{}, true};
    nemesis.at(after_start(2_s), [&nemesis, pause] { nemesis.apply(pause); });
    BoundFault second{std::nullopt, 1_s, faults::Pause{}, true};
    nemesis.at(after_start(12_s), [&nemesis, second] { nemesis.apply(second); });
  });
  const auto pauses = history.all("fault.begin");
  ASSERT_EQ(pauses.size(), 2u);
  EXPECT_EQ(pauses[0]["target"], "consensus-0");
  const auto adopted = history.first("lease.adopt");
  ASSERT_TRUE(adopted);
  EXPECT_EQ(pauses[1]["target"], (*adopted)["proc"]) << "the second pause finds the leader elected meanwhile";
}

TEST(ConsensusEnsemble, EtcdsShortestLeaseIsOneAndAHalfElectionTimeoutsRoundedUpToSeconds) {
  EXPECT_EQ(etcd_min_lease_ttl(100_ms, 1000_ms), 2_s);  // etcd's defaults: 1.5 s, so 2 s
  EXPECT_EQ(etcd_min_lease_ttl(100_ms, 500_ms), 1_s);   // 5 ticks: 7 heartbeats, 0.7 s
  EXPECT_EQ(etcd_min_lease_ttl(250_ms, 2500_ms), 4_s);  // 15 heartbeats of 250 ms: 3.75 s
}

// etcd 3.4.23's #15247: the leader frozen 7 s while worker-1 keeps its 5 s
// session alive through the others. In the seeds where the old leader's
// lessor wins the race as it steps down, its stale deadlines revoke the
// session (at its resume, through the new leader); in the rest nothing ends.
// Over 200 seeds the race is won at about the measured 1 in 6 (of the wakes
// that hear of the new leader by its append).
TEST(ConsensusEnsemble, AResumedLeadersStaleLessorSometimesRevokesASessionKeptAlive) {
  SystemOptions options = ensemble_of_three();
  options.lock.lease = 5_s;
  options.workers.renew_every.reset();
  int revoked = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    const History history = run_system(
        options,
        [](Nemesis& nemesis, System& system) {
          nemesis.at(after_start(2_s), [&nemesis, &system] { nemesis.pause(member(system, 0), 7_s); });
        },
        {.seed = seed});
    ASSERT_TRUE(history.first("lease.adopt")) << "seed " << seed;
    const std::vector<Event> expired = history.all("lease.expire");
    const std::vector<Event> worker_1 = [&] {
      std::vector<Event> found;
      for (const Event& event : expired) {
        if (event["owner"] == "worker-1") found.push_back(event);
      }
      return found;
    }();
    if (worker_1.empty()) {
      EXPECT_EQ(history.final_values()["qty"], 2) << "seed " << seed;
      continue;
    }
    ++revoked;
    // Only as the old leader wakes (9 s): the new leader kept the session alive until then.
    EXPECT_GE(at_ns(worker_1[0]), nanos(9_s)) << "seed " << seed;
    EXPECT_LT(at_ns(worker_1[0]), nanos(9_s + 100_ms)) << "seed " << seed;
    EXPECT_NE(worker_1[0]["proc"], "consensus-0") << "the new leader commits the revocation";
  }
  EXPECT_GE(revoked, 15) << "about 1 in 6 of 200";
  EXPECT_LE(revoked, 45);
}

}  // namespace
}  // namespace locksim::model
