// The lock service's events derived from a user program's own lines
// (live/client_side_leases.h): each promise starts at the acquire.ok and
// ends no later than the real one could have (invoke + lease, or just after
// the release.invoke), so overlapping derived promises are a real double
// grant, and a renewal extends from its own invoke.
#include "live/client_side_leases.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/history_checker.h"
#include "live/live_history.h"

namespace locksim::live {
namespace {

using Json = nlohmann::json;

constexpr std::int64_t kLease = 1'000;

Json line(std::int64_t t, const std::string& proc, const std::string& event, const std::string& call = {},
          Json fields = Json::object()) {
  Json result{{"t", t}, {"proc", proc}, {"ev", event}};
  if (!call.empty()) result["call"] = call;
  for (auto& [key, value] : fields.items()) result[key] = value;
  return result;
}

std::vector<Json> derived(const std::vector<Json>& lines, std::int64_t end_ns = 100'000) {
  return client_side_leases(lines, ClientSideLeaseInputs{"lock", "redis-0", kLease, end_ns});
}

TEST(ClientSideLeases, AGrantStartsAtTheOkAndIsPromisedOnlyUntilTheInvokePlusTheLease) {
  const std::vector<Json> events = derived({line(100, "worker-1", "acquire.invoke", "w1/1", {{"lock", "lock"}}),
                                            line(300, "worker-1", "acquire.ok", "w1/1", {{"lock", "lock"}, {"token", 7}})});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["ev"], "lease.grant");
  EXPECT_EQ(events[0]["t"], 300);
  EXPECT_EQ(events[0]["lease_ns"], 100 + kLease - 300);
  EXPECT_EQ(events[0]["token"], 7);
  EXPECT_EQ(events[0]["owner"], "worker-1");
  EXPECT_EQ(events[1]["ev"], "lease.expire");
  EXPECT_EQ(events[1]["t"], 100 + kLease);
}

TEST(ClientSideLeases, AReleaseEndsItJustAfterItsInvokeAndARenewalExtendsFromItsInvoke) {
  const std::vector<Json> events = derived({
      line(0, "worker-1", "acquire.invoke", "w1/1", {{"lock", "lock"}}),
      line(10, "worker-1", "acquire.ok", "w1/1", {{"lock", "lock"}, {"token", 1}}),
      line(500, "worker-1", "renew.invoke", "w1/2", {{"lock", "lock"}, {"token", 1}}),
      line(520, "worker-1", "renew.ok", "w1/2", {{"token", 1}}),
      line(1'200, "worker-1", "release.invoke", "w1/3", {{"lock", "lock"}, {"token", 1}}),
      line(1'230, "worker-1", "release.ok", "w1/3"),
  });
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1]["ev"], "lease.renew");
  EXPECT_EQ(events[1]["t"], 520);
  EXPECT_EQ(events[1]["lease_ns"], 500 + kLease - 520);
  EXPECT_EQ(events[2]["ev"], "lease.release");
  EXPECT_EQ(events[2]["t"], 1'201);
  EXPECT_EQ(events[2]["by"], "worker-1");
}

TEST(ClientSideLeases, TwoOverlappingOksAreADoubleGrantAndBackToBackOnesAreNot) {
  const auto judged = [](const std::vector<Json>& worker_lines) {
    LiveRecords records;
    records.run_begin = nlohmann::ordered_json{{"scenario", "s"}, {"seed", 1}, {"fencing", false}, {"version", "0"}};
    records.worker_lines = worker_lines;
    records.lease_lines = derived(worker_lines, 5'000);
    records.lock_name = "lock";
    records.end_ns = 5'000;
    records.final_values = nlohmann::ordered_json::object();
    std::string text;
    for (const std::string& history_line : live_history(records)) text += history_line + "\n";
    const checker::CheckOutcome outcome = checker::check_history_text(text, "derived", checker::CheckOptions{});
    EXPECT_FALSE(outcome.error) << text;
    return outcome;
  };
  const auto grants = [](std::int64_t second_invoke, std::int64_t second_ok) {
    return std::vector<Json>{
        line(0, "worker-1", "acquire.invoke", "w1/1", {{"lock", "lock"}}),
        line(50, "worker-1", "acquire.ok", "w1/1", {{"lock", "lock"}, {"token", 1}}),
        line(second_invoke, "worker-2", "acquire.invoke", "w2/1", {{"lock", "lock"}}),
        line(second_ok, "worker-2", "acquire.ok", "w2/1", {{"lock", "lock"}, {"token", 2}}),
    };
  };
  // worker-2's ok at 600 while worker-1's promise runs to 0 + lease: a double grant.
  const checker::CheckOutcome overlapping = judged(grants(500, 600));
  EXPECT_GT(overlapping.verdict.violation_count(checker::ViolationKind::kDoubleGrant).value_or(0), 0);
  // worker-2 asked before worker-1's lease ran out but was told ok after it: no overlap can be proved.
  const checker::CheckOutcome after = judged(grants(900, 1'100));
  EXPECT_EQ(after.verdict.violation_count(checker::ViolationKind::kDoubleGrant).value_or(-1), 0);
}

}  // namespace
}  // namespace locksim::live
