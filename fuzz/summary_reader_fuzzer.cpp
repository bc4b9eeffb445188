// libFuzzer target: `locksim merge` on one summary — the summary reader, the
// shard-set check, the merge, and its three outputs (terminal table, summary
// JSON, JUnit XML). Bad input must come back as a SummaryError (exit 2 in the
// CLI); anything else is a bug. Seeds: tests/data/summaries, and
// tests/data/bad-summaries once an input has broken it (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "reports/junit_xml.h"
#include "reports/summary_json.h"
#include "reports/terminal_table.h"
#include "runner/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
  std::vector<locksim::runner::SummaryInput> inputs;
  try {
    inputs.push_back(locksim::reports::summary_input_from_json(text, "fuzz.json"));
  } catch (const locksim::reports::SummaryError&) {
    return 0;  // refused with a message: what the reader promises
  }
  if (!locksim::runner::shard_set_problems(inputs).empty()) return 0;
  const std::vector<locksim::runner::ScenarioSummary> total = locksim::runner::merge_shards(inputs);
  (void)locksim::reports::summary_to_table(total);
  (void)locksim::reports::internal_failures(total);
  (void)locksim::reports::summary_to_json(total);
  (void)locksim::reports::summary_to_junit(total);
  return 0;
}
