// Properties of the models that must hold for every generated setup.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::History;
using testing::run_system;

// With no faults and a lease far longer than any job, a Redis lock with
// SET NX PX and compare-and-delete never lets two workers hold at once.
RC_GTEST_PROP(RedisLockProperties, WithoutFaultsAndWithLeasesFarLongerThanWorkNoTwoWorkersHold, ()) {
  SystemOptions options;
  options.lock.lease = 60_s;
  options.workers.count = *rc::gen::inRange(2, 6);
  options.workers.work = sim::Distribution::uniform(Duration::milliseconds(*rc::gen::inRange(0, 50)), 1_s);
  options.workers.retry = sim::Distribution::uniform(1_ms, Duration::milliseconds(*rc::gen::inRange(2, 300)));
  options.workers.between = sim::Distribution::exponential(Duration::milliseconds(*rc::gen::inRange(1, 200)));
  options.workload = CounterWorkload{"qty", *rc::gen::inRange(1, 6)};
  testing::RunSettings settings;
  settings.seed = *rc::gen::arbitrary<std::uint64_t>();
  settings.network.delay = sim::Distribution::log_normal(1_ms, Duration::milliseconds(*rc::gen::inRange(1, 100)));
  const History history = run_system(options, {}, settings);
  RC_ASSERT(history.overlapping_holds() == 0);
  RC_ASSERT(history.stale_accepts().empty());
  // And no update is lost: every job's increment survives.
  const int jobs = options.workers.count * std::get<CounterWorkload>(options.workload).jobs;
  RC_ASSERT(history.final_values()["qty"] == jobs);
}

std::uint64_t history_hash(std::uint64_t seed) {
  SystemOptions options;
  options.workers.count = 3;
  options.lock.lease = 2_s;
  options.workers.work = sim::Distribution::log_normal(300_ms, 3_s);
  options.workers.renew = RenewMethod::kWatchdog;
  options.service.kind = ServiceKind::kRedisFailover;
  options.storage.fencing = Fencing::kOn;
  options.workload = CounterWorkload{"qty", 4};
  testing::RunSettings settings;
  settings.seed = seed;
  settings.network.delay = sim::Distribution::log_normal(1_ms, 50_ms);
  settings.network.drop_probability = 0.01;
  const History history = run_system(
      options,
      [](Nemesis& nemesis, System& system) {
        nemesis.at(sim::Time{} + 1_s, [&nemesis, &system] { nemesis.pause(system.worker_node(2), 3_s); });
        nemesis.at(sim::Time{} + 2_s, [&nemesis] { nemesis.failover(); });
      },
      settings);
  // A hash of the whole history text, independent of the kernel's own hash.
  std::string text;
  for (const testing::Event& event : history.events) text += event.dump() + "\n";
  return std::hash<std::string>{}(text);
}

TEST(ModelDeterminism, AWholeSystemRunReplaysByteForByte) {
  EXPECT_EQ(history_hash(7), history_hash(7));
  EXPECT_NE(history_hash(7), history_hash(8));
}

}  // namespace
}  // namespace locksim::model
