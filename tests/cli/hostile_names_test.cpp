// Every hostile name and key (tests/data/hostile/names.json) through every
// output that carries user text, run as a user runs the binary: the scenario's
// name, description, lock name and workload key in one file per name. Each
// output must stay what it claims to be — JSONL and JSON that parse and give
// the name back exactly, JUnit XML and SVG that parse, terminal text without a
// character the terminal would act on — and no run may end in an internal
// error (exit 3).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "../hostile_names.h"
#include "locksim_process.h"

namespace locksim::cli_test {
namespace {

using nlohmann::json;

// What XML 1.0 can hold of `text`: escaping leaves the rest out (reports/svg_document.h).
std::string as_xml_holds_it(const std::string& text) {
  std::string kept;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x20 && byte != '\n' && byte != '\t' && byte != '\r') continue;
    if (text.compare(at, 3, "\xEF\xBF\xBE") == 0 || text.compare(at, 3, "\xEF\xBF\xBF") == 0) {
      at += 2;
      continue;
    }
    kept += text[at];
  }
  return kept;
}

class HostileNames : public ::testing::Test {
 protected:
  void SetUp() override {
    names_ = test::hostile_names(LOCKSIM_TEST_DATA_DIR);
    directory_ = std::filesystem::path{scratch("hostile")};
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_ / "scenarios");
    for (std::size_t index = 0; index < names_.size(); ++index) {
      const json scenario = {
          {"name", names_[index]},
          {"description", names_[index]},
          {"seeds", 2},
          {"lock", {{"name", names_[index]}}},
          {"workload", {{"key", names_[index]}, {"jobs", 2}}},
          {"storage", {{"fencing", "compare"}}},
          {"faults", json::array({{{"kind", "pause"}, {"target", "worker-1"}, {"when", "after-acquire"}, {"for", "12s"}}})}};
      std::ofstream{file(index)} << scenario.dump();
    }
  }

  [[nodiscard]] std::string file(std::size_t index) const {
    return (directory_ / "scenarios" / ("hostile-" + std::to_string(index) + ".json")).string();
  }
  [[nodiscard]] std::string path(const std::string& name) const { return (directory_ / name).string(); }

  std::vector<std::string> names_;
  std::filesystem::path directory_;
};

TEST_F(HostileNames, RunWritesATableJsonAndJunitThatKeepEveryName) {
  const Result run = run_locksim("run " + path("scenarios") + " --json " + path("summary.json") + " --junit " +
                                 path("junit.xml") + " --threads 2");
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.output;
  std::string problem;
  EXPECT_TRUE(test::safe_for_a_terminal(run.output, &problem)) << "run printed: " << problem;

  const json summary = json::parse(read_text(path("summary.json")));
  std::vector<std::string> summarized;
  for (const json& scenario : summary.at("scenarios")) summarized.push_back(scenario.at("name").get<std::string>());
  EXPECT_EQ(summarized.size(), names_.size());
  for (std::size_t index = 0; index < names_.size(); ++index) {
    EXPECT_NE(std::find(summarized.begin(), summarized.end(), names_[index]), summarized.end())
        << "summary JSON lost name " << index;
  }

  pugi::xml_document junit;
  const pugi::xml_parse_result parsed = junit.load_file(path("junit.xml").c_str());
  ASSERT_TRUE(parsed) << parsed.description();
  std::vector<std::string> suites;
  for (const pugi::xml_node suite : junit.child("testsuites").children("testsuite")) {
    suites.emplace_back(suite.attribute("name").value());
  }
  for (std::size_t index = 0; index < names_.size(); ++index) {
    EXPECT_NE(std::find(suites.begin(), suites.end(), as_xml_holds_it(names_[index])), suites.end())
        << "JUnit XML lost name " << index;
  }
}

TEST_F(HostileNames, ReplayWritesAHistoryTheCheckerReadsATraceAndAnSvgForEveryName) {
  std::string histories;
  for (std::size_t index = 0; index < names_.size(); ++index) {
    const std::string history = path("h" + std::to_string(index) + ".jsonl");
    const std::string svg = path("r" + std::to_string(index) + ".svg");
    const Result replay = run_locksim("replay " + file(index) + " --seed 1 --fencing off --history " + history +
                                      " --svg " + svg);
    ASSERT_TRUE(replay.exit_code == 0 || replay.exit_code == 1) << "name " << index << ": " << replay.output;
    std::string problem;
    EXPECT_TRUE(test::safe_for_a_terminal(replay.output, &problem)) << "name " << index << ": replay printed: " << problem;

    std::istringstream lines{read_text(history)};
    std::string line;
    ASSERT_TRUE(std::getline(lines, line));
    const json begin = json::parse(line);
    EXPECT_EQ(begin.at("scenario"), names_[index]);
    EXPECT_EQ(begin.at("workload").at("key"), names_[index]);
    bool lock_seen = false;
    while (std::getline(lines, line)) {
      const json event = json::parse(line);  // every line is JSON
      lock_seen = lock_seen || (event.contains("lock") && event.at("lock") == names_[index]);
    }
    EXPECT_TRUE(lock_seen) << "name " << index << ": no event names the lock";

    pugi::xml_document picture;
    const pugi::xml_parse_result parsed = picture.load_file(svg.c_str());
    EXPECT_TRUE(parsed) << "name " << index << ": the SVG does not parse: " << parsed.description();

    const Result timeline = run_locksim("replay " + file(index) + " --seed 1 --fencing off --timeline");
    EXPECT_TRUE(timeline.exit_code == 0 || timeline.exit_code == 1) << timeline.output;
    EXPECT_TRUE(test::safe_for_a_terminal(timeline.output, &problem)) << "name " << index << ": --timeline printed: " << problem;
    histories += " " + history;
  }

  const Result check = run_locksim("check" + histories + " --json " + path("check.json"));
  ASSERT_TRUE(check.exit_code == 0 || check.exit_code == 1) << check.output;
  std::string problem;
  EXPECT_TRUE(test::safe_for_a_terminal(check.output, &problem)) << "check printed: " << problem;
  const json verdicts = json::parse(read_text(path("check.json")));
  EXPECT_EQ(verdicts.at("histories").size(), names_.size());
}

