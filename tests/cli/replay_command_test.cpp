// `locksim replay` as a user runs it: what --procs, --around, --hide and
// --raw let through, measured against the same seed's unfiltered trace, and
// the messages for bad values. The expectations are read from the run itself
// (its rows, its violations), not written down, so they hold whatever the
// models make of the seed.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "locksim_process.h"
#include "tests/text_files.h"

namespace {

using locksim::test_support::lines_of;
using locksim::cli_test::read_text;
using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;
using locksim::cli_test::scratch;

// A seed of H1 with double holders and a stale write (the README's example).
const std::string kReplay = "replay " + std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json --seed 2 --fencing off";

std::string trimmed(std::string text) {
  text.erase(0, text.find_first_not_of(' '));
  text.erase(text.find_last_not_of(' ') + 1);
  return text;
}

// "25.041206157s", "-0.001s" -> nanoseconds, exactly.
std::int64_t nanoseconds_of(std::string seconds) {
  if (seconds.ends_with('s')) seconds.pop_back();
  const bool negative = seconds.starts_with('-');
  if (negative) seconds.erase(0, 1);
  const std::size_t point = seconds.find('.');
  std::string fraction = point == std::string::npos ? "" : seconds.substr(point + 1);
  fraction.resize(9, '0');
  const std::int64_t value = std::stoll(seconds.substr(0, point)) * 1'000'000'000 + std::stoll(fraction);
  return negative ? -value : value;
}

struct Row {
  std::int64_t index = 0;
  std::int64_t time_ns = 0;
  std::string true_time;
  std::string proc;
  std::string event;
  bool marked = false;
};

// A replay's output, taken apart by the columns its header names.
struct Trace {
  std::vector<Row> rows;
  int left_out_lines = 0;       // "…" lines
  std::string hidden;           // the "hidden lines: ..." line, or ""
  std::vector<std::string> violations;  // the verdict's lines: "stale_write at 25.041206157s: ..."
  bool columns_line_up = true;  // every row has its proc and event where the header says
};

Trace trace_of(const std::string& output) {
  Trace trace;
  const std::vector<std::string> lines = lines_of(output);
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("  true  ") != std::string::npos && line.find("  event  ") != std::string::npos;
  });
  if (header == lines.end()) return trace;
  const std::size_t proc_column = header->find("proc");
  const std::size_t event_column = header->find("event");
  const std::size_t fields_column = header->find("fields");
  auto line = header + 1;
  for (; line != lines.end() && !line->empty(); ++line) {
    if (line->starts_with("…")) {
      ++trace.left_out_lines;
    } else if (line->starts_with("hidden lines: ")) {
      trace.hidden = *line;
    } else {
      std::istringstream columns{*line};
      Row row;
      columns >> row.index >> row.true_time;
      row.time_ns = nanoseconds_of(row.true_time);
      row.proc = trimmed(line->substr(proc_column, event_column - proc_column));
      row.event = trimmed(line->substr(event_column, fields_column - event_column));
      row.marked = line->find("   <<< ") != std::string::npos;
      trace.columns_line_up = trace.columns_line_up && (*line)[proc_column - 1] == ' ' && (*line)[proc_column] != ' ' &&
                              (*line)[event_column - 1] == ' ' && (*line)[event_column] != ' ';
      trace.rows.push_back(row);
    }
  }
  for (; line != lines.end(); ++line) {
    for (const char* kind : {"double_grant", "double_holder", "stale_write", "foreign_release", "stuck_lock", "lost_update",
                             "duplicate_effect"}) {
      if (line->starts_with(std::string{kind} + " at ")) trace.violations.push_back(*line);
    }
  }
  return trace;
}

Trace replayed(const std::string& flags, int expected_exit_code = 1) {
  const Result result = run_locksim(kReplay + " " + flags);
  EXPECT_EQ(result.exit_code, expected_exit_code) << flags << "\n" << result.output;
  return trace_of(result.output);
}

