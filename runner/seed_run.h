#pragma once
// One seed of one scenario in one fencing mode: build the system, lay out
// the seed's plan of faults, record run.begin, run to the end, record
// run.end, check the history, and say how the run ended.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/history_checker.h"
#include "runner/oracle.h"
#include "model/options.h"
#include "scenario/plan.h"
#include "scenario/scenario.h"
#include "sim/history_recorder.h"
#include "sim/simulation.h"

namespace locksim::runner {

struct SeedRun {
  std::uint64_t seed = 0;
  model::Fencing fencing = model::Fencing::kOff;
  checker::HistoryVerdict verdict;
  std::vector<std::size_t> faults_fired;       // scenario fault indices that fired at least once
  std::map<std::string, std::int64_t> probes;  // every probe, with how often it was reached
  // How the run ended (the runner's outcomes, not the checker's violations).
  sim::StopReason stop_reason = sim::StopReason::kQuiescent;
  std::int64_t unfinished_jobs = 0;  // jobs not done when it ended
  std::int64_t jobs_done = 0;        // jobs done (billing: customers charged)
  std::int64_t calls = 0;            // round trips: the workers' calls and storage's validations (model::System::costs)
  std::int64_t acquire_wait_ns = 0;  // from asking for the lock to holding it, summed over the grants
  bool stopped_short = false;        // hit the event limit, or the time limit with jobs left
  std::string why_stopped;           // for people: "time limit 5m reached with 7 jobs left"
  std::vector<std::string> blocked;  // what was still waiting: "worker-2/jobs: a reply from redis-0"
  std::uint64_t events = 0;          // scheduler events processed
  std::int64_t virtual_ns = 0;
  // CPU time for the run, a statistic only: set by whoever runs it for the
  // stats (run_scenario shares its thread's out by run time; live mode), not
  // by run_plan, whose own clock reads would cost a short run a fifth of its time.
  double cpu_seconds = 0;
  // Equal for equal histories: the recorder's hash of the typed records
  // (sim/history_recorder.h says why that is as strict as the text's).
  std::uint64_t history_hash = 0;
  // The hash of the history's text, byte for byte; set iff text was made
  // (a LineWatcher was given): what replay prints and tests/golden pins.
  std::optional<std::uint64_t> text_hash;
  std::uint64_t history_events = 0;
  // The oracle's counts (unset when it was switched off) and every kind on
  // which the checker's verdict disagrees with them.
  std::optional<OracleCounts> oracle;
  std::vector<OracleMismatch> oracle_mismatches;
};

// Whether the in-simulation oracle checks the checker (on by default).
enum class OracleChoice : std::uint8_t { kOn, kOff };

// Sees every history line as it is recorded, with the simulation (for the
// nodes' local clocks at that moment): replay's trace and --history.
using LineWatcher = std::function<void(std::string_view line, const sim::Simulation& simulation)>;

// Runs `seed` of `scenario` with fencing on or off.
[[nodiscard]] SeedRun run_seed(const scenario::Scenario& scenario, std::uint64_t seed, model::Fencing fencing,
                               const LineWatcher& watch = {}, OracleChoice oracle = OracleChoice::kOn);

// The same, on a plan given explicitly (a saved plan, or one shared by two modes).
// With a `chooser` (`locksim verify`), every draw of the run is asked of it,
// and so is each fault's length, when the fault strikes (sim/chooser.h).
[[nodiscard]] SeedRun run_plan(const scenario::Scenario& scenario, const scenario::Plan& plan, model::Fencing fencing,
                               const LineWatcher& watch = {}, OracleChoice oracle = OracleChoice::kOn,
                               sim::Chooser* chooser = nullptr);

// The kinds on which `verdict` and the oracle's `counts` disagree (a kind the
// checker could not run is not compared; late_writes is).
[[nodiscard]] std::vector<OracleMismatch> compare_with_oracle(const checker::HistoryVerdict& verdict,
                                                              const OracleCounts& counts);

}  // namespace locksim::runner
