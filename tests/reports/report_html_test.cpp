// The teaching report's pages: gathered from real runs of built-in
// scenarios and parsed back as XML — the pictured run drawn twice (fencing
// off with its red stale write, fencing on with none), the critical event,
// the counts, the sweep, the replay commands; the index; escaping of
// hostile names; the same bytes every time.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "reports/fencing_lesson.h"
#include "reports/report_html.h"
#include "reports/scenario_parameters.h"
#include "reports/scenario_report.h"
#include "scenario/scenario_parser.h"
#include "tests/scratch_directory.h"

namespace locksim::reports {
namespace {

scenario::Scenario builtin(const std::string& name) {
  return scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json");
}

ReportSettings small_settings() {
  ReportSettings settings;
  settings.seeds = 20;
  settings.sweep_seeds_most = 10;
  settings.sweep_steps = 7;
  settings.minimal_plan_path = "report/plans/minimal.json";
  return settings;
}

const ScenarioReport& h01_report() {
  static const ScenarioReport report = gather_scenario_report(builtin("h01-gc-pause-past-lease"), small_settings());
  return report;
}

pugi::xml_document parsed_html(const std::string& html) {
  pugi::xml_document document;
  const pugi::xml_parse_result result = document.load_string(html.c_str(), pugi::parse_default | pugi::parse_doctype);
  EXPECT_TRUE(result) << result.description() << " at offset " << result.offset << ": "
                      << html.substr(static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, result.offset - 80)), 160);
  return document;
}

std::vector<pugi::xml_node> all(const pugi::xml_node& root, const std::string& xpath) {
  std::vector<pugi::xml_node> nodes;
  for (const pugi::xpath_node& found : root.select_nodes(xpath.c_str())) nodes.push_back(found.node());
  return nodes;
}

std::string text_of(const pugi::xml_node& node) {
  std::string text;
  for (const pugi::xpath_node& piece : node.select_nodes(".//text()")) text += piece.node().value();
  return text;
}

TEST(ScenarioReport, PausePastLeasePicturesExploresMinimalRunWithFencingOffThenOnOnTheSamePlan) {
  const ScenarioReport& report = h01_report();
  ASSERT_EQ(report.pictured_from, PicturedFrom::kExplore);
  ASSERT_TRUE(report.exploration.finding.has_value());
  ASSERT_EQ(report.pictured.size(), 2u);
  EXPECT_EQ(report.pictured[0].mode, model::Fencing::kOff);
  EXPECT_EQ(report.pictured[1].mode, model::Fencing::kOn);
  // One pause in the plan, then when the workers begin; the critical event
  // noted on the fencing-off picture at that pause.
  ASSERT_EQ(report.plan.size(), 2u);
  EXPECT_NE(report.plan[0].find("pause worker-1"), std::string::npos) << report.plan[0];
  EXPECT_EQ(report.plan[1].rfind("workers begin: ", 0), 0u) << report.plan[1];
  ASSERT_TRUE(report.pictured[0].note.has_value());
  EXPECT_EQ(report.pictured[0].note->lane, "worker-1");
  EXPECT_FALSE(report.pictured[1].note.has_value());
  // Fencing off: a stale write in the picture; on: none, the woken holder turned away.
  const auto stale = [](const PicturedRun& run) {
    return std::ranges::count(run.timeline.writes, WriteClass::kStale, &TimelineWrite::write_class);
  };
  EXPECT_GE(stale(report.pictured[0]), 1);
  EXPECT_EQ(stale(report.pictured[1]), 0);
  EXPECT_FALSE(report.pictured[1].timeline.turned_away_reads.empty() &&
               std::ranges::none_of(report.pictured[1].timeline.writes,
                                    [](const TimelineWrite& write) { return write.write_class == WriteClass::kRejected; }));
  EXPECT_NE(report.pictured[0].replay.find("report/plans/minimal.json --seed"), std::string::npos);
  EXPECT_NE(report.pictured[1].replay.find("--fencing on"), std::string::npos);
  // Both modes ran the seeds the settings asked for.
  ASSERT_EQ(report.summary.modes.size(), 2u);
  EXPECT_EQ(report.summary.modes[0].runs, 20);
  ASSERT_TRUE(report.sweep.has_value());
  EXPECT_EQ(report.sweep->result.plan.axes.front().pointer, "/faults/0/for");
}

