#include "sim/history_recorder.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "vocabulary/event_kind.h"

using EventKind = ::locksim::vocabulary::EventKind;

namespace locksim::sim {
namespace {

using namespace literals;

TEST(HistoryRecorder, WritesSpecFieldsFirstThenTheEventsFieldsInOrder) {
  std::vector<std::string> lines;
  HistoryRecorder recorder{[&lines](std::string_view line) { lines.emplace_back(line); }};
  recorder.record(Time::from_ns(0), "run", EventKind::kRunBegin, {{"scenario", "gc"}, {"seed", 7}, {"fencing", true}});
  recorder.record(Time::from_ns(1500), "worker-1", EventKind::kAcquireOk,
                  {{"lock", "billing"}, {"token", 3}, {"lease_ns", 45_s}, {"local_t", LocalTime::from_ns(1499)}});
  recorder.record(Time::from_ns(2000), "run", EventKind::kRunEnd, {{"final", RawJson{R"({"qty":4})"}}});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], R"({"i":0,"t":0,"proc":"run","ev":"run.begin","scenario":"gc","seed":7,"fencing":true})");
  EXPECT_EQ(lines[1],
            R"({"i":1,"t":1500,"proc":"worker-1","ev":"acquire.ok","lock":"billing","token":3,"lease_ns":45000000000,"local_t":1499})");
  EXPECT_EQ(lines[2], R"({"i":2,"t":2000,"proc":"run","ev":"run.end","final":{"qty":4}})");
  EXPECT_EQ(recorder.events_recorded(), 3u);
}

TEST(HistoryRecorder, EscapesStringsAsJson) {
  std::string line;
  HistoryRecorder recorder{[&line](std::string_view text) { line = text; }};
  recorder.record(Time{}, "w\"1", EventKind::kCrash, {{"reason", "a\\b\nc\x01"}});
  EXPECT_EQ(line, R"({"i":0,"t":0,"proc":"w\"1","ev":"crash","reason":"a\\b\nc\u0001"})");
}

TEST(HistoryRecorder, EqualHistoriesHashEquallyAndAnyByteChangesTheHash) {
  auto hash_of = [](std::string_view value, std::int64_t t) {
    HistoryRecorder recorder;
    recorder.record(Time::from_ns(t), "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", value}});
    recorder.record(Time::from_ns(t + 1), "storage", EventKind::kWriteAccept, {{"key", "qty"}, {"value", "4"}});
    return recorder.hash();
  };
  EXPECT_EQ(hash_of("6", 10), hash_of("6", 10));
  EXPECT_NE(hash_of("6", 10), hash_of("5", 10));
  EXPECT_NE(hash_of("6", 10), hash_of("6", 11));
}

TEST(HistoryRecorder, TheRecordHashIsAtLeastAsStrictAsTheTextHash) {
  // An integer 4 and the raw JSON "4" make the same line: the text hashes
  // agree, the record hash tells them apart (it never calls two different
  // runs' histories equal when their text differs, nor when only their records do).
  auto hashes_of = [](const Field& value) {
    HistoryRecorder recorder{[](std::string_view) {}};
    recorder.record(Time::from_ns(5), "storage", EventKind::kWriteAccept, {{"key", "qty"}, value});
    return std::pair{recorder.hash(), recorder.text_hash()};
  };
  const auto integer = hashes_of({"value", 4});
  const auto raw = hashes_of({"value", RawJson{"4"}});
  EXPECT_EQ(integer.second, raw.second);
  EXPECT_NE(integer.first, raw.first);
  EXPECT_NE(hashes_of({"value", 5}).second, integer.second);
}

TEST(HistoryRecorder, WithoutASinkItStillCountsAndHashes) {
  HistoryRecorder recorder;
  const std::uint64_t empty_hash = recorder.hash();
  recorder.record(Time{}, "run", EventKind::kRunBegin, {});
  EXPECT_EQ(recorder.events_recorded(), 1u);
  EXPECT_NE(recorder.hash(), empty_hash);
}

}  // namespace
}  // namespace locksim::sim