TEST_F(HostileNames, ReportWritesPagesThatParseAndShowEveryNameAsText) {
  const Result report = run_locksim("report " + path("scenarios") + " --seeds 2 --out " + path("report"));
  ASSERT_EQ(report.exit_code, 0) << report.output;
  std::string problem;
  EXPECT_TRUE(test::safe_for_a_terminal(report.output, &problem)) << "report printed: " << problem;
  std::size_t pages = 0;
  for (const auto& entry : std::filesystem::directory_iterator{path("report")}) {
    if (entry.path().extension() != ".html") continue;
    ++pages;
    pugi::xml_document page;
    const pugi::xml_parse_result parsed = page.load_file(entry.path().c_str(), pugi::parse_default | pugi::parse_doctype);
    ASSERT_TRUE(parsed) << entry.path() << ": " << parsed.description();
    EXPECT_TRUE(page.select_nodes("//script").empty()) << entry.path();
  }
  EXPECT_EQ(pages, names_.size() + 1) << "a page per scenario, inside --out, and the index";
  pugi::xml_document index;
  ASSERT_TRUE(index.load_file(path("report/index.html").c_str(), pugi::parse_default | pugi::parse_doctype));
  std::string shown;
  for (const pugi::xpath_node& text : index.select_nodes("//a/text()")) shown += std::string{text.node().value()} + "\n";
  for (std::size_t index_of_name = 0; index_of_name < names_.size(); ++index_of_name) {
    EXPECT_NE(shown.find(as_xml_holds_it(names_[index_of_name])), std::string::npos)
        << "the index lost name " << index_of_name;
  }
}

TEST_F(HostileNames, ExploreAndSweepPrintEveryNameEscapedForTheTerminal) {
  for (std::size_t index = 0; index < names_.size(); ++index) {
    const Result explored = run_locksim("explore " + file(index) + " --tests 5 --seed 1 --out " +
                                        path("min" + std::to_string(index) + ".json"));
    EXPECT_TRUE(explored.exit_code == 0 || explored.exit_code == 1) << "name " << index << ": " << explored.output;
    std::string problem;
    EXPECT_TRUE(test::safe_for_a_terminal(explored.output, &problem)) << "name " << index << ": explore printed: " << problem;
  }
  const Result swept = run_locksim("sweep " + file(0) + " --vary /faults/0/for=5s..20s:2 --seeds 1 --out " + path("sweep"));
  EXPECT_EQ(swept.exit_code, 0) << swept.output;
  std::string problem;
  EXPECT_TRUE(test::safe_for_a_terminal(swept.output, &problem)) << "sweep printed: " << problem;
}

TEST(HostileHistory, CheckShowsHostileProcsLocksAndKeysEscapedAndKeepsThemInItsJson) {
  const std::string history = std::string{LOCKSIM_TEST_DATA_DIR} + "/hostile/hostile-procs.jsonl";
  const std::string output_json = scratch("hostile-check.json");
  const Result check = run_locksim("check " + history + " --json " + output_json);
  ASSERT_EQ(check.exit_code, 1) << check.output;  // it shows two holders at once
  std::string problem;
  EXPECT_TRUE(test::safe_for_a_terminal(check.output, &problem)) << "check printed: " << problem;
  // A name's line break is shown as \n, so it cannot start a line of its own.
  EXPECT_NE(check.output.find("key\\n\\u{009b}"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("\\e[2Jworker\\u{202e}-1"), std::string::npos) << check.output;
  // The JSON keeps the names exact, unescaped for any terminal.
  const json verdicts = json::parse(read_text(output_json));
  const std::string detail = verdicts.at("histories").at(0).at("violations").at(0).at("detail");
  EXPECT_NE(detail.find("while \x1b[2Jworker\u202e-1 had held it"), std::string::npos) << detail;
}

}  // namespace
}  // namespace locksim::cli_test
