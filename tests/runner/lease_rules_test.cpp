// Issue 24's verdict rules, held by the checker and the oracle alike — each
// sees the same records, one as history text, the other as model records:
// - a hold without hold.end ends at its last acquire or renew invoke plus the lease;
// - a crashed instance's promises end at their deadlines;
// - fencing tokens strictly increase from holder to holder (token_order).
// The property generates holds with known tokens and leases and compares both
// witnesses with the count the rule gives.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checker/history_checker.h"
#include "runner/oracle.h"
#include "vocabulary/event_kind.h"

namespace locksim::runner {
namespace {

using checker::ViolationKind;
using sim::Duration;
using sim::Field;

constexpr std::int64_t kMs = 1'000'000;

// One record, kept for both witnesses.
struct Record {
  std::int64_t t = 0;
  std::string proc;
  std::string ev;
  nlohmann::ordered_json fields = nlohmann::ordered_json::object();
};

struct BothCounts {
  std::int64_t checker = 0;
  std::int64_t oracle = 0;
  std::int64_t checker_incidents = 0;
  std::int64_t oracle_incidents = 0;
};

BothCounts count_both(const std::vector<Record>& records, ViolationKind kind, int quorum = 1) {
  std::string text;
  Oracle oracle{OracleSetup{quorum, Duration::seconds(1000), OracleSetup::Workload::kCounter, "qty"}};
  for (std::size_t index = 0; index < records.size(); ++index) {
    const Record& record = records[index];
    nlohmann::ordered_json line{{"i", index}, {"t", record.t}, {"proc", record.proc}, {"ev", record.ev}};
    std::vector<std::string> texts;  // the oracle's fields view these
    texts.reserve(record.fields.size());
    std::vector<Field> fields;
    for (const auto& [key, value] : record.fields.items()) {
      line[key] = value;
      if (value.is_number_integer()) {
        fields.emplace_back(key, value.get<std::int64_t>());
      } else {
        texts.push_back(value.get<std::string>());
        fields.emplace_back(key, texts.back());
      }
    }
    text += line.dump() + "\n";
    oracle.observe(sim::Time{} + Duration::nanoseconds(record.t), record.proc,
                   vocabulary::event_kind_from_name(record.ev).value(), fields);
  }
  const checker::CheckOutcome outcome = checker::check_history_text(text, "lease-rules.jsonl", {});
  EXPECT_FALSE(outcome.error) << outcome.error->message() << "\n" << text;
  const OracleCounts counts = oracle.finish({});
  return BothCounts{outcome.verdict.violation_count(kind).value_or(-1), counts.of(kind),
                    outcome.verdict.incident_count(kind).value_or(-1), counts.incidents_of(kind)};
}

nlohmann::ordered_json lease(const std::string& owner, std::int64_t token, std::int64_t lease_ns) {
  return {{"lock", "lock"}, {"owner", owner}, {"token", token}, {"lease_ns", lease_ns}};
}

// redis-0 grants a 10 s lease at 1 ms and crashes at 0.5 s; redis-1 is
// promoted at `promoted_ms` and grants the lock to another owner 80 ms later.
std::vector<Record> crash_then_failover_at(std::int64_t promoted_ms) {
  return {
      {1 * kMs, "redis-0", "lease.grant", lease("worker-1", 1, 10'000 * kMs)},
      {500 * kMs, "redis-0", "crash", {}},
      {promoted_ms * kMs, "redis-1", "replica.promote", {}},
      {(promoted_ms + 80) * kMs, "redis-1", "lease.grant", lease("worker-2", 2, 10'000 * kMs)},
  };
}

TEST(LeaseRules, ALateFailoverAfterTheCrashedPrimarysLeaseRanOutIsNoDoubleGrant) {
  const BothCounts counts = count_both(crash_then_failover_at(31'500), ViolationKind::kDoubleGrant);
  EXPECT_EQ(counts.checker, 0);
  EXPECT_EQ(counts.oracle, 0);
}

TEST(LeaseRules, AFailoverBeforeTheCrashedPrimarysDeadlineIsADoubleGrant) {
  const BothCounts counts = count_both(crash_then_failover_at(9'000), ViolationKind::kDoubleGrant);
  EXPECT_EQ(counts.checker, 1);
  EXPECT_EQ(counts.oracle, 1);
}

TEST(LeaseRules, TheSameTokenToAnotherOwnerIsOneTokenOrderViolationToBoth) {
  const std::vector<Record> records{
      {0, "redis-0", "lease.grant", lease("worker-1", 4, 10'000 * kMs)},
      {10'000 * kMs, "redis-0", "lease.expire", {{"lock", "lock"}, {"owner", "worker-1"}, {"token", 4}}},
      {11'000 * kMs, "redis-0", "lease.grant", lease("worker-2", 4, 10'000 * kMs)},
  };
  const BothCounts counts = count_both(records, ViolationKind::kTokenOrder);
  EXPECT_EQ(counts.checker, 1);
  EXPECT_EQ(counts.oracle, 1);
}

// A random sequence of holds on one lock, none with hold.end: each is
// acquire.invoke at `invoke`, acquire.ok with a lease, hold.begin, maybe a
// renewal. Token = position, so token order always holds.
struct GeneratedHold {
  int worker = 1;
  std::int64_t invoke = 0;
  std::int64_t lease_ns = 0;
  std::optional<std::int64_t> renew_at;  // a renewal invoke, during the hold
};

std::vector<Record> records_of(const std::vector<GeneratedHold>& holds) {
  std::vector<Record> records;
  std::vector<std::tuple<std::int64_t, int, Record>> timed;  // (t, order, record): renewals interleave
  int order = 0;
  for (std::size_t index = 0; index < holds.size(); ++index) {
    const GeneratedHold& hold = holds[index];
    const std::string worker = fmt::format("worker-{}", hold.worker);
    const auto token = static_cast<std::int64_t>(index) + 1;
    timed.push_back({hold.invoke, order++, Record{hold.invoke, worker, "acquire.invoke", {{"lock", "lock"}}}});
    timed.push_back({hold.invoke + kMs, order++,
                     Record{hold.invoke + kMs, worker, "acquire.ok",
                            {{"lock", "lock"}, {"token", token}, {"lease_ns", hold.lease_ns}}}});
    timed.push_back({hold.invoke + kMs, order++,
                     Record{hold.invoke + kMs, worker, "hold.begin", {{"lock", "lock"}, {"token", token}}}});
    if (hold.renew_at) {
      timed.push_back({*hold.renew_at, order++,
                       Record{*hold.renew_at, worker, "renew.invoke", {{"lock", "lock"}, {"token", token}}}});
      timed.push_back({*hold.renew_at + kMs, order++,
                       Record{*hold.renew_at + kMs, worker, "renew.ok", {{"token", token}, {"lease_ns", hold.lease_ns}}}});
    }
  }
  std::stable_sort(timed.begin(), timed.end(), [](const auto& left, const auto& right) {
    return std::get<0>(left) != std::get<0>(right) ? std::get<0>(left) < std::get<0>(right)
                                                   : std::get<1>(left) < std::get<1>(right);
  });
  for (auto& [t, position, record] : timed) records.push_back(std::move(record));
  return records;
}

// The rule, written out: hold i ends at its lease (last invoke + lease) or at
// its worker's next hold.begin, whichever is first; hold j of another worker
// overlaps it iff j begins before that end.
std::int64_t overlapping_pairs(const std::vector<GeneratedHold>& holds) {
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    const std::int64_t begin_i = holds[i].invoke + kMs;
    std::int64_t replaced = INT64_MAX;
    for (std::size_t k = i + 1; k < holds.size(); ++k) {
      if (holds[k].worker == holds[i].worker) {
        replaced = holds[k].invoke + kMs;
        break;
      }
    }
    const std::int64_t lease_end = (holds[i].renew_at ? *holds[i].renew_at : holds[i].invoke) + holds[i].lease_ns;
    const std::int64_t end = std::min(replaced, lease_end);
    for (std::size_t j = i + 1; j < holds.size(); ++j) {
      const std::int64_t begin_j = holds[j].invoke + kMs;
      if (holds[j].worker != holds[i].worker && begin_j >= begin_i && begin_j < end) ++pairs;
    }
  }
  return pairs;
}

rc::Gen<std::vector<GeneratedHold>> holds_with_known_leases() {
  return rc::gen::exec([] {
    const auto count = *rc::gen::inRange<std::size_t>(1, 12);
    std::vector<GeneratedHold> holds;
    std::int64_t t = 0;
    for (std::size_t index = 0; index < count; ++index) {
      GeneratedHold hold;
      hold.worker = *rc::gen::inRange(1, 4);
      t += *rc::gen::inRange<std::int64_t>(2, 3'000) * kMs;
      hold.invoke = t;
      hold.lease_ns = *rc::gen::inRange<std::int64_t>(100, 2'500) * kMs;
      // A renewal invoked after the grant and before the lease ran out.
      if (*rc::gen::arbitrary<bool>()) hold.renew_at = t + 2 * kMs + *rc::gen::inRange<std::int64_t>(0, hold.lease_ns / kMs) * kMs;
      holds.push_back(hold);
    }
    // A worker renews only the lease of its current hold: no renewal after its next hold began.
    for (std::size_t i = 0; i < holds.size(); ++i) {
      for (std::size_t k = i + 1; k < holds.size(); ++k) {
        if (holds[k].worker != holds[i].worker) continue;
        if (holds[i].renew_at && *holds[i].renew_at + kMs >= holds[k].invoke) holds[i].renew_at.reset();
        break;
      }
    }
    return holds;
  });
}

RC_GTEST_PROP(LeaseRules, HoldsWithoutHoldEndEndWithTheirLeaseToTheCheckerAndTheOracleAlike, ()) {
  const std::vector<GeneratedHold> holds = *holds_with_known_leases();
  const std::vector<Record> records = records_of(holds);
  for (const Record& record : records) {
    RC_LOG() << record.t << " " << record.proc << " " << record.ev << " " << record.fields.dump() << "\n";
  }
  const BothCounts counts = count_both(records, ViolationKind::kDoubleHolder);
  const std::int64_t expected = overlapping_pairs(holds);
  RC_ASSERT(counts.checker == expected);
  RC_ASSERT(counts.oracle == expected);
  RC_ASSERT(counts.checker_incidents == counts.oracle_incidents);
  const BothCounts tokens = count_both(records, ViolationKind::kTokenOrder);
  RC_ASSERT(tokens.checker == 0);
  RC_ASSERT(tokens.oracle == 0);
}

}  // namespace
}  // namespace locksim::runner
