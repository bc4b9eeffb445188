// The JUnit report's other outcomes: a scenario file that could not be
// loaded is an <error> test case of its own, and a mode no stated
// expectation applies to is <skipped> (a <failure> when expectations are
// required). The XML stays well-formed whatever the messages hold.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "reports/junit_xml.h"
#include "runner/summary.h"

namespace locksim::runner {
namespace {

pugi::xml_document parsed(const std::string& xml) {
  pugi::xml_document document;
  const pugi::xml_parse_result result = document.load_string(xml.c_str());
  EXPECT_TRUE(result) << result.description() << "\n" << xml;
  return document;
}

// One scenario with one fencing-off mode of 4 runs that nothing judges.
ScenarioSummary not_judged_summary() {
  ScenarioSummary summary;
  summary.name = "unjudged";
  summary.modes.push_back(empty_mode_summary(model::Fencing::kOff, 0));
  summary.modes[0].runs = 4;
  summary.modes[0].runs_with_violation = 2;
  summary.modes[0].replay = "build/locksim replay unjudged.json --seed 3 --fencing off";
  summary.expectations = {};
  judge(summary);
  return summary;
}

TEST(JunitErrors, ABadFileIsAnErrorTestcaseCarryingItsMessage) {
  const reports::JunitOptions options{{{"suite/b<&>.json", "suite/b<&>.json: /workers/count: expected a whole number"}}};
  const pugi::xml_document document = parsed(reports::summary_to_junit({}, options));
  const pugi::xml_node suites = document.child("testsuites");
  EXPECT_EQ(suites.attribute("errors").as_int(), 1);
  EXPECT_EQ(suites.attribute("tests").as_int(), 1);
  const pugi::xml_node error = suites.child("testsuite").find_child_by_attribute("testcase", "name", "load").child("error");
  ASSERT_TRUE(error);
  EXPECT_STREQ(error.attribute("message").value(), "suite/b<&>.json: /workers/count: expected a whole number");
  EXPECT_STREQ(suites.child("testsuite").attribute("name").value(), "suite/b<&>.json");
}

TEST(JunitErrors, ANotJudgedModeIsSkippedWithItsReplayCommand) {
  const ScenarioSummary summary = not_judged_summary();
  ASSERT_FALSE(summary.judged);
  const pugi::xml_document document = parsed(reports::summary_to_junit({summary}));
  const pugi::xml_node testcase = document.child("testsuites").child("testsuite").child("testcase");
  EXPECT_FALSE(testcase.child("failure"));
  const std::string message = testcase.child("skipped").attribute("message").value();
  EXPECT_NE(message.find("not judged"), std::string::npos) << message;
  EXPECT_NE(message.find("2 of 4 runs had violations"), std::string::npos) << message;
  EXPECT_NE(message.find("build/locksim replay unjudged.json --seed 3"), std::string::npos) << message;
}

TEST(JunitErrors, ANotJudgedModeIsAFailureWhenExpectationsAreRequired) {
  reports::JunitOptions options;
  options.require_expectations = true;
  const pugi::xml_document document = parsed(reports::summary_to_junit({not_judged_summary()}, options));
  EXPECT_EQ(document.child("testsuites").attribute("failures").as_int(), 1);
  const pugi::xml_node failure = document.child("testsuites").child("testsuite").child("testcase").child("failure");
  ASSERT_TRUE(failure);
  EXPECT_NE(std::string{failure.attribute("message").value()}.find("not judged"), std::string::npos);
}

}  // namespace
}  // namespace locksim::runner