std::vector<std::int64_t> indices(const std::vector<Row>& rows) {
  std::vector<std::int64_t> result;
  for (const Row& row : rows) result.push_back(row.index);
  return result;
}

// The true times of the run's violations of `kind`, from the verdict's lines.
std::vector<std::int64_t> violation_times(const Trace& trace, const std::string& kind) {
  std::vector<std::int64_t> times;
  for (const std::string& violation : trace.violations) {
    if (!violation.starts_with(kind + " at ")) continue;
    const std::size_t from = kind.size() + 4;
    times.push_back(nanoseconds_of(violation.substr(from, violation.find(':', from) - from)));
  }
  return times;
}

TEST(ReplayTrace, WithoutFlagsEveryHistoryLineIsARowInAlignedColumns) {
  const Trace trace = replayed("");
  ASSERT_GT(trace.rows.size(), 100u);
  EXPECT_TRUE(trace.columns_line_up);
  for (std::size_t row = 0; row < trace.rows.size(); ++row) EXPECT_EQ(trace.rows[row].index, static_cast<std::int64_t>(row));
  EXPECT_EQ(trace.left_out_lines, 0);
  EXPECT_FALSE(trace.violations.empty());
}

TEST(ReplayTrace, EveryTimeHasTheSamePrecision) {
  for (const std::string flags : {"", "--raw"}) {
    const Trace trace = replayed(flags);
    ASSERT_FALSE(trace.rows.empty());
    std::set<std::size_t> decimals;
    for (const Row& row : trace.rows) decimals.insert(row.true_time.size() - row.true_time.find('.') - 2);
    EXPECT_EQ(decimals.size(), 1u) << flags;
    if (flags == "--raw") {
      EXPECT_EQ(*decimals.begin(), 9u);
    }
  }
}

TEST(ReplayTrace, DurationFieldsAreReadableAndExactWithRaw) {
  const Result readable = run_locksim(kReplay);
  EXPECT_NE(readable.output.find(" lease=10s"), std::string::npos) << readable.output;
  EXPECT_EQ(readable.output.find("_ns="), std::string::npos) << readable.output;
  const Result raw = run_locksim(kReplay + " --raw");
  EXPECT_NE(raw.output.find(" lease_ns=10000000000"), std::string::npos) << raw.output;
  EXPECT_NE(raw.output.find(" stuck_after_ns=100000000000"), std::string::npos) << raw.output;
}

TEST(ReplayTrace, ProcsShowOnlyThoseProcsAndEveryLineMarkedWithAViolation) {
  const Trace all = replayed("");
  const Trace some = replayed("--procs worker-1,redis-0");
  std::vector<Row> expected;
  std::copy_if(all.rows.begin(), all.rows.end(), std::back_inserter(expected),
               [](const Row& row) { return row.proc == "worker-1" || row.proc == "redis-0" || row.marked; });
  EXPECT_EQ(indices(some.rows), indices(expected));
  EXPECT_LT(some.rows.size(), all.rows.size());
  // The marks of other procs (worker-2's double holds, storage's stale write) stay.
  EXPECT_TRUE(std::any_of(some.rows.begin(), some.rows.end(),
                          [](const Row& row) { return row.marked && row.proc != "worker-1" && row.proc != "redis-0"; }));
  EXPECT_TRUE(some.columns_line_up);
  // Repeating the flag is the same as a list.
  EXPECT_EQ(indices(replayed("--procs worker-1 --procs redis-0").rows), indices(some.rows));
}

TEST(ReplayTrace, AnUnknownProcIsExitTwoNamingTheScenariosProcs) {
  const Result result = run_locksim(kReplay + " --procs worker-1,worker-9");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--procs: unknown proc \"worker-9\"; this scenario's procs are redis-0, storage, "
                               "worker-1, worker-2, worker-3, nemesis, run"),
            std::string::npos)
      << result.output;
}

