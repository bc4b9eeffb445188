// `locksim explain /JSON/POINTER`: what a scenario key is — type, unit,
// default, limits, meaning — from the key reference (scenarios/scenario_reference.h),
// the same source as docs/scenario-format.md's table. Pointers are written as
// scenario errors write them ("/workers/retry", "/faults/0/for"). Exit 0, or 2
// for a pointer the format does not have (with the nearest keys if any are close).
// `--markdown` prints the whole key table, the fault kinds' table and the client
// presets' table, as the docs hold them.

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "command.h"
#include "scenario/client_presets.h"
#include "scenario/scenario_reference.h"

namespace locksim::cli {
namespace {

struct ExplainArguments {
  std::string pointer;
  bool markdown = false;
};

ExitCode run_explain(const ExplainArguments& arguments) {
  if (arguments.markdown) {
    fmt::print("{}\n{}\n{}", scenario::key_reference_markdown_table(), scenario::fault_kind_markdown_table(),
               scenario::client_presets_markdown_table());
    return ExitCode::kOk;
  }
  if (arguments.pointer.empty()) {
    throw BadInput("explain: expected a JSON pointer like /workers/retry (or --markdown)");
  }
  if (const auto entry = scenario::find_key_reference(arguments.pointer)) {
    fmt::print("{}", scenario::key_reference_text(arguments.pointer, *entry));
    if (arguments.pointer == "/workers/client") fmt::print("{}", scenario::client_presets_text());
    return ExitCode::kOk;
  }
  std::string message = fmt::format("explain: {}: no such scenario key", arguments.pointer);
  if (!arguments.pointer.starts_with('/')) {
    message += "; a key is named by its JSON pointer, e.g. /workers/retry or /faults/0/for";
  }
  const std::vector<std::string> similar = scenario::similar_key_patterns(arguments.pointer);
  if (!similar.empty()) {
    message += fmt::format(" (did you mean {}?)", similar.front());
  }
  message += "; `locksim explain --markdown` lists every key";
  throw BadInput(message);
}

}  // namespace

void add_explain_command(CLI::App& app, ExitCode& exit_code) {
  auto arguments = std::make_shared<ExplainArguments>();
  CLI::App* command = app.add_subcommand("explain", "Explain a scenario key: type, unit, default, limits, meaning");
  auto* pointer = command->add_option("pointer", arguments->pointer, "The key's JSON pointer, e.g. /faults/0/for");
  command->add_flag("--markdown", arguments->markdown, "Print the reference of every key, and of every fault kind, as Markdown tables")
      ->excludes(pointer);
  command->callback([arguments, &exit_code] { exit_code = run_explain(*arguments); });
}

}  // namespace locksim::cli
