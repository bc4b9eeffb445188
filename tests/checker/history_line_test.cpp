// The one reader of a whole history line, for those who tell a run to
// people: every field kept in the line's order, as text and (for integers)
// as a number; a line that is not one is refused by name.
#include <gtest/gtest.h>

#include <stdexcept>

#include "checker/history_line.h"

namespace locksim::checker {
namespace {

TEST(HistoryLine, KeepsEveryFieldInTheLinesOrderAsTextAndIntegers) {
  const HistoryLine line = read_history_line(
      R"({"i":7,"t":1500,"proc":"nemesis","ev":"fault.begin","kind":"partition","between":[["worker-1"],["redis-0"]],"for_ns":2000,"note":null})");
  EXPECT_EQ(line.index, 7);
  EXPECT_EQ(line.time_ns, 1500);
  EXPECT_EQ(line.proc, "nemesis");
  EXPECT_EQ(line.kind, vocabulary::EventKind::kFaultBegin);
  ASSERT_EQ(line.fields.size(), 4u);
  EXPECT_EQ(line.fields[0].key, "kind");
  EXPECT_EQ(line.fields[1].key, "between");
  EXPECT_EQ(line.text("between"), R"([["worker-1"],["redis-0"]])");
  EXPECT_EQ(line.integer("for_ns"), 2000);
  EXPECT_EQ(line.integer("kind"), std::nullopt);
  EXPECT_NE(line.field("note"), nullptr);
  EXPECT_TRUE(line.text("note").empty()) << "null counts as absent";
  EXPECT_TRUE(line.text("target").empty());
}

TEST(HistoryLine, AnEventTheContractLacksIsKeptWithoutAKind) {
  const HistoryLine line = read_history_line(R"({"i":0,"t":0,"proc":"x","ev":"my.own"})");
  EXPECT_EQ(line.event, "my.own");
  EXPECT_EQ(line.kind, std::nullopt);
}

TEST(HistoryLine, ALineWithoutIndexTimeProcOrEventIsRefused) {
  EXPECT_THROW((void)read_history_line(R"({"t":0,"proc":"x","ev":"run.end"})"), std::invalid_argument);
  EXPECT_THROW((void)read_history_line(R"({"i":"0","t":0,"proc":"x","ev":"run.end"})"), std::invalid_argument);
  EXPECT_THROW((void)read_history_line(R"([1,2])"), std::invalid_argument);
  EXPECT_THROW((void)read_history_line(R"({"i":0,)"), std::invalid_argument);
}

TEST(HistoryLine, ProcNamesReadsOneNameOrAList) {
  EXPECT_EQ(proc_names(read_history_line(R"({"i":0,"t":0,"proc":"n","ev":"fault.end","target":"worker-1"})"), "target"),
            std::vector<std::string>{"worker-1"});
  EXPECT_EQ(proc_names(read_history_line(R"({"i":0,"t":0,"proc":"n","ev":"fault.end","target":["a","b"]})"), "target"),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(proc_names(read_history_line(R"({"i":0,"t":0,"proc":"n","ev":"fault.end"})"), "target").empty());
}

}  // namespace
}  // namespace locksim::checker
