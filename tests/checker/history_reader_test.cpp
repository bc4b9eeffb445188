#include "checker/history_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bad_history_corpus.h"

namespace locksim::checker {
namespace {

// What a test keeps of an event (the Event's views die with the visit).
struct Seen {
  std::int64_t index;
  std::int64_t time_ns;
  std::string process;
  EventKind kind;
};

struct Read {
  ReadOutcome outcome;
  std::vector<Seen> events;
};

Read read(std::string_view text) {
  Read result;
  result.outcome = read_history_text(text, "h.jsonl", [&](const Event& event) {
    result.events.push_back(Seen{event.index, event.time_ns, std::string{event.process}, event.kind});
  });
  return result;
}

std::string error_of(std::string_view text) {
  const Read result = read(text);
  EXPECT_TRUE(result.outcome.error.has_value()) << text;
  return result.outcome.error ? result.outcome.error->message() : "";
}

TEST(HistoryReader, ReadsEveryFieldTheChecksUse) {
  const std::string text =
      R"({"i":0,"t":0,"proc":"run","ev":"run.begin","service":{"kind":"redlock","instances":5,"quorum":3},)"
      R"("workload":{"kind":"counter","key":"c"},"stuck_after_ns":7})"
      "\n"
      R"({"i":1,"t":10,"proc":"redis-0","ev":"lease.release","lock":"L","owner":"w1","by":"w2","token":4,)"
      R"("lease_ns":100,"reason":"r"})"
      "\n"
      R"({"i":2,"t":10,"proc":"storage","ev":"write.accept","key":"qty","value":6,"writer":"w1","job":17,)"
      R"("request_id":"r-1","token":3})"
      "\n"
      R"({"i":3,"t":11,"proc":"run","ev":"run.end","final":{"qty":6,"name":"x"}})"
      "\n";
  std::vector<std::string> checked;
  const ReadOutcome outcome = read_history_text(text, "h.jsonl", [&](const Event& event) {
    switch (event.kind) {
      case EventKind::kRunBegin:
        EXPECT_EQ(event.service_kind, "redlock");
        EXPECT_EQ(event.service_instances, 5);
        EXPECT_EQ(event.service_quorum, 3);
        EXPECT_EQ(event.workload_kind, "counter");
        EXPECT_EQ(event.stuck_after_ns, 7);
        break;
      case EventKind::kLeaseRelease:
        EXPECT_EQ(event.time_ns, 10);
        EXPECT_EQ(event.process, "redis-0");
        EXPECT_EQ(event.lock, "L");
        EXPECT_EQ(event.owner, "w1");
        EXPECT_EQ(event.by, "w2");
        EXPECT_EQ(event.token, 4);
        EXPECT_EQ(event.lease_ns, 100);
        EXPECT_EQ(event.reason, "r");
        break;
      case EventKind::kWriteAccept:
        EXPECT_EQ(event.key, "qty");
        EXPECT_EQ(event.value_json, "6");
        EXPECT_EQ(event.value_integer, 6);
        EXPECT_EQ(event.writer, "w1");
        EXPECT_EQ(event.job, "17");
        EXPECT_EQ(event.request_id, "r-1");
        break;
      case EventKind::kRunEnd:
        EXPECT_TRUE(event.has_final);
        ASSERT_EQ(event.final_values.size(), 2U);
        EXPECT_EQ(event.final_values[0].key, "qty");
        EXPECT_EQ(event.final_values[0].integer, 6);
        EXPECT_EQ(event.final_values[1].key, "name");
        EXPECT_FALSE(event.final_values[1].integer.has_value());
        break;
      default:
        ADD_FAILURE() << "unexpected event " << event_kind_name(event.kind);
    }
    checked.push_back(std::string{event_kind_name(event.kind)});
  });
  EXPECT_FALSE(outcome.error.has_value()) << outcome.error->message();
  EXPECT_EQ(checked, (std::vector<std::string>{"run.begin", "lease.release", "write.accept", "run.end"}));
  EXPECT_EQ(outcome.summary.events, 4);
  EXPECT_TRUE(outcome.summary.has_run_begin);
  EXPECT_TRUE(outcome.summary.has_run_end);
  EXPECT_FALSE(outcome.summary.cut_off_line.has_value());
}

TEST(HistoryReader, StringTokenIsReadAsAnOpaqueLockIdAndReadsNameTheirReader) {
  const std::string text =
      R"({"i":0,"t":0,"proc":"redis-1","ev":"lease.adopt","lock":"L","owner":"w1","token":"u-1","lease_ns":5})"
      "\n"
      R"({"i":1,"t":1,"proc":"storage","ev":"read.accept","key":"qty","reader":"w1","token":"u-1"})"
      "\n";
  std::vector<std::string> seen;
  const ReadOutcome outcome = read_history_text(text, "h.jsonl", [&](const Event& event) {
    EXPECT_FALSE(event.token.has_value());
    EXPECT_EQ(event.token_text, "u-1");
    if (event.kind == EventKind::kReadAccept) {
      EXPECT_EQ(event.reader, "w1");
    }
    seen.push_back(std::string{event_kind_name(event.kind)});
  });
  EXPECT_FALSE(outcome.error.has_value()) << outcome.error->message();
  EXPECT_EQ(seen, (std::vector<std::string>{"lease.adopt", "read.accept"}));
}

// A one-line EDN file without a newline would otherwise pass as a history
// cut off mid-write (no events, no error): it is said to be what it is.
TEST(HistoryReader, AnEdnFileWithoutANewlineIsNotMistakenForACutOffHistory) {
  const Read result = read("{:type :invoke, :f :acquire, :process 0}");
  ASSERT_TRUE(result.outcome.error.has_value());
  EXPECT_EQ(result.outcome.error->line, 1);
  EXPECT_NE(result.outcome.error->what.find("looks like an EDN file"), std::string::npos);
  EXPECT_FALSE(result.outcome.summary.cut_off_line.has_value());
}

// The hint is for files that are something else altogether: a history whose
// first line is broken keeps that line's own message.
TEST(HistoryReader, AHistoryWithABrokenFirstLineKeepsItsOwnMessage) {
  EXPECT_EQ(error_of("{\"t\": 0, \"proc\": \"run\", \"ev\": \"run.begin\"}\n"
                     "{\"i\": 1, \"t\": 0, \"proc\": \"run\", \"ev\": \"run.end\"}\n"),
            "h.jsonl:1: expected field `i` (the event's position in the history, an integer)");
  // An object with a name but no scenario keys is no scenario.
  EXPECT_EQ(error_of("{\"name\": \"x\"}\n"),
            "h.jsonl:1: expected field `i` (the event's position in the history, an integer)");
}

// Only the first line is judged by what the file looks like: a later bad line
// in a history gets its own message even if it is an array.
TEST(HistoryReader, ALaterArrayLineIsJustABadLine) {
  EXPECT_EQ(error_of("{\"i\": 0, \"t\": 0, \"proc\": \"run\", \"ev\": \"run.begin\"}\n[1, 2]\n"),
            "h.jsonl:2: expected a JSON object (one event per line), got an array");
}

TEST(HistoryReader, UnknownFieldsAreIgnoredEvenWhenNested) {
  const Read result = read(R"({"i":0,"extra":{"deep":[1,{"x":null}]},"t":3,"proc":"w","ev":"crash","z":"\"q\""})"
                           "\n");
  ASSERT_FALSE(result.outcome.error.has_value()) << result.outcome.error->message();
  ASSERT_EQ(result.events.size(), 1U);
  EXPECT_EQ(result.events[0].time_ns, 3);
  EXPECT_EQ(result.events[0].kind, EventKind::kCrash);
}