TEST(ReplayTrace, AroundShowsExactlyTheLinesWithinSecondsOfEachViolationOfThatKind) {
  const Trace all = replayed("--raw");
  struct Case {
    std::string flag;
    std::string kind;
    std::int64_t within_ns;
    std::string within_text;
  };
  for (const auto& [flag, kind, within_ns, within_text] :
       {Case{"stale_write:2", "stale_write", 2'000'000'000, "2s"}, Case{"double_holder", "double_holder", 5'000'000'000, "5s"},
        Case{"double_holder:500ms", "double_holder", 500'000'000, "500ms"}}) {
    const std::vector<std::int64_t> times = violation_times(all, kind);
    ASSERT_FALSE(times.empty()) << kind;
    std::vector<Row> expected;
    // A copy: clang 14 cannot capture a structured binding in a lambda (C++20 allows it).
    const std::int64_t window_ns = within_ns;
    std::copy_if(all.rows.begin(), all.rows.end(), std::back_inserter(expected), [&](const Row& row) {
      return std::any_of(times.begin(), times.end(), [&](std::int64_t time_ns) {
        return row.time_ns >= time_ns - window_ns && row.time_ns <= time_ns + window_ns;
      });
    });
    const Result result = run_locksim(kReplay + " --raw --around " + flag);
    EXPECT_EQ(result.exit_code, 1);
    const Trace around = trace_of(result.output);
    EXPECT_EQ(indices(around.rows), indices(expected)) << flag;
    EXPECT_LT(around.rows.size(), all.rows.size()) << flag;
    EXPECT_GE(around.left_out_lines, 1) << flag;
    EXPECT_NE(result.output.find("lines within " + within_text + " of true time of each " + kind),
              std::string::npos)
        << result.output;
  }
}

TEST(ReplayTrace, AroundALeftOutStretchIsOneEllipsisLineSayingHowMany) {
  const Result result = run_locksim(kReplay + " --around stale_write:1");
  const std::vector<std::string> lines = lines_of(result.output);
  const Trace around = trace_of(result.output);
  ASSERT_FALSE(around.rows.empty());
  // Before the window: every line from i 0 up to the first shown.
  const std::string before = "…  " + std::to_string(around.rows.front().index) + " lines left out";
  EXPECT_NE(std::find(lines.begin(), lines.end(), before), lines.end()) << result.output;
}

TEST(ReplayTrace, AnUnknownViolationKindOrABadTimeIsExitTwoWithTheValidKinds) {
  const Result kind = run_locksim(kReplay + " --around stale_writes:2");
  EXPECT_EQ(kind.exit_code, 2);
  EXPECT_NE(kind.output.find("--around: unknown violation \"stale_writes\"; the violations are double_grant, double_holder, "
                             "stale_write, foreign_release, stuck_lock, lost_update, duplicate_effect"),
            std::string::npos)
      << kind.output;
  const Result time = run_locksim(kReplay + " --around stale_write:soon");
  EXPECT_EQ(time.exit_code, 2);
  EXPECT_NE(time.output.find("--around: \"soon\" after \"stale_write:\" is not a time"), std::string::npos) << time.output;
}

TEST(ReplayTrace, HideLeavesOutThoseEventsAndCountsThemOnTheLastLine) {
  const Trace all = replayed("");
  std::map<std::string, int> unmarked;
  for (const Row& row : all.rows) unmarked[row.event] += row.marked ? 0 : 1;
  ASSERT_GT(unmarked["acquire.fail"], 10);

  const Trace hidden = replayed("--hide acquire.fail,acquire.invoke");
  std::vector<Row> expected;
  std::copy_if(all.rows.begin(), all.rows.end(), std::back_inserter(expected), [](const Row& row) {
    return row.marked || (row.event != "acquire.fail" && row.event != "acquire.invoke");
  });
  EXPECT_EQ(indices(hidden.rows), indices(expected));
  EXPECT_EQ(hidden.hidden, "hidden lines: acquire.fail " + std::to_string(unmarked["acquire.fail"]) + ", acquire.invoke " +
                               std::to_string(unmarked["acquire.invoke"]));
  // Repeating the flag is the same as a list.
  const Trace repeated = replayed("--hide acquire.fail --hide acquire.invoke");
  EXPECT_EQ(indices(repeated.rows), indices(hidden.rows));
  EXPECT_EQ(repeated.hidden, hidden.hidden);
}

