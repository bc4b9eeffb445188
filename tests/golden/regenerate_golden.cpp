// Writes tests/golden/histories.tsv from this build's runs: the command behind
// scripts/regenerate-golden.sh, for after an intended change to what the
// simulator records. Usage: regenerate_golden SCENARIO_DIR TABLE_FILE

#include <cstdio>
#include <fstream>

#include <fmt/core.h>

#include "golden_histories.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: regenerate_golden SCENARIO_DIR TABLE_FILE\n");
    return 2;
  }
  std::vector<locksim::golden::GoldenRow> rows;
  for (const auto& file : locksim::golden::builtin_scenario_files(argv[1])) {
    for (auto& row : locksim::golden::golden_rows(file)) rows.push_back(std::move(row));
  }
  std::ofstream output{argv[2], std::ios::binary | std::ios::trunc};
  output << locksim::golden::golden_table_text(rows);
  if (!output.flush()) {
    fmt::print(stderr, "regenerate_golden: cannot write {}\n", argv[2]);
    return 2;
  }
  fmt::print("{}: {} runs\n", argv[2], rows.size());
  return 0;
}
