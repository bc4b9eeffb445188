#include "reports/trace.h"

#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include "tests/text_files.h"

namespace locksim::reports {
namespace {

using test_support::lines_of;

// A history line as the recorder writes it.
TraceEntry entry(std::int64_t index, std::int64_t time_ns, std::string_view proc, std::string_view event,
                 std::string_view fields = "") {
  TraceEntry result = trace_entry(
      fmt::format(R"({{"i":{},"t":{},"proc":"{}","ev":"{}"{}}})", index, time_ns, proc, event, fields));
  if (proc.starts_with("worker") || proc == "storage") result.local_time_ns = time_ns + 1'000'000;
  return result;
}

bool has_line_containing(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Views, one setting each.
TraceView raw_numbers() {
  TraceView view;
  view.numbers = NumberStyle::kRaw;
  return view;
}

TraceView only_procs(std::set<std::string> procs) {
  TraceView view;
  view.procs = std::move(procs);
  return view;
}

TraceView around(checker::ViolationKind kind, std::int64_t within_ns) {
  TraceView view;
  view.around = TraceWindow{.kind = kind, .within_ns = within_ns};
  return view;
}

TraceView hiding(std::vector<checker::EventKind> events) {
  TraceView view;
  view.hidden = std::move(events);
  return view;
}

checker::Violation stale_write_at(std::int64_t index, std::int64_t time_ns) {
  return checker::make_violation(checker::ViolationKind::kStaleWrite, {index}, time_ns, index, "storage accepted it");
}

// Every second one line: a worker polling, and a stale write at 10 s.
std::vector<TraceEntry> polling_history() {
  std::vector<TraceEntry> entries;
  entries.push_back(entry(0, 0, "run", "run.begin", R"(,"stuck_after_ns":60000000000)"));
  for (std::int64_t second = 1; second <= 20; ++second) {
    if (second == 10) {
      entries.push_back(entry(second, second * 1'000'000'000, "storage", "write.accept", R"(,"key":"qty","writer":"worker-1")"));
    } else {
      entries.push_back(entry(second, second * 1'000'000'000, second % 2 == 0 ? "worker-2" : "worker-1", "acquire.fail",
                              R"(,"lock":"l","reason":"held")"));
    }
  }
  return entries;
}

TEST(Trace, ReadsEveryFieldOfAHistoryLineInOrder) {
  const TraceEntry read = entry(7, 1'500'000, "redis-0", "lease.grant", R"(,"lock":"l","token":3,"lease_ns":10000000000)");
  EXPECT_EQ(read.index, 7);
  EXPECT_EQ(read.time_ns, 1'500'000);
  EXPECT_EQ(read.proc, "redis-0");
  EXPECT_EQ(read.kind, checker::EventKind::kLeaseGrant);
  ASSERT_EQ(read.fields.size(), 3u);
  EXPECT_EQ(read.fields[0].key, "lock");
  EXPECT_EQ(read.fields[0].text, "l");
  EXPECT_EQ(read.fields[2].integer, 10'000'000'000);
}

TEST(Trace, DurationFieldsReadAsDurationsUnlessRaw) {
  const std::vector<TraceEntry> entries = {
      entry(0, 0, "nemesis", "fault.begin", R"(,"kind":"pause","target":"worker-1","for_ns":24840898330)")};
  const std::string readable = trace_text(entries, {}, TraceView{});
  EXPECT_TRUE(has_line_containing(readable, " kind=pause target=worker-1 for=24.84s")) << readable;
  const std::string raw = trace_text(entries, {}, raw_numbers());
  EXPECT_TRUE(has_line_containing(raw, " for_ns=24840898330")) << raw;
  EXPECT_TRUE(has_line_containing(raw, "0.000000000s")) << raw;
}

TEST(Trace, TimesAreMillisecondsWhenThatTellsTheLinesApart) {
  const std::string text = trace_text(polling_history(), {}, TraceView{});
  EXPECT_TRUE(has_line_containing(text, "  10.000s  10.001s  storage ")) << text;
}

TEST(Trace, TimesGetMicrosecondsWhenTwoLinesShareAMillisecond) {
  const std::vector<TraceEntry> entries = {entry(0, 5'100'000, "worker-1", "acquire.invoke", R"(,"lock":"l")"),
                                           entry(1, 5'900'000, "worker-1", "acquire.ok", R"(,"lock":"l")")};
  const std::string text = trace_text(entries, {}, TraceView{});
  EXPECT_TRUE(has_line_containing(text, "0.005100s  0.006100s  worker-1  acquire.invoke")) << text;
  EXPECT_TRUE(has_line_containing(text, "0.005900s  0.006900s  worker-1  acquire.ok")) << text;
}

TEST(Trace, ColumnsLineUpWhateverTheProcAndEventLengths) {
  const std::vector<std::string> lines = lines_of(trace_text(polling_history(), {}, TraceView{}));
  ASSERT_EQ(lines.size(), 22u);
  const std::size_t event_column = lines[0].find("event");
  ASSERT_NE(event_column, std::string::npos);
  for (const std::string& line : lines) {
    EXPECT_TRUE(line.substr(event_column).starts_with("run.begin") || line.substr(event_column).starts_with("acquire.fail") ||
                line.substr(event_column).starts_with("write.accept") || line.substr(event_column).starts_with("event"))
        << line;
  }
}

TEST(Trace, ViolationsAreMarkedAtTheLastEventThatShowsThem) {
  const std::string text = trace_text(polling_history(), {stale_write_at(10, 10'000'000'000)}, TraceView{});
  EXPECT_TRUE(has_line_containing(text, "key=qty writer=worker-1   <<< stale_write\n")) << text;
}

TEST(Trace, ProcsShowOnlyTheirLinesAndEveryMarkedLine) {
  const std::string text =
      trace_text(polling_history(), {stale_write_at(10, 10'000'000'000)}, only_procs({"worker-2"}));
  const std::vector<std::string> lines = lines_of(text);
  // The header, worker-2's nine lines (even seconds but 10) and the marked storage line.
  EXPECT_EQ(lines.size(), 11u) << text;
  EXPECT_FALSE(has_line_containing(text, "worker-1  acquire.fail")) << text;
  EXPECT_FALSE(has_line_containing(text, "run.begin")) << text;
  EXPECT_TRUE(has_line_containing(text, "worker-2  acquire.fail")) << text;
  EXPECT_TRUE(has_line_containing(text, "<<< stale_write")) << text;
}

TEST(Trace, AroundShowsTheWindowAndSaysHowManyLinesWereLeftOut) {
  const TraceView view = around(checker::ViolationKind::kStaleWrite, 2'000'000'000);
  const std::vector<std::string> lines = lines_of(trace_text(polling_history(), {stale_write_at(10, 10'000'000'000)}, view));
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines[1], "…  8 lines left out");  // i 0 to 7
  EXPECT_TRUE(lines[2].starts_with(" 8   8.000s")) << lines[2];
  EXPECT_TRUE(lines[6].starts_with("12  12.000s")) << lines[6];
  EXPECT_EQ(lines[7], "…  8 lines left out");  // i 13 to 20
}

TEST(Trace, AroundMergesOverlappingWindows) {
  const TraceView view = around(checker::ViolationKind::kStaleWrite, 1'000'000'000);
  const std::vector<std::string> lines = lines_of(
      trace_text(polling_history(), {stale_write_at(10, 10'000'000'000), stale_write_at(11, 11'000'000'000)}, view));
  // 9..12 once, between two left-out lines.
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[1], "…  9 lines left out");
  EXPECT_EQ(lines[6], "…  8 lines left out");
}

TEST(Trace, AroundAKindThatDidNotHappenSaysSo) {
  const TraceView view = around(checker::ViolationKind::kDoubleGrant, 5'000'000'000);
  EXPECT_EQ(trace_text(polling_history(), {stale_write_at(10, 10'000'000'000)}, view),
            "no double_grant in this run: nothing to show around\n");
}

TEST(Trace, HiddenEventsAreLeftOutAndCountedOnOneLastLine) {
  const TraceView view = hiding({checker::EventKind::kAcquireFail, checker::EventKind::kRenewOk});
  const std::vector<std::string> lines = lines_of(trace_text(polling_history(), {}, view));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[1].find("run.begin") != std::string::npos) << lines[1];
  EXPECT_TRUE(lines[2].find("write.accept") != std::string::npos) << lines[2];
  EXPECT_EQ(lines[3], "hidden lines: acquire.fail 19, renew.ok 0");
}

TEST(Trace, HiddenCountsOnlyLinesTheOtherFiltersWouldHaveShown) {
  TraceView view = only_procs({"worker-1"});
  view.hidden = {checker::EventKind::kAcquireFail};
  const std::vector<std::string> lines = lines_of(trace_text(polling_history(), {}, view));
  EXPECT_EQ(lines.back(), "hidden lines: acquire.fail 10");  // worker-1: the odd seconds
}

}  // namespace
}  // namespace locksim::reports