TEST(HistoryReader, EscapedKeysAreUnescapedBeforeTheyAreMatched) {
  const Read result = read(R"({"\u0069":0,"t":3,"pro\u0063":"w","ev":"crash"})"
                           "\n");
  ASSERT_FALSE(result.outcome.error.has_value()) << result.outcome.error->message();
  ASSERT_EQ(result.events.size(), 1U);
  EXPECT_EQ(result.events[0].process, "w");
}

TEST(HistoryReader, MalformedJsonInsideAnUnknownFieldIsStillAnError) {
  for (const char* extra : {R"([1,,2])", R"({"a" 1})", "tru"}) {
    EXPECT_NE(error_of(std::string{R"({"i":0,"t":0,"proc":"w","ev":"crash","extra":)"} + extra + "}\n")
                  .find("h.jsonl:1: expected one JSON object per line; this line is not valid JSON"),
              std::string::npos)
        << extra;
  }
}

TEST(HistoryReader, NullFieldCountsAsAbsent) {
  EXPECT_EQ(error_of(R"({"i":0,"t":0,"proc":"storage","ev":"write.accept","key":"k","writer":null})"),
            "h.jsonl:1: expected field `writer` (the worker whose write it was, a string) in a write.accept event");
}

TEST(HistoryReader, LastLineWithoutNewlineIsAnEvent) {
  const Read result = read("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\"}\n{\"i\":1,\"t\":1,\"proc\":\"w\",\"ev\":\"restart\"}");
  EXPECT_FALSE(result.outcome.error.has_value());
  EXPECT_EQ(result.events.size(), 2U);
  EXPECT_FALSE(result.outcome.summary.cut_off_line.has_value());
}