TEST(ScenarioPage, IsWellFormedWithTwoPicturesTheRedStaleWriteOnlyWithoutFencingAndTheReplayCommands) {
  const ScenarioReport& report = h01_report();
  const std::string html = scenario_page_html(report, {"index.html", "plans/minimal.json"});
  const pugi::xml_document document = parsed_html(html);
  const pugi::xml_node body = document.child("html").child("body");
  ASSERT_TRUE(body);
  EXPECT_EQ(all(document, "//script").size(), 0u);
  // The two swimlane pictures, each followed by its critical window enlarged
  // (the run's action is its last 2.5 s of 12.3 s), and the sweep plot.
  const std::vector<pugi::xml_node> pictures = all(body, ".//div[@class='picture']/svg");
  ASSERT_EQ(pictures.size(), 5u);
  EXPECT_FALSE(all(pictures[0], ".//*[@class='write stale']").empty());
  EXPECT_FALSE(all(pictures[1], ".//*[@class='write stale']").empty());
  EXPECT_TRUE(all(pictures[2], ".//*[@class='write stale']").empty());
  for (const std::size_t inset : {1U, 3U}) {
    EXPECT_NE(text_of(pictures[inset]).find("the critical window enlarged"), std::string::npos) << inset;
  }
  EXPECT_FALSE(all(pictures[0], ".//*[@class='note']").empty()) << "the critical event is drawn on the picture";
  // Ids stay apart between the pictures of one page.
  std::vector<std::string> ids;
  for (const pugi::xml_node& node : all(body, ".//*[@id]")) ids.emplace_back(node.attribute("id").value());
  std::ranges::sort(ids);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "duplicate ids in one page";
  const std::string text = text_of(body);
  EXPECT_NE(text.find("Critical event."), std::string::npos);
  EXPECT_NE(text.find(report.pictured[0].replay), std::string::npos);
  EXPECT_NE(text.find(report.pictured[1].replay), std::string::npos);
  EXPECT_NE(text.find("stale_write"), std::string::npos);
  EXPECT_NE(text.find("Pause length against the lease"), std::string::npos);
  EXPECT_FALSE(all(body, ".//a[@href='plans/minimal.json']").empty());
  EXPECT_FALSE(all(body, ".//a[@href='index.html']").empty());
}

TEST(ScenarioPage, TheSameReportIsTheSameBytesWhateverTheThreads) {
  ReportSettings two_threads = small_settings();
  two_threads.threads = 2;
  const ScenarioReport again = gather_scenario_report(builtin("h01-gc-pause-past-lease"), two_threads);
  EXPECT_EQ(scenario_page_html(again, {}), scenario_page_html(h01_report(), {}));
}

TEST(ScenarioReport, ASafeScenarioPicturesItsFirstSeedAndSaysNoRunHadAViolation) {
  ReportSettings settings = small_settings();
  settings.explore_tests = 10;
  const ScenarioReport report = gather_scenario_report(builtin("control-no-faults"), settings);
  EXPECT_EQ(report.pictured_from, PicturedFrom::kFirstSeed);
  EXPECT_FALSE(report.sweep.has_value()) << "no worker pause to sweep";
  const std::string html = scenario_page_html(report, {});
  const pugi::xml_document document = parsed_html(html);
  const std::string text = text_of(document.child("html").child("body"));
  EXPECT_NE(text.find("No run had a violation"), std::string::npos);
  EXPECT_NE(text.find("No violation in 20 runs, with fencing or without."), std::string::npos);
  EXPECT_NE(text.find("the lock working as it should"), std::string::npos);
}

// The counts say "fencing stopped it here" for the file's 35 s freeze, but the
// sweep's 30 s freeze wakes the holder inside the fencing window: the page
// says why the two differ, and that the sweep ran fewer seeds.
TEST(ScenarioReport, WhereTheSweepShowsWithFencingWhatTheCountsDoNotThePageSaysWhy) {
  const ScenarioReport report = gather_scenario_report(builtin("h26-watchdog-freeze-35s"), small_settings());
  const std::string text = text_of(parsed_html(scenario_page_html(report, {})).child("html").child("body"));
  EXPECT_NE(text.find("stale_write: "), std::string::npos);
  EXPECT_NE(text.find("fencing stopped it here"), std::string::npos) << text;
  EXPECT_NE(text.find("With fencing on, stale_write shows here (up to "), std::string::npos) << text;
  EXPECT_NE(text.find("Fencing turns a write away only once storage has seen a newer token"), std::string::npos);
  EXPECT_NE(text.find("(10 seeds per length and mode — fewer than the 20 of the counts above"), std::string::npos);
}

