// `locksim advise SCENARIO [--seeds N] [--most-seeds N] [--threads N]
//   [--write DIR] [--json FILE]`: run the scenario as written and with each
// mitigation that applies, on the same seeds, and print which removes the
// most harm (advise/advice.h), why, and what it costs.
//
// Exit: 0 when advice was given (or nothing showed harm); 2 bad input.

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "advise/advice.h"
#include "command.h"
#include "output_files.h"
#include "reports/advice_text.h"
#include "scenario_files.h"
#include "text/terminal_escape.h"

namespace locksim::cli {
namespace {

struct AdviseArguments {
  std::string path;
  std::optional<std::uint64_t> seeds;
  std::uint64_t most_seeds = 3'200;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::string write_dir;
  std::string json_file;
};

// Each row's variant as DIR/NAME.json (the file as written too): `run` runs what advise ran.
std::vector<std::string> write_variants(const advise::Advice& advice, const std::string& directory) {
  std::vector<std::string> written;
  for (const advise::AdviceRow& row : advice.rows) {
    const std::string slug = row.mitigation.empty() ? "as-written" : advise::mitigation_slug(row.mitigation);
    const std::filesystem::path path =
        std::filesystem::path{directory} / (file_name_part(advice.scenario) + "-" + slug + ".json");
    write_output_file(path, row.file_text);
    written.push_back(path.string());
  }
  return written;
}

ExitCode advise_scenario(const AdviseArguments& arguments) {
  const std::vector<scenario::Scenario> loaded = load_scenarios({arguments.path});
  if (loaded.size() != 1) throw BadInput(fmt::format("{}: advise takes one scenario file", arguments.path));
  if (arguments.seeds && *arguments.seeds > arguments.most_seeds) {
    throw BadInput(fmt::format("--seeds {} is more than --most-seeds {}", *arguments.seeds, arguments.most_seeds));
  }
  check_writable("--json", arguments.json_file);
  if (!arguments.write_dir.empty()) prepare_output_directory("--write", arguments.write_dir);

  const advise::Advice advice =
      advise::advise(loaded.front(), {arguments.seeds, arguments.most_seeds, arguments.threads});
  const std::vector<std::string> written =
      arguments.write_dir.empty() ? std::vector<std::string>{} : write_variants(advice, arguments.write_dir);
  fmt::print("{}", text::terminal_escaped_lines(reports::advice_text(advice, written)));
  if (!arguments.json_file.empty()) write_output_file(arguments.json_file, reports::advice_json(advice, written));
  return ExitCode::kOk;
}

}  // namespace

void add_advise_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<AdviseArguments>();
  CLI::App* command = app.add_subcommand(
      "advise", "Run the scenario with each mitigation that applies, on the same seeds, and rank what removes the harm");
  command->add_option("scenario", arguments->path, "The scenario file, or a built-in scenario's name (locksim list)")
      ->required();
  command->add_option("--seeds", arguments->seeds, "Seeds per row in the first round (default: the scenario's `seeds`)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  command->add_option("--most-seeds", arguments->most_seeds,
                      "Add seeds until the ranking's intervals separate, up to this many per row (default 3200)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1'000'000}));
  command->add_option("--threads", arguments->threads, "Threads (default: the machine's cores)")
      ->check(CLI::Range(1u, 256u));
  command->add_option("--write", arguments->write_dir, "Write each row's scenario file into this directory");
  command->add_option("--json", arguments->json_file, "Write the advice as JSON here");
  command->callback([arguments, &exit_code] { exit_code = advise_scenario(*arguments); });
}

}  // namespace locksim::cli
