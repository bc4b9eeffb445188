// A message's delay to storage may land just before or just after another
// worker's next storage access, as the run without the deviation made it
// (verify/landing.h): those values land where they say when nothing else
// moves, a replay finds them again, and they stay within the delays the
// link usually has.

#include "verify/landing.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "scenario/scenario_parser.h"
#include "tests/explore/explore_support.h"
#include "verify/verification.h"

namespace locksim::verify {
namespace {

// h01 on a network whose 99th percentile is 3 s: long enough a tail for a
// delay to reach the next holder's access.
scenario::Scenario h01_with_a_slow_tail() {
  nlohmann::json file = nlohmann::json::parse(explore::testing::builtin_text("h01-gc-pause-past-lease"));
  file["network"]["delay"] = {{"dist", "lognormal"}, {"median", "1ms"}, {"p99", "3s"}};
  return scenario::parse_scenario(file.dump(), "h01-slow-tail.json");
}

// When `worker` first reached storage after `after`.
std::optional<sim::Time> first_access(const VerifiedRun& run, std::string_view worker, sim::Time after) {
  for (const StorageAccess& access : run.storage_accesses) {
    if (access.at > after && access.worker == worker) return access.at;
  }
  return std::nullopt;
}

TEST(VerifyLanding, ADelayToStorageLandsOneMillisecondBeforeOrAfterTheOtherWorkersNextAccess) {
  const scenario::Scenario scenario = h01_with_a_slow_tail();
  const Bounds bounds;
  const VerifiedRun base = run_script(scenario, model::Fencing::kOn, {}, bounds);
  const Landings ahead = landings_ahead(base.points, base.storage_accesses, 0);

  // worker-1, woken from its pause past its lease, reaches storage while
  // another worker holds the lock: the race a landing is for.
  const auto late = std::find_if(ahead.begin(), ahead.end(), [&](const auto& entry) {
    return base.points[entry.first].to_storage->sender == "worker-1";
  });
  ASSERT_NE(late, ahead.end());
  const auto& [position, landing] = *late;
  const std::uint32_t size = domain_size(base.points, position, ahead, bounds.domain);
  ASSERT_EQ(size, base.points[position].domain_size + 2) << "one value lands before the access, one after";

  for (const auto& [index, expected_gap] : {std::pair{size - 2, -1}, std::pair{size - 1, +1}}) {
    std::vector<std::uint32_t> script(position, 0);
    script.push_back(index);
    const VerifiedRun made = run_script(scenario, model::Fencing::kOn, script, bounds, {}, {{position, landing}});
    const sim::Time drawn = made.points[position].at;
    const std::optional<sim::Time> mine = first_access(made, "worker-1", drawn);
    const std::optional<sim::Time> theirs = first_access(made, landing.whose, drawn);
    ASSERT_TRUE(mine && theirs);
    EXPECT_EQ(*mine - *theirs, sim::Duration::milliseconds(expected_gap)) << made.points[position].chosen;
    EXPECT_NE(made.points[position].chosen.find(expected_gap < 0 ? "lands 1ms before" : "lands 1ms after"),
              std::string::npos)
        << made.points[position].chosen;

    // Replay has only the script: it finds the landing again from the run before the deviation.
    EXPECT_EQ(rerun_script(scenario, model::Fencing::kOn, script, bounds).run.history_hash, made.run.history_hash);
  }
}

TEST(VerifyLanding, ALandingBeyondTheLinksUsualDelaysIsNotOffered) {
  // h01 as written: its links' 99th percentile is 20 ms, and no worker
  // reaches storage within 20 ms of another's send in its run.
  const scenario::Scenario scenario = explore::testing::builtin("h01-gc-pause-past-lease");
  const VerifiedRun base = run_script(scenario, model::Fencing::kOn, {}, Bounds{});
  const Landings ahead = landings_ahead(base.points, base.storage_accesses, 0);
  ASSERT_FALSE(ahead.empty());
  for (const auto& [position, landing] : ahead) {
    EXPECT_GT(landing.until, sim::Duration::milliseconds(21));
    EXPECT_EQ(domain_size(base.points, position, ahead, DomainOptions{}), base.points[position].domain_size);
  }
}

}  // namespace
}  // namespace locksim::verify