TEST(ReplayTrace, AnUnknownEventIsExitTwoNamingTheEvents) {
  const Result result = run_locksim(kReplay + " --hide acquire.fial");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--hide: unknown event \"acquire.fial\"; the events are run.begin, run.end, acquire.invoke"),
            std::string::npos)
      << result.output;
}

TEST(ReplayTrace, TheHistoryFileIsTheSameWhateverTheTraceShows) {
  const std::string plain = scratch("replay-plain.jsonl");
  const std::string filtered = scratch("replay-filtered.jsonl");
  const Result first = run_locksim(kReplay + " --history " + plain);
  const Result second =
      run_locksim(kReplay + " --history " + filtered + " --procs worker-1 --around stale_write:1 --hide acquire.fail --raw");
  EXPECT_EQ(first.exit_code, 1);
  EXPECT_EQ(second.exit_code, 1);
  const std::string history = read_text(plain);
  EXPECT_EQ(read_text(filtered), history);
  // One JSON line per trace row, each with the raw fields.
  EXPECT_EQ(lines_of(history).size(), replayed("").rows.size());
  EXPECT_NE(history.find("\"lease_ns\":10000000000"), std::string::npos);
}

TEST(ReplaySvg, WritesTheRunsSwimlanesAndStillPrintsTheTrace) {
  const std::string path = scratch("replay-h01-off.svg");
  const Result result = run_locksim(kReplay + " --svg " + path);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("lease.expire"), std::string::npos);
  const std::string svg = read_text(path);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(svg.c_str())) << svg.substr(0, 500);
  EXPECT_EQ(document.select_nodes("//circle[@class='write stale']").size(), 1U);
  EXPECT_GE(document.select_nodes("//rect[@class='lease']").size(), 5U);
  // The same bytes on a second replay.
  const std::string again = scratch("replay-h01-off-again.svg");
  EXPECT_EQ(run_locksim(kReplay + " --svg " + again).exit_code, 1);
  EXPECT_EQ(read_text(again), svg);
}

TEST(ReplaySvg, AnUnwritablePathIsExitTwoNamingTheFlag) {
  const Result result = run_locksim(kReplay + " --svg /nonexistent-directory/run.svg");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--svg /nonexistent-directory/run.svg: cannot write the file"), std::string::npos)
      << result.output;
}

TEST(ReplaySvg, AScenarioNamedLikeMarkupIsEscapedText) {
  nlohmann::json scenario =
      nlohmann::json::parse(read_text(std::string{LOCKSIM_SCENARIO_DIR} + "/h01-gc-pause-past-lease.json"));
  scenario["name"] = "<script>alert(1)</script>";
  const std::string file = scratch("script-name.json");
  {
    std::ofstream output{file};
    output << scenario.dump(2);
  }
  const std::string path = scratch("script-name.svg");
  const Result result = run_locksim("replay " + file + " --seed 2 --fencing off --svg " + path);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const std::string svg = read_text(path);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt; — seed 2, fencing off"), std::string::npos);
  pugi::xml_document document;
  EXPECT_TRUE(document.load_string(svg.c_str()));
  EXPECT_TRUE(document.select_nodes("//script").empty());
}

TEST(ReplayTimeline, PrintsSwimlanesInPlaceOfTheTraceWithoutColoursInAPipe) {
  const Result result = run_locksim(kReplay + " --timeline");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("STALE qty=8 t3"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("█┃"), std::string::npos);
  EXPECT_EQ(result.output.find("lease.expire"), std::string::npos) << "the trace lines are left out";
  EXPECT_NE(result.output.find("stale_write at 20.080989884s"), std::string::npos) << "the verdict still follows";
  EXPECT_EQ(result.output.find('\x1b'), std::string::npos);
}

}  // namespace