TEST(HistoryReader, CutOffLastLineEndsTheReadWithoutAnErrorAndSaysWhere) {
  const Read result = read("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\"}\n{\"i\":1,\"t\":1,\"proc\":\"w\",\"e");
  EXPECT_FALSE(result.outcome.error.has_value());
  EXPECT_EQ(result.events.size(), 1U);
  EXPECT_EQ(result.outcome.summary.cut_off_line, 2);
  EXPECT_FALSE(result.outcome.summary.has_run_end);
}

TEST(HistoryReader, InvalidLastLineEndingWithANewlineIsAnErrorNotACutOff) {
  EXPECT_EQ(error_of("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\"}\n{\"i\":1,\n"),
            "h.jsonl:2: expected one JSON object per line; this line is not valid JSON (The JSON document has an "
            "improper structure: missing or superfluous commas, braces, missing keys, etc.)");
}

TEST(HistoryReader, CompleteLastLineThatBreaksTheContractIsAnErrorEvenWithoutNewline) {
  EXPECT_EQ(error_of("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\"}\n{\"i\":1,\"t\":1,\"proc\":\"w\"}"),
            "h.jsonl:2: expected field `ev` (the event name, a string)");
}

TEST(HistoryReader, CrlfLineEndsAreAccepted) {
  const Read result = read("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\"}\r\n{\"i\":1,\"t\":1,\"proc\":\"w\",\"ev\":\"restart\"}\r\n");
  EXPECT_FALSE(result.outcome.error.has_value());
  EXPECT_EQ(result.events.size(), 2U);
}

TEST(HistoryReader, HistoryLongerThanOneBufferedChunkIsReadWhole) {
  std::string text;
  constexpr int kEvents = 40'000;  // about 2.5 MiB: several chunks
  for (int index = 0; index < kEvents; ++index) {
    text += R"({"i":)" + std::to_string(index) + R"(,"t":)" + std::to_string(index * 10) +
            R"(,"proc":"worker-1","ev":"read.invoke","key":"some-key"})" + "\n";
  }
  const Read result = read(text);
  ASSERT_FALSE(result.outcome.error.has_value()) << result.outcome.error->message();
  ASSERT_EQ(result.events.size(), static_cast<std::size_t>(kEvents));
  for (int index = 0; index < kEvents; ++index) {
    ASSERT_EQ(result.events[static_cast<std::size_t>(index)].time_ns, index * 10);
  }
}

TEST(HistoryReader, LineLongerThanOneBufferedChunkIsRead) {
  const std::string big(3 << 20, 'x');
  const Read result = read("{\"i\":0,\"t\":0,\"proc\":\"w\",\"ev\":\"crash\",\"blob\":\"" + big +
                           "\"}\n{\"i\":1,\"t\":1,\"proc\":\"w\",\"ev\":\"restart\"}\n");
  ASSERT_FALSE(result.outcome.error.has_value()) << result.outcome.error->message();
  EXPECT_EQ(result.events.size(), 2U);
}

TEST(HistoryReader, MissingFileIsReportedWithItsName) {
  const ReadOutcome outcome = read_history_file("/nonexistent/h.jsonl", [](const Event&) {});
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->message(), "/nonexistent/h.jsonl: cannot open the history: No such file or directory");
}

TEST(HistoryReader, DirectoryIsReportedAsUnreadableNotAsAnEmptyHistory) {
  const ReadOutcome outcome = read_history_file(LOCKSIM_TEST_DATA_DIR, [](const Event&) {});
  ASSERT_TRUE(outcome.error.has_value());
  EXPECT_EQ(outcome.error->message(), std::string{LOCKSIM_TEST_DATA_DIR} + ": cannot read the history: Is a directory");
}

TEST(HistoryReader, EveryBadHistoryInTheCorpusIsRejectedWithItsExactMessage) {
  const auto corpus = testing::bad_history_corpus();
  ASSERT_GE(corpus.size(), 20U);
  for (const auto& bad : corpus) {
    const ReadOutcome outcome = read_history_file(bad.path, [](const Event&) {});
    ASSERT_TRUE(outcome.error.has_value()) << bad.path;
    EXPECT_EQ(outcome.error->message(), bad.path + ":" + bad.expected_after_path);
  }
}

TEST(HistoryReader, EventNamesReadBackToTheirKinds) {
  for (int kind = 0; kind <= static_cast<int>(EventKind::kFaultEnd); ++kind) {
    const auto event_kind = static_cast<EventKind>(kind);
    EXPECT_EQ(event_kind_from_name(event_kind_name(event_kind)), event_kind);
  }
  EXPECT_FALSE(event_kind_from_name("lease.steal").has_value());
}

}  // namespace
}  // namespace locksim::checker
