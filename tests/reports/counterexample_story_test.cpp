// A counterexample told in words: the acquisitions and faults that matter,
// the violation's evidence, then the checker's own line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reports/counterexample_story.h"

namespace locksim::reports {
namespace {

std::string told(const std::vector<std::string>& history, const checker::Violation& violation) {
  std::string text;
  for (const std::string& line : counterexample_story(history, violation)) text += line + "\n";
  return text;
}

TEST(CounterexampleStory, ARedlockAcquisitionSaysTheLeaseAskedForAndTheValidityLeft) {
  // After a 40 s freeze inside the round, "lease 45s" alone would hide that 4.6 s were left.
  const std::vector<std::string> history{
      R"({"i":0,"t":0,"proc":"worker-1","ev":"acquire.invoke","lock":"lock"})",
      R"({"i":1,"t":40100000000,"proc":"worker-1","ev":"acquire.ok","lock":"lock","token":3,"lease_ns":45000000000,"validity_ns":4600000000,"local_t":40100000000})",
  };
  checker::Violation violation;
  violation.detected_at = 1;
  EXPECT_NE(told(history, violation).find("worker-1 acquires lock (token 3), lease 45s, valid 4.6s"), std::string::npos)
      << told(history, violation);
}

TEST(CounterexampleStory, MemoryPressureSaysWhatMustBeFreedAndHowLongWhatIsNotKeepsItFull) {
  const std::vector<std::string> history{
      R"({"i":0,"t":0,"proc":"nemesis","ev":"fault.begin","kind":"memory-pressure","target":"redis-0","evict":200,"for_ns":0})",
      R"({"i":1,"t":1000000000,"proc":"nemesis","ev":"fault.begin","kind":"memory-pressure","target":"redis-0","evict":1,"for_ns":30000000000})",
      R"({"i":2,"t":2000000000,"proc":"worker-1","ev":"acquire.ok","lock":"lock","token":1,"lease_ns":10000000000})",
  };
  checker::Violation violation;
  violation.detected_at = 2;
  const std::string text = told(history, violation);
  EXPECT_NE(text.find("    0.000s  redis-0 must free room for 200 keys by its maxmemory policy\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("redis-0 must free room for 1 key by its maxmemory policy; what it cannot free keeps it full "
                      "for 30s"),
            std::string::npos)
      << text;
}

TEST(CounterexampleStory, TellsThePauseTheLateWriteAndWhatItOverwroteThenTheCheckersLine) {
  const std::vector<std::string> history{
      R"({"i":0,"t":0,"proc":"worker-1","ev":"acquire.ok","lock":"lock","token":1,"lease_ns":10000000000})",
      R"({"i":1,"t":1000000000,"proc":"nemesis","ev":"fault.begin","kind":"pause","target":"worker-1","for_ns":12000000000})",
      R"({"i":2,"t":11000000000,"proc":"worker-2","ev":"acquire.ok","lock":"lock","token":2,"lease_ns":10000000000})",
      R"({"i":3,"t":11500000000,"proc":"storage","ev":"write.accept","key":"qty","value":1,"writer":"worker-2","token":2})",
      R"({"i":4,"t":13000000000,"proc":"nemesis","ev":"fault.end","kind":"pause","target":"worker-1"})",
      R"({"i":5,"t":13100000000,"proc":"storage","ev":"write.accept","key":"qty","value":1,"writer":"worker-1","token":1})",
      R"({"i":6,"t":14000000000,"proc":"worker-2","ev":"read.invoke","key":"qty"})",
  };
  checker::Violation violation;
  violation.kind = checker::ViolationKind::kStaleWrite;
  violation.detected_at = 5;
  violation.events = {3, 5};
  violation.detail = "stale_write at 13.1s: storage accepted qty=1 from worker-1";
  const std::vector<std::string> lines = counterexample_story(history, violation);
  const std::vector<std::string> expected{
      "    0.000s  worker-1 acquires lock (token 1), lease 10s",
      "    1.000s  worker-1 freezes for 12s",
      "   11.000s  worker-2 acquires lock (token 2), lease 10s",
      "   11.500s  storage accepts worker-2's write qty=1 (token 2)",
      "   13.000s  worker-1 wakes up",
      "   13.100s  storage accepts worker-1's write qty=1 (token 1), overwriting qty=1 from worker-2 — a stale write",
      "stale_write at 13.1s: storage accepted qty=1 from worker-1",
  };
  EXPECT_EQ(lines, expected) << told(history, violation);
}

// A billing story ends with the harm, the customer charged twice, not with
// what the second charge's write overwrote.
TEST(CounterexampleStory, ABillingStoryEndsWithTheDoubleCharge) {
  const std::vector<std::string> history{
      R"({"i":0,"t":4012000000,"proc":"storage","ev":"write.accept","key":"billed","value":1,"writer":"worker-1","job":0})",
      R"({"i":1,"t":4818000000,"proc":"storage","ev":"write.accept","key":"billed","value":1,"writer":"worker-1","job":0})",
  };
  checker::Violation violation;
  violation.kind = checker::ViolationKind::kDuplicateEffect;
  violation.detected_at = 1;
  violation.events = {0, 1};
  violation.detail = "duplicate_effect at 4.818s: storage accepted another write for job 0 from worker-1";
  const std::vector<std::string> lines = counterexample_story(history, violation);
  ASSERT_EQ(lines.size(), 3U) << told(history, violation);
  EXPECT_EQ(lines[1],
            "    4.818s  storage accepts worker-1's write billed=1, overwriting billed=1 from worker-1 — job 0 a second "
            "time: a double charge");
}

}  // namespace
}  // namespace locksim::reports
