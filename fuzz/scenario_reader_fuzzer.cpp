// libFuzzer target: the scenario reader, and one run of every file it
// accepts. Bad input must come back as a ScenarioError (exit 2 in the CLI);
// anything else — a crash, a sanitizer report, an uncaught exception such as
// the runner's "the simulator wrote a history the checker rejects", a hang —
// is a bug libFuzzer reports. Seeds: scenarios/*.json, tests/data/scenarios,
// tests/data/bad-scenarios, tests/data/swarm-regressions (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runner/seed_run.h"
#include "scenario/scenario_parser.h"

namespace {

// Enough events for a run to reach its faults and its writes, few enough that
// an input runs in milliseconds; what the event limit itself does is tested
// in tests/runner.
constexpr std::uint64_t kEventsPerFuzzRun = 20'000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
  locksim::scenario::Scenario scenario;
  try {
    scenario = locksim::scenario::parse_scenario(text, "fuzz.json");
  } catch (const locksim::scenario::ScenarioError&) {
    return 0;  // refused with a message: what the reader promises
  }
  scenario.event_limit = kEventsPerFuzzRun;
  for (const locksim::model::Fencing fencing : scenario.fencing_modes) {
    (void)locksim::runner::run_seed(scenario, scenario.first_seed.value_or(1), fencing);
  }
  return 0;
}
