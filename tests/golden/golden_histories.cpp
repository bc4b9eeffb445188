#include "golden_histories.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "model/options.h"
#include "runner/seed_run.h"
#include "scenario/scenario_parser.h"

namespace locksim::golden {

std::string GoldenRow::run_name() const { return fmt::format("{} seed {} fencing {}", scenario, seed, fencing); }

std::vector<std::filesystem::path> builtin_scenario_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator{directory}) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<GoldenRow> golden_rows(const std::filesystem::path& scenario_file) {
  const scenario::Scenario scenario = scenario::load_scenario_file(scenario_file.string());
  std::vector<GoldenRow> rows;
  for (const std::uint64_t seed : kGoldenSeeds) {
    // Both modes whatever the file's storage.fencing: each mode has its own code paths.
    for (const model::Fencing fencing : {model::Fencing::kOff, model::Fencing::kOn}) {
      // A watcher makes the run write its text: the table pins the bytes, not just the records.
      const runner::SeedRun run = runner::run_seed(
          scenario, seed, fencing, [](std::string_view, const sim::Simulation&) {}, runner::OracleChoice::kOff);
      rows.push_back({scenario_file.stem().string(), seed, fencing == model::Fencing::kOn ? "on" : "off",
                      run.history_events, run.text_hash.value()});
    }
  }
  return rows;
}

std::string golden_table_text(const std::vector<GoldenRow>& rows) {
  std::string text =
      "# Golden histories: every built-in scenario, seeds 1-3, fencing off and on. Both builds (g++ and clang++)\n"
      "# must reproduce each run's history byte for byte (tests/golden/golden_test.cpp). After an intended change,\n"
      "# regenerate with scripts/regenerate-golden.sh and review this file's diff: it names the runs that changed.\n"
      "# `locksim replay SCENARIO --seed SEED --fencing FENCING` prints the same lines count and history hash.\n"
      "# scenario\tseed\tfencing\tlines\thistory_hash\n";
  for (const GoldenRow& row : rows) {
    text += fmt::format("{}\t{}\t{}\t{}\t{:016x}\n", row.scenario, row.seed, row.fencing, row.lines, row.history_hash);
  }
  return text;
}

std::vector<GoldenRow> read_golden_table(const std::filesystem::path& table_file) {
  std::ifstream input{table_file};
  if (!input) throw std::runtime_error(fmt::format("{}: cannot read the file", table_file.string()));
  std::vector<GoldenRow> rows;
  std::string line;
  for (int number = 1; std::getline(input, line); ++number) {
    if (line.empty() || line.front() == '#') continue;
    std::istringstream fields{line};
    GoldenRow row;
    std::string hash;
    if (!(fields >> row.scenario >> row.seed >> row.fencing >> row.lines >> hash) || hash.size() != 16) {
      throw std::runtime_error(fmt::format("{}:{}: expected scenario, seed, fencing, lines, hash", table_file.string(), number));
    }
    row.history_hash = std::stoull(hash, nullptr, 16);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace locksim::golden
