#pragma once
// `locksim live`'s scenario runner: a scenario's runs against real servers
// (live_run.h, one per seed and fencing mode), each history checked by the
// same checker and the runs summed and judged as `run` judges simulated
// seeds. The command line (cli/live_command.cpp) parses flags, prints and
// writes files; this decides what runs where.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/live_run.h"
#include "model/options.h"
#include "runner/summary.h"
#include "scenario/scenario.h"

namespace locksim::live {

// A scenario or a request live mode cannot run, said for the user (exit 2).
struct LiveRefusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LiveScenarioRequest {
  int runs = 10;  // per fencing mode; run k uses seed first_seed + k − 1
  double time_scale = 0.05;
  // How long a user's program (workers.command) may take to say it is ready.
  std::chrono::milliseconds ready_timeout{10'000};
  std::vector<model::Fencing> modes;  // empty: the scenario's
  std::optional<Endpoint> redis;      // the user's lock server; none: locksim starts its own
  std::string prefix;                 // put before every key (needed on a non-empty --redis)
  // Called with each run's history (seed, mode, lines); may be empty.
  std::function<void(std::uint64_t seed, model::Fencing mode, const std::vector<std::string>& history)> on_history;
  // Called with each thing a run says the user should know (LiveRunResult::notices); may be empty.
  std::function<void(std::uint64_t seed, model::Fencing mode, const std::string& notice)> on_notice;
};

struct LiveScenarioResult {
  runner::ScenarioSummary summary;  // named "NAME (live)", judged
  std::string against;              // what the runs ran against, for the table's header
};

// What the user should know before the runs (faults with no live form, a
// time scale too small, network settings TCP has not): one line each.
[[nodiscard]] std::vector<std::string> live_notices(const scenario::Scenario& scenario,
                                                    const LiveScenarioRequest& request);

// Runs and judges the scenario live. Throws LiveRefusal for what live mode
// cannot run (naming the key or flag), WorkerProgramError for a user's
// program that broke the contract.
[[nodiscard]] LiveScenarioResult run_live_scenario(const scenario::Scenario& scenario,
                                                   const LiveScenarioRequest& request);

}  // namespace locksim::live
