// The write-only workload: a job writes its result with no read, so the harm
// a paused holder does is an older job's result written over a newer one.
#include <gtest/gtest.h>

#include "model_test_support.h"

#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::model {
namespace {

using namespace sim::literals;
using testing::Event;
using testing::History;
using testing::run_system;
using testing::two_workers_one_job;
using testing::with_fencing;

SystemOptions write_only(SystemOptions options, int jobs) {
  options.workload = WriteOnlyWorkload{"result", jobs};
  return options;
}

std::vector<std::string> events_of(const History& history, const std::string& proc) {
  std::vector<std::string> names;
  for (const Event& event : history.events) {
    if (event["proc"] == proc) names.push_back(event["ev"]);
  }
  return names;
}

TEST(WriteOnlyWorkload, OneJobAcquiresHoldsWritesItsNumberAndReleasesWithoutARead) {
  SystemOptions options = write_only(two_workers_one_job(), 1);
  options.workers.count = 1;
  const History history = run_system(options);
  EXPECT_EQ(events_of(history, "worker-1"),
            (std::vector<std::string>{"acquire.invoke", "acquire.ok", "hold.begin", "write.invoke", "write.ok",
                                      "hold.end", "release.invoke", "release.ok"}));
  const Event write = history.all("write.invoke", "worker-1").at(0);
  EXPECT_EQ(write["key"], "result");
  EXPECT_EQ(write["value"], 1);
  EXPECT_FALSE(write.contains("job"));  // a redone job writes the same result: no duplicate effect to track
  EXPECT_EQ(history.count("read.accept"), 0u);
  EXPECT_EQ(history.final_values()["result"], 1);
}

TEST(WriteOnlyWorkload, EachJobWritesItsOwnNumberToTheSharedKey) {
  SystemOptions options = write_only(two_workers_one_job(), 3);
  options.workers.count = 1;
  const History history = run_system(options);
  std::vector<std::int64_t> values;
  for (const Event& accept : history.all("write.accept", "storage")) values.push_back(accept["value"]);
  EXPECT_EQ(values, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(history.final_values()["result"], 3);
}

// worker-1 freezes with its write in hand for longer than the lease.
void pause_worker_1_before_its_write(Nemesis& nemesis, System& system) {
  nemesis.after_event("worker-1", EventKind::kWriteInvoke, 1, 0_s,
                      [&nemesis, &system] { nemesis.pause(system.worker_node(1), 15_s); });
}

TEST(WriteOnlyWorkload, WithoutFencingAPausedHoldersOlderResultLandsOverTheNewerOne) {
  const History history = run_system(write_only(two_workers_one_job(), 1), pause_worker_1_before_its_write);
  const std::vector<Event> accepts = history.all("write.accept", "storage");
  ASSERT_EQ(accepts.size(), 2u);
  EXPECT_EQ(accepts[0]["writer"], "worker-2");  // the newer holder's result first …
  EXPECT_EQ(accepts[1]["writer"], "worker-1");  // … then the paused, superseded holder's over it
  EXPECT_EQ(history.stale_accepts().size(), 1u);
}

TEST(WriteOnlyWorkload, WithFencingThePausedHoldersResultIsRejectedAndTheJobDoneAgain) {
  const History history = run_system(with_fencing(write_only(two_workers_one_job(), 1)), pause_worker_1_before_its_write);
  const auto rejected = history.first("write.reject", "storage", [](const Event& e) { return e["writer"] == "worker-1"; });
  ASSERT_TRUE(rejected);
  EXPECT_EQ((*rejected)["reason"], "stale-token");
  EXPECT_TRUE(history.stale_accepts().empty());
  const std::vector<Event> accepts = history.all("write.accept", "storage");
  ASSERT_EQ(accepts.size(), 2u);
  EXPECT_EQ(accepts[1]["writer"], "worker-1");  // redone under a new, newer lease
}

}  // namespace
}  // namespace locksim::model
