#include "reports/terminal_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "reports/expectation_text.h"
#include "scenario/fencing_modes.h"
#include "text/terminal_escape.h"

namespace locksim::reports {

std::string_view violation_column_head(checker::ViolationKind kind) {
  switch (kind) {
    case checker::ViolationKind::kDoubleGrant: return "dgrant";
    case checker::ViolationKind::kDoubleHolder: return "dholder";
    case checker::ViolationKind::kStaleWrite: return "stale";
    case checker::ViolationKind::kForeignRelease: return "foreign";
    case checker::ViolationKind::kStuckLock: return "stuck";
    case checker::ViolationKind::kLostUpdate: return "lost";
    case checker::ViolationKind::kDuplicateEffect: return "dup";
    case checker::ViolationKind::kTokenOrder: return "token";
  }
  return "?";
}

namespace {

// After the violations: late writes (not a violation) and the run outcomes.
constexpr std::string_view kLateHead = "late";
constexpr std::string_view kStoppedShortHead = "short";
constexpr std::string_view kUnfinishedHead = "unfin";

std::size_t name_width(const std::vector<runner::ScenarioSummary>& scenarios) {
  std::size_t width = 8;
  for (const runner::ScenarioSummary& scenario : scenarios) width = std::max(width, text::terminal_escaped(scenario.name).size());
  return width;
}

// The numeric columns after the status: their heads and, per mode, their cells.
std::vector<std::string> number_heads() {
  std::vector<std::string> heads{"runs", "failed"};
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) heads.emplace_back(violation_column_head(kind));
  for (const std::string_view head : {kLateHead, kStoppedShortHead, kUnfinishedHead}) heads.emplace_back(head);
  heads.emplace_back("faults");
  return heads;
}

std::vector<std::string> number_cells(const runner::ModeSummary& mode) {
  std::vector<std::string> cells{std::to_string(mode.runs), std::to_string(mode.runs_with_violation)};
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) cells.push_back(std::to_string(mode.incidents.at(kind)));
  for (const std::int64_t count : {mode.late_writes, mode.stopped_short, mode.unfinished_jobs}) {
    cells.push_back(std::to_string(count));
  }
  std::int64_t fired = 0;
  for (const auto& [fault, runs] : mode.faults_fired) fired += runs > 0 ? 1 : 0;
  cells.push_back(fmt::format("{}/{}", fired, mode.faults_fired.size()));
  return cells;
}

// Each numeric column as wide as its head or its widest cell.
std::vector<std::size_t> number_widths(const std::vector<runner::ScenarioSummary>& scenarios) {
  std::vector<std::size_t> widths;
  for (const std::string& head : number_heads()) widths.push_back(head.size());
  for (const runner::ScenarioSummary& scenario : scenarios) {
    for (const runner::ModeSummary& mode : scenario.modes) {
      const std::vector<std::string> cells = number_cells(mode);
      for (std::size_t column = 0; column < cells.size(); ++column) widths[column] = std::max(widths[column], cells[column].size());
    }
  }
  return widths;
}

std::string row(std::string_view name, std::size_t name_width, std::string_view mode, std::string_view status,
                const std::vector<std::string>& numbers, const std::vector<std::size_t>& widths) {
  std::string line = fmt::format("{:<{}}  {:<11} {:<10}", name, name_width, mode, status);
  for (std::size_t column = 0; column < numbers.size(); ++column) line += fmt::format(" {:>{}}", numbers[column], widths[column]);
  return line + "\n";
}

// What each column and status means, under the table.
constexpr std::string_view kLegend =
    "status: passed = every expectation held; reproduced = they held, one of them saying the hazard happens (\">0\");\n"
    "        not judged = no expectation applies to a mode that ran; failed = an expectation failed, or no fault fired\n"
    "runs: seeds run in the mode; failed: runs with at least one violation\n"
    "dgrant dholder stale foreign stuck lost dup token: incidents of double_grant, double_holder, stale_write,\n"
    "  foreign_release, stuck_lock, lost_update, duplicate_effect, token_order. One incident: one stretch of time in\n"
    "  which two held the lock (two holds, or two promised leases, overlapping without a break), the stale writes of\n"
    "  one superseded holding, the extra effects of one job, the lost updates of one run, the out-of-order tokens of\n"
    "  one counter running below its highest; the lines below give the pairs and writes\n"
    "late: writes of a superseded holder that still landed in lock order (no violation)\n"
    "short: runs cut short (time or event limit with jobs left); unfin: jobs not done at the end\n"
    "faults F/T: F of the scenario's T fault entries fired in at least one run\n";

