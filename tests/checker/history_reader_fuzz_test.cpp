// Built with AddressSanitizer and UBSan around the reader's own sources (see
// CMakeLists.txt): malformed and random input must give an error or a
// verdict, never a crash, an out-of-bounds read or a hang. rapidcheck prints
// the seed of a failure; replay with RC_PARAMS="reproduce=...".

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "bad_history_corpus.h"
#include "checker/history_reader.h"

namespace locksim::checker {
namespace {

constexpr std::string_view kValidHistory =
    R"({"i":0,"t":0,"proc":"run","ev":"run.begin","service":{"kind":"redis","instances":1,"quorum":1}})"
    "\n"
    R"({"i":1,"t":5,"proc":"redis-0","ev":"lease.grant","lock":"L","owner":"worker-1","token":1,"lease_ns":100})"
    "\n"
    R"({"i":2,"t":7,"proc":"storage","ev":"write.accept","key":"k","value":{"a":[1,2]},"writer":"worker-1","job":3})"
    "\n"
    R"({"i":3,"t":9,"proc":"run","ev":"run.end","final":{"k":1,"s":"x"}})"
    "\n";

// Reads `text`, touching every view the visitor gets (so ASan sees any bad one).
std::size_t read_all(std::string_view text) {
  std::size_t bytes_seen = 0;
  const ReadOutcome outcome = read_history_text(text, "fuzz.jsonl", [&](const Event& event) {
    for (const std::string_view view : {event.process, event.lock, event.owner, event.by, event.reason, event.key,
                                        event.writer, event.job, event.request_id, event.value_json,
                                        event.service_kind, event.workload_kind}) {
      for (const char character : view) {
        bytes_seen += static_cast<unsigned char>(character) != 0 ? 1 : 0;
      }
    }
    for (const FinalValue& value : event.final_values) {
      bytes_seen += value.key.size();
    }
  });
  if (outcome.error) {
    EXPECT_FALSE(outcome.error->what.empty());
  }
  return bytes_seen;
}

TEST(HistoryReaderSanitized, ValidHistoryIsReadWithoutError) {
  const ReadOutcome outcome = read_history_text(kValidHistory, "valid.jsonl", [](const Event&) {});
  EXPECT_FALSE(outcome.error.has_value());
  EXPECT_EQ(outcome.summary.events, 4);
}

TEST(HistoryReaderSanitized, MalformedCorpusIsRejectedWithTheExactMessage) {
  for (const auto& bad : testing::bad_history_corpus()) {
    const ReadOutcome outcome = read_history_file(bad.path, [](const Event&) {});
    ASSERT_TRUE(outcome.error.has_value()) << bad.path;
    EXPECT_EQ(outcome.error->message(), bad.path + ":" + bad.expected_after_path);
  }
}

RC_GTEST_PROP(HistoryReaderSanitized, RandomBytesNeverCrashTheReader, (const std::string& bytes)) {
  read_all(bytes);
  read_all(std::string{kValidHistory} + bytes);
}

RC_GTEST_PROP(HistoryReaderSanitized, MutatedValidHistoriesNeverCrashTheReader, ()) {
  std::string text{kValidHistory};
  const int mutations = *rc::gen::inRange(1, 8);
  for (int mutation = 0; mutation < mutations; ++mutation) {
    const auto position = *rc::gen::inRange<std::size_t>(0, text.size());
    switch (*rc::gen::inRange(0, 3)) {
      case 0: text[position] = *rc::gen::arbitrary<char>(); break;
      case 1: text.erase(position, 1); break;
      default: text.insert(position, 1, *rc::gen::element('{', '}', '"', '\\', '\n', ',', ':', '[', '0'));
    }
    if (text.empty()) {
      break;
    }
  }
  read_all(text);
  // Every prefix is what a recorder cut off at that byte would leave.
  read_all(std::string_view{text}.substr(0, *rc::gen::inRange<std::size_t>(0, text.size() + 1)));
}

}  // namespace
}  // namespace locksim::checker
