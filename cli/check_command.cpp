// `locksim check HISTORY.jsonl... [--json FILE] [--stuck-after DURATION]`
// (docs/cli.md): runs the checker on histories from anywhere, prints a short
// summary per history, optionally writes the JSON document, and exits 0 (no
// violation), 1 (a violation) or 2 (bad usage or bad input, or a history in
// which every check was skipped: nothing judged is no pass).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "checker/history_checker.h"
#include "checker/history_reader.h"
#include "checker/verdict_report.h"
#include "command.h"
#include "sim/duration_text.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

// How many violations the terminal summary explains per history.
constexpr std::size_t kViolationsShown = 5;

struct CheckArguments {
  std::vector<std::string> histories;
  std::string json_path;
  std::string stuck_after_text;
};

// "45s", "1.5s", "250ms", "2m", or a plain number of milliseconds.
std::int64_t parse_stuck_after(const std::string& text) {
  const bool plain_number = !text.empty() && std::all_of(text.begin(), text.end(), [](char character) {
    return std::isdigit(static_cast<unsigned char>(character)) != 0 || character == '.';
  });
  const sim::DurationParse parsed = sim::parse_duration(plain_number ? text + "ms" : text);
  if (!parsed.duration) {
    throw BadInput(fmt::format("--stuck-after: {}", parsed.error));
  }
  if (parsed.duration->count_ns() <= 0) {
    throw BadInput(fmt::format("--stuck-after: expected a positive duration, got \"{}\"", text));
  }
  if (parsed.duration->count_ns() > checker::kLongestTimeNs) {
    throw BadInput(fmt::format("--stuck-after: expected at most {} ns (about 31.7 years, as every time in a history), "
                               "got \"{}\"", checker::kLongestTimeNs, text));
  }
  return parsed.duration->count_ns();
}

void write_json(const std::string& path, const std::string& document) {
  std::ofstream out{path, std::ios::binary | std::ios::trunc};
  out << document;
  out.flush();
  if (!out) {
    throw BadInput(fmt::format("--json {}: cannot write the file: {}", path, std::strerror(errno)));
  }
}

ExitCode run_check(const CheckArguments& arguments) {
  checker::CheckOptions options;
  if (!arguments.stuck_after_text.empty()) {
    options.stuck_after_ns = parse_stuck_after(arguments.stuck_after_text);
  }
  std::vector<checker::HistoryVerdict> verdicts;
  bool bad_input = false;
  bool violation = false;
  bool unjudged = false;  // a history where every check was skipped: no pass, but its verdict is written
  for (const std::string& path : arguments.histories) {
    checker::CheckOutcome outcome = checker::check_history_file(path, options);
    if (outcome.error) {
      // Go on with the other files, so one bad file does not hide the rest.
      print_to_stderr("locksim: {}\n", outcome.error->message());
      bad_input = true;
      continue;
    }
    fmt::print("{}", checker::verdict_text(outcome.verdict, kViolationsShown));
    violation = violation || !outcome.verdict.ok();
    if (!outcome.verdict.judged()) {
      print_to_stderr("locksim: {}: nothing judged: every check was skipped for want of its events (listed "
                 "above); a history needs lock-service, hold, acquire or storage events (docs/history-format.md)\n",
                 path);
      unjudged = true;
    }
    verdicts.push_back(std::move(outcome.verdict));
  }
  ExitCode code = violation ? ExitCode::kExpectationFailed : ExitCode::kOk;
  if (bad_input) {
    // No --json: a document without the bad histories would read as complete.
    return more_severe(code, ExitCode::kBadInput);
  }
  if (!arguments.json_path.empty()) {
    try {
      write_json(arguments.json_path, checker::verdicts_json(verdicts));
    } catch (const BadInput& error) {
      print_to_stderr("locksim: {}\n", error.what());
      code = more_severe(code, ExitCode::kBadInput);
    }
  }
  if (unjudged) code = more_severe(code, ExitCode::kBadInput);
  std::fflush(stdout);
  return code;
}

}  // namespace

void add_check_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<CheckArguments>();
  CLI::App* command = app.add_subcommand("check", "Check histories (JSON Lines) for lock violations");
  command->add_option("histories", arguments->histories, "History files (JSON Lines, docs/history-format.md)")->required();
  command->add_option("--json", arguments->json_path, "Write the verdicts as JSON to FILE");
  command->add_option("--stuck-after", arguments->stuck_after_text,
                      "stuck_lock threshold, e.g. 45s, 1.5s, 250ms, 2m (plain number: ms); "
                      "default: run.begin's stuck_after_ns, else 10 x lease, or 1m without a lease");
  command->callback([arguments, &exit_code] { exit_code = run_check(*arguments); });
}

}  // namespace locksim::cli