// What one violation of `kind` is, to count them: "760 pairs".
std::string violations_words(checker::ViolationKind kind, std::int64_t count) {
  const auto plural = [count](std::string_view one, std::string_view many) {
    return fmt::format("{} {}", count, count == 1 ? one : many);
  };
  switch (kind) {
    case checker::ViolationKind::kDoubleGrant:
    case checker::ViolationKind::kDoubleHolder: return plural("pair", "pairs");
    case checker::ViolationKind::kStaleWrite: return plural("write", "writes");
    case checker::ViolationKind::kForeignRelease: return plural("release", "releases");
    case checker::ViolationKind::kStuckLock: return plural("lease", "leases");
    case checker::ViolationKind::kLostUpdate: return plural("update", "updates");
    case checker::ViolationKind::kDuplicateEffect: return plural("extra effect", "extra effects");
    case checker::ViolationKind::kTokenOrder: return plural("token", "tokens");
  }
  return std::to_string(count);
}

// Per mode with violations: each kind's incidents, what they are made of,
// and the share of runs with one.
std::string detail_lines(const std::vector<runner::ScenarioSummary>& scenarios) {
  std::string lines;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    for (const runner::ModeSummary& mode : scenario.modes) {
      std::vector<std::string> parts;
      for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
        const std::int64_t incidents = mode.incidents.at(kind);
        if (incidents == 0) continue;
        const std::int64_t runs_with = mode.runs_with_any(kind);
        parts.push_back(fmt::format("{} {} ({}, {:.3g}% of runs)", checker::violation_kind_name(kind), incidents,
                                    violations_words(kind, mode.violations.at(kind)),
                                    100.0 * static_cast<double>(runs_with) / static_cast<double>(std::max<std::int64_t>(mode.runs, 1))));
      }
      if (!parts.empty()) {
        lines += fmt::format("  {} {}: {}\n", text::terminal_escaped(scenario.name), scenario::fencing_mode_name(mode.mode), fmt::join(parts, "; "));
      }
    }
  }
  return lines.empty() ? "" : "\nincidents (violations, share of runs with one):\n" + lines;
}

bool outcome_failed(const runner::ScenarioSummary& scenario, const runner::ModeSummary& mode) {
  return std::any_of(scenario.expectations.begin(), scenario.expectations.end(), [&](const runner::ExpectationResult& r) {
    return r.mode == mode.mode && !r.ok && std::holds_alternative<scenario::RunOutcomeKind>(r.measure);
  });
}

std::string failure_lines(const runner::ScenarioSummary& scenario) {
  std::string lines =
      fmt::format("\nFAIL {}{}\n", text::terminal_escaped(scenario.name), scenario.file.empty() ? "" : " (" + text::terminal_escaped(scenario.file) + ")");
  for (const runner::ExpectationResult& result : scenario.expectations) {
    if (result.ok) continue;
    lines += fmt::format("  {}: {}\n", scenario::fencing_mode_name(result.mode), expectation_words(result));
    if (const std::string where = failure_replay_words(result); !where.empty()) lines += fmt::format("    {}\n", where);
  }
  for (const std::string& why : scenario.inert) lines += fmt::format("  inert: {}\n", why);
  for (const std::uint64_t seed : scenario.recheck_failed) {
    lines += fmt::format("  determinism: two runs of seed {} gave different histories\n", seed);
  }
  for (const runner::ModeSummary& mode : scenario.modes) {
    const std::string_view name = scenario::fencing_mode_name(mode.mode);
    if (mode.stopped_short_example && outcome_failed(scenario, mode)) {
      lines += fmt::format("  {}: stopped short: {}\n", name, stopped_short_words(*mode.stopped_short_example));
      lines += fmt::format("  replay {} (stopped short): {}\n", name, mode.stopped_short_example->replay);
    }
    if (!mode.replay.empty()) lines += fmt::format("  replay {}: {}\n", name, mode.replay);
  }
  return lines;
}

