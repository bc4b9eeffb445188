// `locksim merge SUMMARY.json... --json FILE`: adds up the summaries of
// `run --shard K/N` runs into the summary of the whole run.

#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "command.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"

namespace locksim::cli {
namespace {

struct MergeArguments {
  std::vector<std::string> files;
  std::string json_file;
};

ExitCode merge(const MergeArguments& arguments) {
  std::vector<runner::ScenarioSummary> total;
  for (const std::string& file : arguments.files) {
    std::ifstream input{file, std::ios::binary};
    if (!input) throw BadInput(fmt::format("{}: cannot read the file", file));
    std::ostringstream text;
    text << input.rdbuf();
    try {
      runner::merge_summaries(total, reports::summary_from_json(text.str(), file));
    } catch (const reports::SummaryError& error) {
      throw BadInput(error.what());
    }
  }
  fmt::print("{}", reports::summary_to_table(total));
  fmt::print(stderr, "{}", reports::internal_failures(total));
  ExitCode code = exit_code_of(total);
  std::ofstream output{arguments.json_file, std::ios::binary};
  output << reports::summary_to_json(total);
  if (!output) {
    fmt::print(stderr, "locksim: {}: cannot write the file\n", arguments.json_file);
    code = more_severe(code, ExitCode::kBadInput);
  }
  return code;
}

}  // namespace

void add_merge_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<MergeArguments>();
  CLI::App* command = app.add_subcommand("merge", "Add up summaries of sharded runs");
  command->add_option("summaries", arguments->files, "Summary JSON files from run --json")->required();
  command->add_option("--json", arguments->json_file, "Write the merged summary here")->required();
  command->callback([arguments, &exit_code] { exit_code = merge(*arguments); });
}

}  // namespace locksim::cli
