// The reference docs and the program agree, both ways: every fault kind and
// trigger the scenario parser accepts has its row or line in
// docs/scenario-format.md and every one listed there is accepted; every flag
// a command accepts is in its section of docs/cli.md (synopsis and table) and
// every flag those name is accepted. The program's side is read from the
// binary as a user meets it (its error messages, its --help), not from a
// copy. (Scenario keys: tests/scenarios/scenario_reference_test.cpp.)
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "locksim_process.h"

namespace {

using locksim::cli_test::read_text;
using locksim::cli_test::Result;
using locksim::cli_test::run_locksim;
using locksim::cli_test::scratch;

std::string doc(const std::string& name) {
  return read_text((std::filesystem::path{LOCKSIM_SOURCE_DIR} / "docs" / name).string());
}

std::set<std::string> matches(const std::string& text, const std::regex& pattern, int group = 1) {
  std::set<std::string> found;
  for (auto match = std::sregex_iterator(text.begin(), text.end(), pattern); match != std::sregex_iterator(); ++match) {
    found.insert((*match)[group]);
  }
  return found;
}

// The text from `heading` up to the next heading of the same or a higher level.
std::string section(const std::string& text, const std::string& heading) {
  const std::size_t from = text.find("\n" + heading + "\n");
  EXPECT_NE(from, std::string::npos) << heading;
  if (from == std::string::npos) return "";
  const std::size_t depth = heading.find(' ');  // 2 for "## ", 3 for "### "
  std::size_t to = from + 1;
  while ((to = text.find("\n#", to + 1)) != std::string::npos) {
    const std::size_t hashes = text.find_first_not_of('#', to + 1) - (to + 1);
    if (hashes <= depth && text[to + 1 + hashes] == ' ') break;
  }
  return text.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

// The choices the parser lists when `field` of a fault gets a value it does
// not know: its own list, as its error message gives it.
std::set<std::string> choices_the_parser_lists(const std::string& fault_json, const std::string& field) {
  const std::string file = scratch("choices-" + field + ".json");
  std::ofstream{file} << R"({"name": "x", "faults": [)" << fault_json << "]}";
  const Result result = run_locksim("run " + file + " --seeds 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const std::string message = result.output.substr(0, result.output.find('\n'));
  EXPECT_NE(message.find("/faults/0/" + field + ": expected one of"), std::string::npos) << message;
  return matches(message.substr(0, message.find(", got")), std::regex{"\"([a-z-]+)\""});
}

TEST(ReferenceDocs, TheFaultKindsTableListsExactlyTheKindsTheParserAccepts) {
  const std::set<std::string> accepted = choices_the_parser_lists(R"({"kind": "zzzz"})", "kind");
  EXPECT_GE(accepted.size(), 10u);
  const std::string faults = section(doc("scenario-format.md"), "## Faults");
  const std::string table = faults.substr(0, faults.find("**Target**"));
  EXPECT_EQ(matches(table, std::regex{"\n\\| `([a-z-]+)` \\|"}), accepted);
}

TEST(ReferenceDocs, TheTriggersListNamesExactlyTheEventsTheParserAccepts) {
  const std::set<std::string> accepted =
      choices_the_parser_lists(R"({"kind": "pause", "target": "worker-1", "for": "1s", "when": "zzzz"})", "when");
  EXPECT_GE(accepted.size(), 5u);
  const std::string faults = section(doc("scenario-format.md"), "## Faults");
  const std::size_t from = faults.find("**Triggers**");
  ASSERT_NE(from, std::string::npos);
  const std::string triggers = faults.substr(from, faults.find("`\"rate\"", from) - from);
  // Each event is explained as "`after-acquire` = its `acquire.ok`".
  EXPECT_EQ(matches(triggers, std::regex{"`([a-z-]+)` ="}), accepted);
}

// The commands `locksim --help` lists.
std::vector<std::string> commands() {
  const Result help = run_locksim("--help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  const std::string list = help.output.substr(help.output.find("Subcommands:"));
  const std::set<std::string> names = matches(list, std::regex{"\n  ([a-z]+) "});
  return {names.begin(), names.end()};
}

// The flags `locksim COMMAND --help` lists (--help itself aside).
std::set<std::string> flags_accepted(const std::string& command) {
  const Result help = run_locksim(command + " --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  std::set<std::string> flags = matches(help.output, std::regex{"\n  (?:-[a-zA-Z],)?(--[a-z][a-z0-9-]*)"});
  flags.erase("--help");
  return flags;
}

// docs/cli.md's section of a command: "### `run`", or the shared "### `list`, `demo`".
std::string command_section(const std::string& cli, const std::string& command) {
  const std::regex heading{"\n### [^\n]*`" + command + "`[^\n]*\n"};
  std::smatch found;
  if (!std::regex_search(cli, found, heading)) return "";
  return section(cli, found.str().substr(1, found.length() - 2));
}

// The flags of `command` in the synopsis at the top of docs/cli.md (a
// command's lines: its own, and the indented ones that continue it).
std::set<std::string> synopsis_flags(const std::string& cli, const std::string& command) {
  const std::size_t open = cli.find("```\n") + 4;
  const std::string synopsis = cli.substr(open, cli.find("```\n", open) - open);
  std::string lines;
  bool mine = false;
  std::size_t start = 0;
  while (start < synopsis.size()) {
    const std::size_t end = synopsis.find('\n', start);
    const std::string line = synopsis.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.rfind("locksim ", 0) == 0) mine = line.rfind("locksim " + command + " ", 0) == 0 || line == "locksim " + command;
    if (mine) lines += line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return matches(lines, std::regex{"\\[?(--[a-z][a-z0-9-]*)"});
}

TEST(ReferenceDocs, EveryFlagACommandAcceptsIsInItsSynopsisAndItsSection) {
  const std::string cli = doc("cli.md");
  const std::vector<std::string> names = commands();
  EXPECT_GE(names.size(), 11u);
  int flags = 0;
  for (const std::string& command : names) {
    const std::string text = command_section(cli, command);
    EXPECT_FALSE(text.empty()) << "docs/cli.md has no section for `" << command << "`";
    const std::set<std::string> in_synopsis = synopsis_flags(cli, command);
    for (const std::string& flag : flags_accepted(command)) {
      EXPECT_NE(text.find("`" + flag), std::string::npos) << command << " " << flag << " is not in its section of docs/cli.md";
      EXPECT_TRUE(in_synopsis.contains(flag)) << command << " " << flag << " is not in docs/cli.md's synopsis";
      ++flags;
    }
  }
  EXPECT_GT(flags, 40);
}

TEST(ReferenceDocs, EveryFlagTheDocsGiveACommandIsOneItAccepts) {
  const std::string cli = doc("cli.md");
  for (const std::string& command : commands()) {
    const std::set<std::string> accepted = flags_accepted(command);
    std::set<std::string> documented = synopsis_flags(cli, command);
    // The flag tables: a row's first cell names the flag.
    documented.merge(matches(command_section(cli, command), std::regex{"\n\\| `(--[a-z][a-z0-9-]*)"}));
    for (const std::string& flag : documented) {
      EXPECT_TRUE(accepted.contains(flag)) << "docs/cli.md gives `" << command << "` the flag " << flag
                                           << ", which it does not accept";
    }
  }
}

}  // namespace