// Why a scenario that failed nothing still proved nothing, and what it saw.
std::string not_judged_lines(const runner::ScenarioSummary& scenario) {
  std::string lines =
      fmt::format("\nNOT JUDGED {}{}\n", text::terminal_escaped(scenario.name), scenario.file.empty() ? "" : " (" + text::terminal_escaped(scenario.file) + ")");
  for (const runner::ModeSummary& mode : scenario.modes) {
    const std::string_view name = scenario::fencing_mode_name(mode.mode);
    if (!mode.judged) lines += fmt::format("  {}: no expectation in the file applies to this mode\n", name);
    std::vector<std::string> seen;
    for (const auto& [kind, count] : mode.violations) {
      if (count > 0) {
        seen.push_back(fmt::format("{} {} in {} incident{}", checker::violation_kind_name(kind), count,
                                   mode.incidents.at(kind), mode.incidents.at(kind) == 1 ? "" : "s"));
      }
    }
    if (!seen.empty()) {
      lines += fmt::format("  {}: {} of {} runs had violations: {}\n", name, mode.runs_with_violation, mode.runs,
                           fmt::join(seen, ", "));
    }
    if (!mode.replay.empty()) lines += fmt::format("  replay {}: {}\n", name, mode.replay);
  }
  return lines;
}

// "26 scenarios: 20 passed, 5 reproduced their hazard, 1 not judged" (parts
// that are zero left out; "26 scenarios: 26 passed" when all passed).
std::string count_line(const std::vector<runner::ScenarioSummary>& scenarios, std::size_t unloaded_files) {
  std::size_t passed = 0;
  std::size_t reproduced = 0;
  std::size_t not_judged = 0;
  std::size_t failed = 0;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    if (!scenario.ok) {
      ++failed;
    } else if (!scenario.judged) {
      ++not_judged;
    } else if (scenario.reproduced) {
      ++reproduced;
    } else {
      ++passed;
    }
  }
  std::vector<std::string> parts;
  if (passed > 0) parts.push_back(fmt::format("{} passed", passed));
  if (reproduced > 0) parts.push_back(fmt::format("{} reproduced their hazard", reproduced));
  if (not_judged > 0) parts.push_back(fmt::format("{} not judged", not_judged));
  if (failed > 0) parts.push_back(fmt::format("{} failed", failed));
  if (unloaded_files > 0) {
    parts.push_back(fmt::format("{} scenario file{} not loaded (bad input)", unloaded_files, unloaded_files == 1 ? "" : "s"));
  }
  return fmt::format("{} scenario{}: {}\n", scenarios.size(), scenarios.size() == 1 ? "" : "s",
                     parts.empty() ? "none run" : fmt::format("{}", fmt::join(parts, ", ")));
}

}  // namespace

std::string scenario_status(const runner::ScenarioSummary& scenario) {
  if (scenario.partial()) return "not judged";  // a shard: merge the shards to judge
  if (!scenario.ok) return "failed";
  if (!scenario.judged) return "not judged";
  return scenario.reproduced ? "reproduced" : "passed";
}

std::string summary_to_table(const std::vector<runner::ScenarioSummary>& scenarios, TableDetail detail,
                             std::size_t unloaded_files) {
  const std::size_t width = name_width(scenarios);
  std::string table;
  if (detail == TableDetail::kFull) {
    const std::vector<std::size_t> widths = number_widths(scenarios);
    table = row("scenario", width, "mode", "status", number_heads(), widths);
    for (const runner::ScenarioSummary& scenario : scenarios) {
      for (std::size_t index = 0; index < scenario.modes.size(); ++index) {
        const runner::ModeSummary& mode = scenario.modes[index];
        const bool first = index == 0;
        table += row(first ? text::terminal_escaped(scenario.name) : "", width, scenario::fencing_mode_name(mode.mode),
                     first ? scenario_status(scenario) : "", number_cells(mode), widths);
      }
    }
    table += "\n" + std::string{kLegend} + detail_lines(scenarios);
  }
  std::string shard_line;  // a shard's summary has only some seeds: it passes and fails no totals
  for (const runner::ScenarioSummary& scenario : scenarios) {
    if (scenario.partial()) {
      shard_line = fmt::format("shard {}/{}: not judged; merge the shards to judge\n", scenario.shard_index,
                               scenario.shard_count);
    }
    if (!scenario.ok) {
      table += failure_lines(scenario);
    } else if (!scenario.judged && !scenario.partial()) {
      table += not_judged_lines(scenario);
    }
  }
  table += "\n" + (shard_line.empty() ? count_line(scenarios, unloaded_files) : shard_line);
  // Quiet output starts with its first line of content, not a blank line.
  if (detail == TableDetail::kFailuresOnly) table.erase(0, 1);
  // Scenario names and messages are the user's: escaped for the terminal.
  return text::terminal_escaped_lines(table);
}

