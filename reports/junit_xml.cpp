#include "reports/junit_xml.h"

#include <fmt/core.h>

#include "reports/expectation_text.h"
#include "reports/svg_document.h"
#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

// Names, messages and replay commands carry the user's text.
std::string escaped(std::string_view text) { return xml_escaped(text); }

// What went wrong in one mode of one scenario, one line each.
std::vector<std::string> failures_of(const runner::ScenarioSummary& scenario, const runner::ModeSummary& mode) {
  std::vector<std::string> lines;
  const std::string mode_name{scenario::fencing_mode_name(mode.mode)};
  bool outcome_failed = false;
  for (const runner::ExpectationResult& result : scenario.expectations) {
    if (result.mode == mode.mode && !result.ok) {
      lines.push_back(expectation_words(result));
      if (const std::string where = failure_replay_words(result); !where.empty()) lines.push_back(where);
      outcome_failed = outcome_failed || std::holds_alternative<scenario::RunOutcomeKind>(result.measure);
    }
  }
  if (outcome_failed && mode.stopped_short_example) {
    lines.push_back("stopped short: " + stopped_short_words(*mode.stopped_short_example));
    lines.push_back("replay (stopped short): " + mode.stopped_short_example->replay);
  }
  for (const std::string& why : scenario.inert) {
    if (why.rfind(mode_name + ":", 0) == 0) lines.push_back("inert: " + why.substr(mode_name.size() + 2));
  }
  for (const std::uint64_t seed : scenario.recheck_failed) {
    lines.push_back(fmt::format("determinism: two runs of seed {} gave different histories", seed));
  }
  for (const runner::OracleDisagreement& disagreement : mode.oracle_disagreements) {
    lines.push_back(fmt::format("oracle: seed {}: {}: checker {}, oracle {}; replay: {}", disagreement.seed,
                                disagreement.kind, disagreement.checker, disagreement.oracle, disagreement.replay));
  }
  return lines;
}

// A mode's part of the scenario's wall time: the modes run seed by seed,
// interleaved, so each gets the share its CPU time had; the cases add up
// to the suite's time.
double wall_share(const runner::ScenarioSummary& scenario, const runner::ModeSummary& mode) {
  const double cpu = scenario.cpu_seconds();
  if (cpu <= 0) return scenario.wall_seconds / static_cast<double>(scenario.modes.size());
  return scenario.wall_seconds * mode.cpu_seconds / cpu;
}

}  // namespace

std::string summary_to_junit(const std::vector<runner::ScenarioSummary>& scenarios, const JunitOptions& options) {
  std::size_t tests = 0;
  std::size_t failures = 0;
  std::size_t errors = 0;
  double total_seconds = 0;
  std::string suites;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    std::string cases;
    std::size_t suite_failures = 0;
    for (const runner::ModeSummary& mode : scenario.modes) {
      std::vector<std::string> problems = failures_of(scenario, mode);
      const bool not_judged = !mode.judged && mode.runs > 0;
      if (not_judged && options.require_expectations) {
        problems.push_back("not judged: no expectation in the file applies to this mode (--require-expectations)");
      }
      cases += fmt::format(R"(    <testcase classname="{}" name="{}" time="{:.3f}">)", escaped(scenario.name),
                           escaped(scenario::fencing_mode_name(mode.mode)), wall_share(scenario, mode));
      if (!problems.empty()) {
        ++suite_failures;
        std::string text;
        for (const std::string& problem : problems) text += problem + "\n";
        const std::string replay = mode.replay.empty() ? "" : "replay: " + mode.replay;
        text += replay;
        cases += fmt::format("\n      <failure message=\"{}\" type=\"expectation\">{}</failure>\n    ",
                             escaped(problems.front()), escaped(text));
      } else if (not_judged) {
        const std::string replay = mode.replay.empty() ? "" : "; replay: " + mode.replay;
        cases += fmt::format("\n      <skipped message=\"{}\"/>\n    ",
                             escaped(fmt::format("not judged: no expectation in the file applies to this mode; {} of {} "
                                                 "runs had violations{}",
                                                 mode.runs_with_violation, mode.runs, replay)));
      }
      cases += "</testcase>\n";
    }
    tests += scenario.modes.size();
    failures += suite_failures;
    // A shard judges no expectation; say so where CI shows it.
    const std::string shard_note =
        scenario.partial() ? fmt::format("    <system-out>shard {}/{}: not judged; merge the shards to judge</system-out>\n",
                                         scenario.shard_index, scenario.shard_count)
                           : "";
    suites += fmt::format(R"(  <testsuite name="{}" tests="{}" failures="{}" errors="0" time="{:.3f}">)"
                          "\n{}{}  </testsuite>\n",
                          escaped(scenario.name), scenario.modes.size(), suite_failures, scenario.wall_seconds, cases, shard_note);
    total_seconds += scenario.wall_seconds;
  }
  for (const BadScenarioFile& bad : options.bad_files) {
    ++tests;
    ++errors;
    suites += fmt::format("  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.000\">\n"
                          "    <testcase classname=\"{0}\" name=\"load\" time=\"0.000\">\n"
                          "      <error message=\"{1}\" type=\"bad_input\">{1}</error>\n"
                          "    </testcase>\n  </testsuite>\n",
                          escaped(bad.file), escaped(bad.message));
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"locksim\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}</testsuites>\n",
                     tests, failures, errors, total_seconds, suites);
}

}  // namespace locksim::reports