// H11's hazard is that no job finishes: no violation, yet not the lock working.
TEST(ScenarioReport, ARunThatStoppedWithWorkLeftIsNotCalledTheLockWorking) {
  ReportSettings settings = small_settings();
  settings.seeds = 4;
  settings.explore_tests = 0;
  const ScenarioReport report = gather_scenario_report(builtin("h11-hung-holder"), settings);
  ASSERT_EQ(report.pictured_from, PicturedFrom::kFirstSeed);
  const std::string text = text_of(parsed_html(scenario_page_html(report, {})).child("html").child("body"));
  EXPECT_EQ(text.find("the lock working as it should"), std::string::npos);
  EXPECT_NE(text.find("nothing unsafe happened, yet it stopped with work left (time limit"), std::string::npos) << text;
  EXPECT_NE(text.find("No violation in this run, but it stopped with work left"), std::string::npos);
}

TEST(ScenarioPage, MarkupInTheScenarioIsShownAsText) {
  const std::filesystem::path file = test_support::scratch_directory() / "hostile.json";
  std::ofstream{file} << R"({"name": "<script>alert(1)</script>", "description": "a & b <b>bold</b> \"quoted\"",
    "duration": "30s", "workload": {"key": "<img src=x>", "jobs": 1},
    "faults": [{"kind": "pause", "target": "worker-1", "at": "1s", "for": "2s"}]})";
  ReportSettings settings = small_settings();
  settings.seeds = 2;
  settings.explore_tests = 3;
  settings.sweep_steps = 2;
  settings.sweep_seeds_most = 1;
  const ScenarioReport report = gather_scenario_report(scenario::load_scenario_file(file.string()), settings);
  const std::string page = scenario_page_html(report, {});
  std::vector<std::string> taken;
  const std::string index = index_page_html({{&report, page_file_name(report.name, taken)}});
  for (const std::string& html : {page, index}) {
    const pugi::xml_document document = parsed_html(html);
    EXPECT_EQ(all(document, "//script").size(), 0u);
    EXPECT_EQ(all(document, "//img").size(), 0u);
    EXPECT_EQ(all(document, "//b").size(), 0u);
    const std::string text = text_of(document.child("html"));
    EXPECT_NE(text.find("<script>alert(1)</script>"), std::string::npos);
  }
  EXPECT_NE(text_of(parsed_html(page).child("html")).find("a & b <b>bold</b> \"quoted\""), std::string::npos);
  EXPECT_NE(text_of(parsed_html(page).child("html")).find("<img src=x>"), std::string::npos) << "the key, in the setup table";
  EXPECT_EQ(taken.front(), "_script_alert_1___script_.html");
  std::filesystem::remove(file);
}

TEST(PageFileName, KeepsSafeCharactersAvoidsIndexAndNeverRepeats) {
  std::vector<std::string> taken;
  EXPECT_EQ(page_file_name("h01-gc-pause-past-lease", taken), "h01-gc-pause-past-lease.html");
  EXPECT_EQ(page_file_name("../../etc/passwd", taken), "_._.._etc_passwd.html");
  EXPECT_EQ(page_file_name("index", taken), "scenario-index.html");
  EXPECT_EQ(page_file_name("", taken), "scenario-.html");
  EXPECT_EQ(page_file_name("h01-gc-pause-past-lease", taken), "h01-gc-pause-past-lease-2.html");
  EXPECT_EQ(page_file_name("h01 gc pause past lease", taken), "h01_gc_pause_past_lease.html");
  EXPECT_EQ(page_file_name(".hidden", taken), "_hidden.html");
}

TEST(IndexPage, LinksEveryPageAndSaysWhatTheCountsShow) {
  const ScenarioReport& report = h01_report();
  const std::string html = index_page_html({{&report, "h01-gc-pause-past-lease.html"}});
  const pugi::xml_document document = parsed_html(html);
  EXPECT_EQ(all(document, "//a[@href='h01-gc-pause-past-lease.html']").size(), 2u) << "the table and the takeaways";
  const std::string text = text_of(document.child("html"));
  EXPECT_NE(text.find(report.description), std::string::npos);
  for (const std::string& lesson : fencing_lessons(report.summary)) EXPECT_NE(text.find(lesson), std::string::npos);
}

