// `locksim merge SUMMARY.json... --json FILE [--junit FILE]`: adds up the
// summaries of the `run --shard K/N` runs of one run (every K of one N, same
// build, scenario files and seeds; runner::shard_set_problems) into the
// summary of the whole run, and judges it.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/core.h>

#include "command.h"
#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "stderr_lines.h"

namespace locksim::cli {
namespace {

// A summary has a few kilobytes per scenario; a file larger than this is not
// one, and is refused before it is read into memory.
constexpr std::uintmax_t kLargestSummaryBytes = std::uintmax_t{256} << 20;

struct MergeArguments {
  std::vector<std::string> files;
  std::string json_file;
  std::string junit_file;
};

void write_file(const std::string& path, const std::string& contents, ExitCode& code) {
  std::ofstream output{path, std::ios::binary};
  output << contents;
  if (!output) {
    print_to_stderr("locksim: {}: cannot write the file\n", path);
    code = more_severe(code, ExitCode::kBadInput);
  }
}

ExitCode merge(const MergeArguments& arguments) {
  std::vector<runner::SummaryInput> inputs;
  for (const std::string& file : arguments.files) {
    std::error_code size_error;
    if (const std::uintmax_t size = std::filesystem::file_size(file, size_error);
        !size_error && size > kLargestSummaryBytes) {
      throw BadInput(fmt::format("{}: the file has {} bytes; a summary may have at most {} (256 MiB)", file, size,
                                 kLargestSummaryBytes));
    }
    std::ifstream input{file, std::ios::binary};
    if (!input) throw BadInput(fmt::format("{}: cannot read the file", file));
    std::ostringstream text;
    text << input.rdbuf();
    try {
      inputs.push_back(reports::summary_input_from_json(text.str(), file));
    } catch (const reports::SummaryError& error) {
      throw BadInput(error.what());
    }
  }
  if (const std::string problems = runner::shard_set_problems(inputs); !problems.empty()) {
    throw BadInput(fmt::format("these are not the shards of one run: {}", problems));
  }
  std::vector<runner::ScenarioSummary> total;
  try {
    total = runner::merge_shards(inputs);
  } catch (const std::overflow_error& error) {
    throw BadInput(fmt::format("{} when added up ({} files)", error.what(), inputs.size()));
  }
  // Every shard of a run names the same files it could not load: each once.
  std::vector<runner::BadScenarioFile> load_errors;
  for (const runner::SummaryInput& input : inputs) {
    for (const runner::BadScenarioFile& bad : input.load_errors) {
      if (std::find(load_errors.begin(), load_errors.end(), bad) == load_errors.end()) load_errors.push_back(bad);
    }
  }
  for (const runner::BadScenarioFile& bad : load_errors) print_to_stderr("locksim: {}\n", bad.message);
  fmt::print("{}", reports::summary_to_table(total, reports::TableDetail::kFull, load_errors.size()));
  print_to_stderr("{}", reports::internal_failures(total));
  ExitCode code = exit_code_of(total);
  if (!load_errors.empty()) code = more_severe(code, ExitCode::kBadInput);  // as the run that could not load them
  write_file(arguments.json_file, reports::summary_to_json(total, load_errors, inputs.front().run_flags), code);
  if (!arguments.junit_file.empty()) write_file(arguments.junit_file, reports::summary_to_junit(total, {load_errors, false}), code);
  return code;
}

}  // namespace

void add_merge_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<MergeArguments>();
  CLI::App* command = app.add_subcommand("merge", "Add up summaries of sharded runs");
  command->add_option("summaries", arguments->files, "Summary JSON files from run --json")->required();
  command->add_option("--json", arguments->json_file, "Write the merged summary here")->required();
  command->add_option("--junit", arguments->junit_file, "Write the merged JUnit XML here");
  command->callback([arguments, &exit_code] { exit_code = merge(*arguments); });
}

}  // namespace locksim::cli
