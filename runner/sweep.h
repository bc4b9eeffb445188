#pragma once
// `locksim sweep`: one scenario run at every value of one or two settings
// (runner/sweep_axis.h), in both fencing modes, and the share of runs with
// each violation kind at each value, with its 95 % Wilson interval. A sweep
// is a curve, not a verdict: the scenario's expectations are not judged.
//
// Each value is written into the scenario file's JSON text at its pointer
// (a duration as its text, so a constant replaces a distribution object) and
// the result parsed by the scenario parser, so a value the format refuses
// is refused with the parser's own message.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"
#include "runner/scenario_run.h"
#include "runner/summary.h"
#include "runner/sweep_axis.h"
#include "runner/wilson_interval.h"
#include "scenario/scenario.h"
#include "sim/time.h"

namespace locksim::runner {

// One point of the sweep: a value per axis and the scenario with them written in.
struct SweepPoint {
  std::vector<std::int64_t> values;  // one per axis, in axis order
  scenario::Scenario scenario;
};

// Every point of a sweep, validated before anything runs.
struct SweepPlan {
  std::string scenario_name;
  std::string file;
  std::optional<sim::Duration> lease;  // the unvaried scenario's lock lease (none: no expiry)
  int scenario_seeds = 0;              // the file's `seeds`
  std::vector<SweepAxis> axes;         // one or two
  std::vector<SweepPoint> points;      // the first axis outermost, then the second
};

// Writes every combination of the axes' values into `text` (the scenario
// file `file`'s contents) and parses each. Throws SweepInputError: the file
// is not a scenario, more than two axes or the same pointer twice, a
// pointer whose parent the file does not have, a value the parser refuses.
[[nodiscard]] SweepPlan plan_sweep(const std::string& text, const std::string& file, std::vector<SweepAxis> axes);

// The fencing modes every point runs, whatever the file's storage.fencing.
inline const std::vector<model::Fencing> kSweepModes = {model::Fencing::kOff, model::Fencing::kOn};

struct SweepSettings {
  std::optional<std::uint64_t> seeds;  // per point and mode; default: the scenario's `seeds`
  unsigned threads = 1;                // results do not depend on it
};

struct SweepResult {
  SweepPlan plan;
  std::uint64_t seeds_per_point = 0;
  std::vector<ScenarioSummary> summaries;  // one per point, in plan order; expectations not judged
};

// Called after each finished point: (points done, points in all).
using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs every point (modes off and on, no recheck, oracle on).
[[nodiscard]] SweepResult run_sweep(SweepPlan plan, const SweepSettings& settings, const SweepProgress& progress = {});

// One line of the sweep's table: the share of runs with `kind` at one point in one mode.
struct SweepRow {
  std::vector<std::int64_t> values;  // one per axis
  model::Fencing mode = model::Fencing::kOff;
  checker::ViolationKind kind = checker::ViolationKind::kDoubleGrant;
  std::int64_t runs = 0;
  std::int64_t runs_with = 0;
  ShareWithInterval share;
};

// Every point × mode (off, on) × violation kind (checker order): the shape
// does not depend on what happened.
[[nodiscard]] std::vector<SweepRow> sweep_rows(const SweepResult& result);

}  // namespace locksim::runner
