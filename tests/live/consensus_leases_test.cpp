// The consensus service's events derived from a live run against etcd
// (live/consensus_leases.h): the lowest create revision is granted; the
// holder's key deleted is a release when its owner began to release it (or
// gave the acquisition up) and an expiry otherwise; an owner that heard of
// its grant first moves the grant, and the end before it, back; a new Raft
// term adopts the holder's lease with TTL + election timeout at its leader.
#include "live/consensus_leases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>


namespace locksim::live {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kTtl = 10'000;
constexpr std::int64_t kElection = 1'000;

ConsensusKeyChange put(std::int64_t t, const std::string& owner, std::int64_t revision, std::uint64_t term = 2) {
  return {t, term, false, "lock/" + owner, owner, revision, revision};
}
ConsensusKeyChange deleted(std::int64_t t, const std::string& owner, std::int64_t revision, std::uint64_t term = 2) {
  return {t, term, true, "lock/" + owner, "", 0, revision};
}

Json line(std::int64_t t, const std::string& proc, const std::string& event, const std::string& call, Json fields = Json::object()) {
  Json made{{"t", t}, {"proc", proc}, {"ev", event}, {"call", call}};
  for (auto& [key, value] : fields.items()) made[key] = value;
  return made;
}

std::vector<Json> derived(const std::vector<ConsensusKeyChange>& changes, const std::vector<Json>& worker_lines,
                          const std::vector<ConsensusLeadership>& leaderships = {{0, 2, 0}}, std::size_t members = 3) {
  return consensus_leases(changes, leaderships, worker_lines, {"lock", members, kTtl, kElection});
}

std::vector<std::string> events_of(const std::vector<Json>& lines) {
  std::vector<std::string> events;
  for (const Json& made : lines) events.push_back(made["ev"].get<std::string>() + "@" + std::to_string(made["t"].get<std::int64_t>()));
  return events;
}

TEST(ConsensusLeases, TheLowestKeyIsGrantedAndAnExpiredHoldersKeyHandsTheLockToTheNext) {
  const std::vector<Json> lines = derived({put(10, "worker-1", 2), put(20, "worker-2", 3), deleted(10'500, "worker-1", 4)}, {});
  EXPECT_EQ(events_of(lines), (std::vector<std::string>{"lease.grant@10", "lease.expire@10500", "lease.grant@10500"}));
  EXPECT_EQ(lines[0]["owner"], "worker-1");
  EXPECT_EQ(lines[0]["token"], 2);
  EXPECT_EQ(lines[0]["lease_ns"], kTtl);
  EXPECT_EQ(lines[0]["proc"], "consensus-0");
  EXPECT_EQ(lines[2]["owner"], "worker-2");
  EXPECT_EQ(lines[2]["token"], 3);
}

TEST(ConsensusLeases, AKeyDeletedAfterItsOwnerBeganToReleaseItIsAReleaseByTheOwner) {
  const std::vector<Json> lines = derived({put(10, "worker-1", 2), deleted(600, "worker-1", 3)},
                                          {line(590, "worker-1", "release.invoke", "c1", {{"token", 2}})});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1]["ev"], "lease.release");
  EXPECT_EQ(lines[1]["by"], "worker-1");
  // A release begun only after the key was gone found the session expired.
  const std::vector<Json> late = derived({put(10, "worker-1", 2), deleted(600, "worker-1", 3)},
                                         {line(700, "worker-1", "release.invoke", "c1", {{"token", 2}})});
  EXPECT_EQ(late[1]["ev"], "lease.expire");
}

TEST(ConsensusLeases, AGivenUpAcquisitionsKeyIsItsOwnersReleaseUnlessItsSessionHadExpired) {
  const std::vector<Json> given_up = {line(5, "worker-1", "acquire.invoke", "a1"),
                                      line(900, "worker-1", "acquire.fail", "a1", {{"reason", "timeout"}})};
  EXPECT_EQ(derived({put(10, "worker-1", 2), deleted(880, "worker-1", 3)}, given_up)[1]["ev"], "lease.release");
  const std::vector<Json> expired = {line(5, "worker-1", "acquire.invoke", "a1"),
                                     line(900, "worker-1", "acquire.fail", "a1", {{"reason", "session-expired"}})};
  EXPECT_EQ(derived({put(10, "worker-1", 2), deleted(880, "worker-1", 3)}, expired)[1]["ev"], "lease.expire");
}

TEST(ConsensusLeases, AnOwnerThatHeardOfItsGrantFirstMovesTheGrantAndThePreviousEndBack) {
  const std::vector<Json> lines = derived({put(10, "worker-1", 2), put(20, "worker-2", 3), deleted(10'500, "worker-1", 4)},
                                          {line(10'490, "worker-2", "acquire.ok", "a2", {{"token", 3}})});
  EXPECT_EQ(events_of(lines), (std::vector<std::string>{"lease.grant@10", "lease.expire@10490", "lease.grant@10490"}));
}

TEST(ConsensusLeases, ANewTermAdoptsTheHoldersLeaseAtItsLeaderAndLaterLinesAreItsLeaders) {
  const std::vector<ConsensusLeadership> leaderships{{0, 2, 0}, {3'000, 3, 2}};
  const std::vector<Json> lines =
      derived({put(10, "worker-1", 2, 2), deleted(8'000, "worker-1", 3, 3)},
              {line(5, "worker-1", "acquire.invoke", "a1"), line(12, "worker-1", "acquire.ok", "a1", {{"token", 2}}),
               line(4'000, "worker-1", "renew.invoke", "r1", {{"token", 2}}), line(4'010, "worker-1", "renew.ok", "r1", {{"token", 2}}),
               line(7'990, "worker-1", "release.invoke", "c1", {{"token", 2}})},
              leaderships);
  EXPECT_EQ(events_of(lines),
            (std::vector<std::string>{"lease.grant@10", "lease.adopt@3000", "lease.renew@4000", "lease.release@8000"}));
  EXPECT_EQ(lines[0]["proc"], "consensus-0");
  EXPECT_EQ(lines[1]["proc"], "consensus-2");
  EXPECT_EQ(lines[1]["lease_ns"], kTtl + kElection);
  EXPECT_EQ(lines[2]["proc"], "consensus-2");
  EXPECT_EQ(lines[3]["proc"], "consensus-2");
}

TEST(ConsensusLeases, AWatchMessageOfANewTermPlacesTheTakeOverBeforeAnyStatusSawIt) {
  // The new leader (member 1) was seen by a status question only after it had already committed a release.
  const std::vector<ConsensusLeadership> leaderships{{0, 2, 0}, {5'000, 3, 1}};
  const std::vector<Json> lines = derived({put(10, "worker-1", 2, 2), deleted(4'000, "worker-1", 3, 3)},
                                          {line(3'900, "worker-1", "release.invoke", "c1", {{"token", 2}})}, leaderships);
  EXPECT_EQ(events_of(lines), (std::vector<std::string>{"lease.grant@10", "lease.adopt@4000", "lease.release@4000"}));
  EXPECT_EQ(lines[2]["proc"], "consensus-1");
}

TEST(ConsensusLeases, ASingleNodeIsConsensusAndAWaitersKeyDeletedChangesNoGrant) {
  const std::vector<Json> lines = derived({put(10, "worker-1", 2), put(20, "worker-2", 3), deleted(30, "worker-2", 4)}, {},
                                          {}, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["proc"], "consensus");
  EXPECT_EQ(lines[0]["owner"], "worker-1");
}

TEST(ConsensusLeases, ARenewalCountsOnlyWhileItsGrantLasts) {
  const std::vector<Json> lines =
      derived({put(10, "worker-1", 2), deleted(10'100, "worker-1", 3)},
              {line(3'000, "worker-1", "renew.invoke", "r1", {{"token", 2}}), line(3'005, "worker-1", "renew.ok", "r1", {{"token", 2}}),
               line(10'200, "worker-1", "renew.invoke", "r2", {{"token", 2}}), line(10'205, "worker-1", "renew.ok", "r2", {{"token", 2}})});
  EXPECT_EQ(events_of(lines), (std::vector<std::string>{"lease.grant@10", "lease.renew@3000", "lease.expire@10100"}));
}

}  // namespace
}  // namespace locksim::live
