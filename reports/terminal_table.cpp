#include "reports/terminal_table.h"

#include <algorithm>

#include <fmt/core.h>

#include "scenarios/scenario_parser.h"

namespace locksim::reports {
namespace {

// Short column heads for the spec's violation names, in spec order.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kColumns{{
    {"double_grant", "dgrant"},
    {"double_holder", "dholder"},
    {"stale_write", "stale"},
    {"foreign_release", "foreign"},
    {"stuck_lock", "stuck"},
    {"lost_update", "lost"},
    {"duplicate_effect", "dup"},
}};

std::size_t name_width(const std::vector<runner::ScenarioSummary>& scenarios) {
  std::size_t width = 8;
  for (const runner::ScenarioSummary& scenario : scenarios) width = std::max(width, scenario.name.size());
  return width;
}

std::string mode_row(const runner::ScenarioSummary& scenario, const runner::ModeSummary& mode, bool first,
                     std::size_t width) {
  std::string row = fmt::format("{:<{}}  {:<11} {:>5} {:>6}", first ? scenario.name : "", width, mode.mode, mode.runs,
                                mode.runs_with_violation);
  for (const auto& [name, head] : kColumns) {
    row += fmt::format(" {:>{}}", mode.violations.at(std::string{name}), head.size());
  }
  std::int64_t fired = 0;
  for (const auto& [fault, runs] : mode.faults_fired) fired += runs > 0 ? 1 : 0;
  row += fmt::format(" {:>6}", fmt::format("{}/{}", fired, mode.faults_fired.size()));
  return row + "\n";
}

}  // namespace

std::string summary_to_table(const std::vector<runner::ScenarioSummary>& scenarios) {
  const std::size_t width = name_width(scenarios);
  std::string table = fmt::format("{:<{}}  {:<11} {:>5} {:>6}", "scenario", width, "mode", "runs", "failed");
  for (const auto& [name, head] : kColumns) table += fmt::format(" {}", head);
  table += fmt::format(" {:>6}\n", "faults");
  for (const runner::ScenarioSummary& scenario : scenarios) {
    for (std::size_t index = 0; index < scenario.modes.size(); ++index) {
      table += mode_row(scenario, scenario.modes[index], index == 0, width);
    }
  }
  std::size_t passed = 0;
  std::string problems;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    if (scenario.ok) {
      ++passed;
      continue;
    }
    problems += fmt::format("\nFAIL {}{}\n", scenario.name, scenario.file.empty() ? "" : " (" + scenario.file + ")");
    for (const runner::ExpectationResult& result : scenario.expectations) {
      if (result.ok) continue;
      problems += fmt::format("  {}: expected {} {}{}, got {}\n", result.mode, result.violation, result.op, result.value,
                              result.actual);
    }
    for (const std::string& why : scenario.inert) problems += fmt::format("  inert: {}\n", why);
    for (const std::uint64_t seed : scenario.recheck_failed) {
      problems += fmt::format("  determinism: two runs of seed {} gave different histories\n", seed);
    }
    for (const runner::ModeSummary& mode : scenario.modes) {
      if (!mode.replay.empty()) problems += fmt::format("  replay {}: {}\n", mode.mode, mode.replay);
    }
  }
  table += problems;
  table += fmt::format("\n{} of {} scenarios passed\n", passed, scenarios.size());
  return table;
}

std::string speed_line(const std::vector<runner::ScenarioSummary>& scenarios, double wall_seconds, unsigned threads) {
  std::int64_t runs = 0;
  std::uint64_t events = 0;
  std::int64_t virtual_ns = 0;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    for (const runner::ModeSummary& mode : scenario.modes) {
      runs += mode.runs;
      events += mode.events;
      virtual_ns += mode.virtual_ns;
    }
  }
  const double seconds = std::max(wall_seconds, 1e-9);
  return fmt::format("speed: {} runs (seed x mode) in {:.2f} s on {} thread{}: {:.0f} runs/s, {:.2f} M events/s, "
                     "virtual/wall {:.3g}\n",
                     runs, wall_seconds, threads, threads == 1 ? "" : "s", static_cast<double>(runs) / seconds,
                     static_cast<double>(events) / seconds / 1e6, static_cast<double>(virtual_ns) / 1e9 / seconds);
}

}  // namespace locksim::reports
