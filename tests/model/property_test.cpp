// Properties of the models that must hold for every generated setup.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <optional>

#include "model_test_support.h"

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::History;
using testing::run_system;

// The setup of the property below, one value per generated parameter.
struct NoFaultSetup {
  int workers = 2;
  int work_ms_min = 0;    // work is uniform in [this, 1 s]
  int retry_ms_max = 2;   // retry is uniform in [1 ms, this]
  int between_ms = 1;     // mean of the exponential idle time
  int jobs = 1;           // per worker
  std::uint64_t seed = 1;
  // The network delay: lognormal with median 1 ms and this p99 (a tail with no
  // bound), or, when `delay_ms_max` is set, uniform in [100 µs, that].
  int delay_p99_ms = 1;
  std::optional<int> delay_ms_max;
};

History run_without_faults(const NoFaultSetup& setup) {
  SystemOptions options;
  options.lock.lease = 60_s;
  options.workers.count = setup.workers;
  options.workers.work = sim::Distribution::uniform(Duration::milliseconds(setup.work_ms_min), 1_s);
  options.workers.retry = sim::Distribution::uniform(1_ms, Duration::milliseconds(setup.retry_ms_max));
  options.workers.between = sim::Distribution::exponential(Duration::milliseconds(setup.between_ms));
  options.workload = CounterWorkload{"qty", setup.jobs};
  testing::RunSettings settings;
  settings.seed = setup.seed;
  settings.network.delay =
      setup.delay_ms_max ? sim::Distribution::uniform(100_us, Duration::milliseconds(*setup.delay_ms_max))
                         : sim::Distribution::log_normal(1_ms, Duration::milliseconds(setup.delay_p99_ms));
  return run_system(options, {}, settings);
}

std::int64_t final_counter(const History& history) { return history.final_values().value("qty", std::int64_t{0}); }

NoFaultSetup generated_setup() {
  NoFaultSetup setup;
  setup.workers = *rc::gen::inRange(2, 6);
  setup.work_ms_min = *rc::gen::inRange(0, 50);
  setup.retry_ms_max = *rc::gen::inRange(2, 300);
  setup.between_ms = *rc::gen::inRange(1, 200);
  setup.jobs = *rc::gen::inRange(1, 6);
  setup.seed = *rc::gen::arbitrary<std::uint64_t>();
  return setup;
}

void log_counts(const History& history, std::int64_t jobs) {
  RC_LOG() << "qty " << final_counter(history) << ", accepted writes " << history.count("write.accept") << ", jobs "
           << jobs << ", writes unanswered in time " << history.count("write.fail") << "\n";
}

// With no faults — and so no message slower than the 500 ms request timeout:
// every delay here is at most 100 ms — and a lease far longer than any job, a
// Redis lock with SET NX PX and compare-and-delete never lets two workers
// hold at once, and every job's increment lands exactly once.
RC_GTEST_PROP(RedisLockProperties, WithoutFaultsAndWithLeasesFarLongerThanWorkNoTwoWorkersHold, ()) {
  NoFaultSetup setup = generated_setup();
  setup.delay_ms_max = *rc::gen::inRange(1, 100);
  const History history = run_without_faults(setup);
  const std::int64_t jobs = setup.workers * setup.jobs;
  log_counts(history, jobs);
  RC_ASSERT(history.overlapping_holds() == 0);
  RC_ASSERT(history.stale_accepts().empty());
  RC_ASSERT(history.count("write.fail") == 0u);
  RC_ASSERT(final_counter(history) == jobs);
  RC_ASSERT(static_cast<std::int64_t>(history.count("write.accept")) == jobs);
}

// A lognormal network has no bound: now and then a message takes longer than
// the request timeout, which is a delay fault in all but name. A write accepted
// but answered too late is done again (a job counts twice, pinned below); a
// write delayed past the timeout lands after the next holder's (H2). Only the
// lock's own promise survives that: still no two workers hold at once.
RC_GTEST_PROP(RedisLockProperties, WithAHeavyTailedNetworkAndLeasesFarLongerThanWorkStillNoTwoWorkersHold, ()) {
  NoFaultSetup setup = generated_setup();
  setup.delay_p99_ms = *rc::gen::inRange(1, 100);
  const History history = run_without_faults(setup);
  log_counts(history, setup.workers * setup.jobs);
  RC_ASSERT(history.overlapping_holds() == 0);
}

// Pinned: RC_PARAMS="seed=16417562946744933642" shrank to this case, which
// once failed the property's old claim final == jobs. worker-2's write is
// accepted at 0.895 s but its answer is delayed past the 500 ms timeout; the
// worker counts the job as not done, takes the lock again, reads 2 and writes
// 3. The model is right (a retried non-idempotent write after an ambiguous
// timeout counts twice); the property claimed exactly-once without idempotency.
TEST(RedisLockRegression, AnAcceptedWriteWhoseAnswerTimesOutIsRedoneAndCountsTwice) {
  NoFaultSetup setup;
  setup.retry_ms_max = 115;
  setup.seed = 21587744075116030;
  setup.delay_p99_ms = 83;
  const History history = run_without_faults(setup);
  const auto unanswered = history.first("write.fail", "worker-2");
  ASSERT_TRUE(unanswered);
  EXPECT_EQ((*unanswered)["reason"], "timeout");
  EXPECT_EQ(history.count("write.accept"), 3u);
  EXPECT_EQ(final_counter(history), 3);
  EXPECT_EQ(history.overlapping_holds(), 0);
  EXPECT_TRUE(history.stale_accepts().empty());
}

// Pinned: the same seed, once the count was fixed, found this case: a write
// delayed on the network past the request timeout lands after the next
// holder's (H2 with no fault but the lognormal tail), and an update is lost.
TEST(RedisLockRegression, AWriteDelayedPastTheTimeoutLandsAfterTheNextHoldersWrite) {
  NoFaultSetup setup;
  setup.workers = 3;
  setup.work_ms_min = 4;
  setup.retry_ms_max = 17;
  setup.between_ms = 97;
  setup.jobs = 5;
  setup.seed = 341371433650902532;
  setup.delay_p99_ms = 71;
  const History history = run_without_faults(setup);
  EXPECT_FALSE(history.stale_accepts().empty());
  EXPECT_LT(final_counter(history), static_cast<std::int64_t>(history.count("write.accept")));
  EXPECT_EQ(history.overlapping_holds(), 0);
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
