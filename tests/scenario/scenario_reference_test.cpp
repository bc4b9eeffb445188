#include "scenario/scenario_reference.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "scenario/scenario_parser.h"
#include "vocabulary/fault_kind.h"
#include "tests/text_files.h"

namespace locksim::scenario {
namespace {

using test_support::read_text;

// The keys the parser accepts in the object where `document` holds the
// unknown key "zzzz", read from its "expected one of …" error message: the
// parser's own allowed-key list, not a copy of it.
std::vector<std::string> keys_the_parser_accepts(const std::string& document) {
  try {
    (void)parse_scenario(document, "probe.json");
  } catch (const ScenarioError& error) {
    const std::string message = error.what();
    const std::size_t list = message.find("expected one of ");
    EXPECT_NE(list, std::string::npos) << message;
    if (list == std::string::npos) return {};
    std::vector<std::string> keys;
    const std::string tail = message.substr(list);
    const std::regex quoted{"\"([^\"]+)\""};
    for (auto match = std::sregex_iterator(tail.begin(), tail.end(), quoted); match != std::sregex_iterator(); ++match) {
      keys.push_back((*match)[1]);
    }
    return keys;
  }
  ADD_FAILURE() << "parsed without an error: " << document;
  return {};
}

struct ObjectProbe {
  std::string path;      // the object's JSON pointer
  std::string document;  // a scenario with the unknown key "zzzz" in that object
};

std::vector<ObjectProbe> every_object_the_parser_reads() {
  std::vector<ObjectProbe> probes{
      {"", R"({"name": "x", "zzzz": 1})"},
      {"/service", R"({"name": "x", "service": {"zzzz": 1}})"},
      {"/lock", R"({"name": "x", "lock": {"zzzz": 1}})"},
      {"/workers", R"({"name": "x", "workers": {"zzzz": 1}})"},
      {"/workers/wait_replicas",
       R"({"name": "x", "service": {"kind": "redis-failover"}, "workers": {"wait_replicas": {"zzzz": 1}}})"},
      {"/workload", R"({"name": "x", "workload": {"kind": "counter", "zzzz": 1}})"},
      {"/workload", R"({"name": "x", "workload": {"kind": "billing", "zzzz": 1}})"},
      {"/workload", R"({"name": "x", "workload": {"kind": "write-only", "zzzz": 1}})"},
      {"/storage", R"({"name": "x", "storage": {"zzzz": 1}})"},
      {"/network", R"({"name": "x", "network": {"zzzz": 1}})"},
      {"/clocks", R"({"name": "x", "clocks": {"zzzz": 1}})"},
      {"/expect", R"({"name": "x", "expect": {"zzzz": {}}})"},
      {"/expect/any", R"({"name": "x", "expect": {"any": {"zzzz": "==0"}}})"},
      {"/expect/fencing-on", R"({"name": "x", "expect": {"fencing-on": {"zzzz": "==0"}}})"},
      {"/choices", R"({"name": "x", "choices": {"zzzz": 1}})"},
      {"/choices/deviations/0", R"({"name": "x", "choices": {"deviations": [{"zzzz": 1}]}})"},
  };
  for (const char* kind : {"pause", "crash", "clock-jump", "clock-drift", "partition", "failover", "delay-spike",
                           "starve-renewal", "power-loss", "memory-pressure"}) {
    probes.push_back({"/faults/0", std::string{R"({"name": "x", "faults": [{"kind": ")"} + kind + R"(", "zzzz": 1}]})"});
  }
  for (const char* dist : {"uniform", "exponential", "lognormal", "pareto"}) {
    probes.push_back({"/workers/retry", std::string{R"({"name": "x", "workers": {"retry": {"dist": ")"} + dist +
                                            R"(", "zzzz": 1}}})"});
  }
  return probes;
}

TEST(ScenarioReference, EveryKeyTheParserAcceptsHasAReferenceEntry) {
  int keys = 0;
  for (const ObjectProbe& probe : every_object_the_parser_reads()) {
    const std::vector<std::string> accepted = keys_the_parser_accepts(probe.document);
    EXPECT_FALSE(accepted.empty()) << probe.document;
    for (const std::string& key : accepted) {
      EXPECT_TRUE(find_key_reference(probe.path + "/" + key).has_value()) << probe.path + "/" + key;
      ++keys;
    }
  }
  EXPECT_GT(keys, 80);
}

TEST(ScenarioReference, EveryEntryIsAKeyTheParserAcceptsOrAListItem) {
  std::set<std::string> reached;
  for (const ObjectProbe& probe : every_object_the_parser_reads()) {
    for (const std::string& key : keys_the_parser_accepts(probe.document)) {
      const std::string pointer = probe.path + "/" + key;
      if (const auto entry = find_key_reference(pointer)) reached.insert(std::string{entry->pattern});
    }
  }
  // Reached by position in a list, not by a key the parser lists.
  const std::set<std::string> list_items{"/faults/N", "/faults/N/between/N", "/faults/N/between/N/N",
                                         "/probes_required/N", "/choices/deviations/N", "DISTRIBUTION"};
  for (const KeyReference& entry : scenario_key_reference()) {
    const std::string pattern{entry.pattern};
    EXPECT_TRUE(reached.contains(pattern) || list_items.contains(pattern)) << pattern << " is not a key the parser accepts";
  }
}

TEST(ScenarioReference, EveryEntryStatesTypeAndMeaning) {
  for (const KeyReference& entry : scenario_key_reference()) {
    EXPECT_FALSE(entry.type.empty()) << entry.pattern;
    EXPECT_FALSE(entry.meaning.empty()) << entry.pattern;
  }
}

TEST(ScenarioReference, FindsKeysByConcretePointersWithIndicesModesAndDistributionMembers) {
  EXPECT_EQ(find_key_reference("/workers/retry")->pattern, "/workers/retry");
  EXPECT_EQ(find_key_reference("/faults/0/for")->pattern, "/faults/N/for");
  EXPECT_EQ(find_key_reference("/faults/12/for")->pattern, "/faults/N/for");
  EXPECT_EQ(find_key_reference("/faults/3/for/median")->pattern, "DISTRIBUTION/median");
  EXPECT_EQ(find_key_reference("/network/delay/p99")->pattern, "DISTRIBUTION/p99");
  EXPECT_EQ(find_key_reference("/expect/fencing-off/stale_write")->pattern, "/expect/MODE/MEASURE");
  EXPECT_EQ(find_key_reference("/expect/any/stopped_short")->pattern, "/expect/MODE/MEASURE");
  EXPECT_EQ(find_key_reference("/faults/0/between/1/0")->pattern, "/faults/N/between/N/N");
}

TEST(ScenarioReference, RefusesPointersTheFormatDoesNotHave) {
  EXPECT_FALSE(find_key_reference("/workers/retries").has_value());
  EXPECT_FALSE(find_key_reference("/faults/x/for").has_value());     // not an index
  EXPECT_FALSE(find_key_reference("/expect/sometimes/stale_write").has_value());
  EXPECT_FALSE(find_key_reference("/expect/any/stale_writes").has_value());
  EXPECT_FALSE(find_key_reference("/lock/lease/min").has_value());   // a lease is no distribution
  EXPECT_FALSE(find_key_reference("workers/retry").has_value());     // not a pointer
  EXPECT_FALSE(find_key_reference("/").has_value());
  EXPECT_FALSE(find_key_reference("").has_value());
}

TEST(ScenarioReference, SuggestsTheNearestKeyForANearMiss) {
  EXPECT_EQ(similar_key_patterns("/workers/retyr").front(), "/workers/retry");
  EXPECT_EQ(similar_key_patterns("/faults/0/fro").front(), "/faults/N/for");
  EXPECT_EQ(similar_key_patterns("/lock/leas").front(), "/lock/lease");
  EXPECT_TRUE(similar_key_patterns("/nothing/like/any/key/at/all").empty());
}

TEST(ScenarioReference, ExplainTextCarriesEveryField) {
  const std::string text = key_reference_text("/workers/renew_every", *find_key_reference("/workers/renew_every"));
  EXPECT_EQ(text,
            "/workers/renew_every  (/workers/renew_every)\n"
            "  type:     duration\n"
            "  unit:     time\n"
            "  default:  lease / 3\n"
            "  limits:   > 0\n"
            "  meaning:  the watchdog's period; a warning when it is not shorter than the lease\n");
}

// docs/scenario-format.md holds the table verbatim between two markers, so
// the doc cannot drift from the reference `locksim explain` prints.
TEST(ScenarioReference, TheDocsKeyTableIsTheReferenceTable) {
  const std::string doc = read_text(std::filesystem::path{LOCKSIM_SOURCE_DIR} / "docs" / "scenario-format.md");
  const std::string begin = "<!-- BEGIN key table: generated by `locksim explain --markdown` -->\n";
  const std::string end = "<!-- END key table -->";
  const std::size_t from = doc.find(begin);
  const std::size_t to = doc.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), key_reference_markdown_table())
      << "regenerate the table with `build/locksim explain --markdown`";
}

// The fault kinds' table is made from their types (model/fault.h), so a new
// kind's line cannot be forgotten in the doc.
TEST(ScenarioReference, TheDocsFaultTableIsMadeFromTheFaultTypes) {
  const std::string doc = read_text(std::filesystem::path{LOCKSIM_SOURCE_DIR} / "docs" / "scenario-format.md");
  const std::string begin =
      "<!-- BEGIN fault table: generated by `locksim explain --markdown` (the second table), from model/fault.h -->\n";
  const std::string end = "<!-- END fault table -->";
  const std::size_t from = doc.find(begin);
  const std::size_t to = doc.find(end);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string table = fault_kind_markdown_table();
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), table)
      << "regenerate the table with `build/locksim explain --markdown`";
  for (const std::string_view kind : vocabulary::kFaultKindNames) {
    EXPECT_NE(table.find(fmt::format("| `{}` |", kind)), std::string::npos) << kind;
  }
}

}  // namespace
}  // namespace locksim::scenario