std::string speed_line(const std::vector<runner::ScenarioSummary>& scenarios, unsigned threads) {
  std::int64_t runs = 0;
  double wall_seconds = 0;
  std::int64_t events = 0;
  std::int64_t virtual_ns = 0;
  double cpu_seconds = 0;
  for (const runner::ScenarioSummary& scenario : scenarios) {
    wall_seconds += scenario.wall_seconds;
    cpu_seconds += scenario.cpu_seconds();
    for (const runner::ModeSummary& mode : scenario.modes) {
      runs += mode.runs;
      events += mode.events;
      virtual_ns += mode.virtual_ns;
    }
  }
  const double seconds = std::max(wall_seconds, 1e-9);
  return fmt::format("speed: {} runs (seed x mode) in {:.2f} s wall ({:.2f} s CPU) on {} thread{}: {:.0f} runs/s, "
                     "{:.2f} M events/s, virtual/wall {:.3g}\n",
                     runs, wall_seconds, cpu_seconds, threads, threads == 1 ? "" : "s", static_cast<double>(runs) / seconds,
                     static_cast<double>(events) / seconds / 1e6, static_cast<double>(virtual_ns) / 1e9 / seconds);
}

// What the determinism self-check re-ran, in seeds, and whether it held:
// "recheck: 4 seeds run twice, histories identical".
std::string recheck_line(const std::vector<runner::ScenarioSummary>& summaries) {
  std::uint64_t seeds = 0;
  std::vector<std::string> failures;
  for (const runner::ScenarioSummary& summary : summaries) {
    seeds += summary.rechecked;
    if (!summary.recheck_failed.empty()) {
      failures.push_back(fmt::format("{} seeds {}", text::terminal_escaped(summary.name), fmt::join(summary.recheck_failed, ", ")));
    }
  }
  const std::string run_twice = fmt::format("recheck: {} seed{} run twice", seeds, seeds == 1 ? "" : "s");
  if (failures.empty()) return run_twice + ", histories identical\n";
  return fmt::format("{}, histories differ: {}\n", run_twice, fmt::join(failures, "; "));
}

std::string internal_failures(const std::vector<runner::ScenarioSummary>& scenarios) {
  std::string lines;
  for (const runner::ScenarioSummary& summary : scenarios) {
    if (!summary.recheck_failed.empty()) {
      lines += fmt::format("locksim: determinism self-check failed for {} (seeds {})\n", text::terminal_escaped(summary.name),
                           fmt::join(summary.recheck_failed, ", "));
    }
    for (const runner::ModeSummary& mode : summary.modes) {
      if (mode.oracle_disagreeing_runs == 0) continue;
      lines += fmt::format("locksim: the checker and the oracle disagree on {} of {} runs of {} {} (a bug in one of "
                           "them, or a model that records something other than what happened):\n",
                           mode.oracle_disagreeing_runs, mode.oracle_runs, text::terminal_escaped(summary.name),
                           scenario::fencing_mode_name(mode.mode));
      for (const runner::OracleDisagreement& disagreement : mode.oracle_disagreements) {
        lines += fmt::format("  seed {}: {}: checker {}, oracle {}; replay: {}\n", disagreement.seed,
                             disagreement.kind, disagreement.checker, disagreement.oracle, disagreement.replay);
      }
    }
  }
  return text::terminal_escaped_lines(lines);
}

}  // namespace locksim::reports