TEST(FencingLessons, StateTheMeasuredShareOfRunsPerModeAndWhatFencingChanged) {
  const ScenarioReport& report = h01_report();
  const std::vector<std::string> lessons = fencing_lessons(report.summary);
  const runner::ModeSummary& off = report.summary.modes[0];
  const runner::ModeSummary& on = report.summary.modes[1];
  const std::int64_t stale_off = off.runs_with_any(checker::ViolationKind::kStaleWrite);
  ASSERT_GT(stale_off, 0);
  ASSERT_EQ(on.runs_with_any(checker::ViolationKind::kStaleWrite), 0);
  const std::string stale = "stale_write: " + runs_share_text(stale_off, off.runs) +
                            " without fencing, none of 20 runs with it — fencing stopped it here.";
  EXPECT_NE(std::ranges::find(lessons, stale), lessons.end()) << lessons.front();
  const std::int64_t holders = off.runs_with_any(checker::ViolationKind::kDoubleHolder);
  ASSERT_EQ(holders, on.runs_with_any(checker::ViolationKind::kDoubleHolder));
  const std::string holder = "double_holder: " + runs_share_text(holders, 20) + " without fencing, " +
                             runs_share_text(holders, 20) + " with it — fencing did not change how often.";
  EXPECT_NE(std::ranges::find(lessons, holder), lessons.end());
}

TEST(RunsShareText, SaysNoneAllOrTheCountWithAPercentThatNeverRoundsToTheEnds) {
  EXPECT_EQ(runs_share_text(0, 200), "none of 200 runs");
  EXPECT_EQ(runs_share_text(200, 200), "all 200 runs");
  EXPECT_EQ(runs_share_text(134, 200), "134 of 200 runs (67%)");
  EXPECT_EQ(runs_share_text(1, 1000), "1 of 1000 runs (0.1%)");
  EXPECT_EQ(runs_share_text(999, 1000), "999 of 1000 runs (99.9%)");
}

TEST(ScenarioParameters, SayTheFilesOwnSettingsInWordsOneRowPerSectionAndFault) {
  const std::string text = R"({"name": "x", "description": "d", "seeds": 5, "lock": {"lease": "10s"},
    "workers": {"count": 3, "work": {"dist": "uniform", "min": "100ms", "max": "2s"}},
    "network": {"delay": {"dist": "lognormal", "median": "1ms", "p99": "20ms"}},
    "faults": [{"kind": "pause", "target": "worker-1", "when": "after-acquire", "for": "12s"}],
    "expect": {"fencing-off": {"stale_write": ">0", "double_holder": ">0"}}})";
  const std::vector<ParameterRow> rows = scenario_parameters(text);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].section, "lock");
  EXPECT_EQ(rows[0].text, "lease 10s");
  EXPECT_EQ(rows[1].text, "count 3, work uniform 100ms–2s");
  EXPECT_EQ(rows[2].text, "delay lognormal median 1ms p99 20ms");
  EXPECT_EQ(rows[3].section, "faults[0]");
  EXPECT_EQ(rows[3].text, "kind pause, target worker-1, when after-acquire, for 12s");
  EXPECT_EQ(rows[4].section, "expect");
  EXPECT_EQ(rows[4].text, "fencing-off: stale_write >0, double_holder >0");
  // What every page names, from the defaults when the file leaves it out.
  EXPECT_EQ(rows[5].section, "service");
  EXPECT_EQ(rows[5].text, "kind redis (default)");
  EXPECT_EQ(rows[6].section, "storage");
  EXPECT_EQ(rows[6].text, "fencing off (default)");
}

TEST(ScenarioParameters, AddADefaultToASectionTheFileHasWithoutIt) {
  const std::vector<ParameterRow> rows = scenario_parameters(
      R"({"name": "x", "service": {"kind": "consensus"}, "lock": {"lease": "10s"}, "workers": {"count": 3}})");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].section, "workers");
  EXPECT_EQ(rows[2].text, "count 3, work uniform 100ms to 2s (default)");
  EXPECT_EQ(rows[3].text, "fencing off (default)");
}

}  // namespace
}  // namespace locksim::reports
