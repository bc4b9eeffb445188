#pragma once
// `locksim advise`: run the scenario as written and with each mitigation
// that applies (advise/mitigation.h) on the same seeds and plans, in one
// fencing mode, and say which removes the most harm, with 95 % Wilson
// intervals on every share and what each costs.
//
// Seeds: the file's `seeds` (or --seeds) first; then, while a mitigation's
// share of harm is neither apart from the file's (95 % intervals) nor
// inside the file's interval, as many seeds again (the next ones), up to
// most_seeds. A failure
// seen in 2 of 200 seeds cannot rank two mitigations that both show 0 or 1.
// Pairs of mitigations are tried only when no single one removes the harm.
//
// Deterministic: the same scenario and options give the same advice.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/violation.h"
#include "model/options.h"
#include "scenario/scenario.h"

namespace locksim::advise {

// One row of the table: the file as written, or the file with a mitigation.
struct AdviceRow {
  std::string mitigation;  // "" for the file as written
  std::string change;      // what the file changes
  std::string why;         // one sentence
  std::map<checker::ViolationKind, std::string> cannot;  // why not, per kind it was not made for
  bool pair = false;       // two mitigations at once
  std::string file_text;   // the variant as a scenario file: `run` runs what advise ran
  std::int64_t runs = 0;
  std::map<checker::ViolationKind, std::int64_t> runs_with;  // runs with at least one, every kind
  std::int64_t unfinished_jobs = 0;  // summed over the runs
  std::int64_t acquisitions = 0;     // summed over the runs
  std::int64_t stopped_short = 0;    // runs
  // What it costs, summed over the runs (model::Worker::Costs): jobs done,
  // the workers' round trips, and the time from asking for the lock to
  // holding it over every grant.
  std::int64_t jobs_done = 0;
  std::int64_t calls = 0;
  std::int64_t acquire_wait_ns = 0;

  // The mean wait for the lock per grant, and round trips per job done (nullopt: none).
  [[nodiscard]] std::optional<std::int64_t> wait_per_grant_ns() const;
  [[nodiscard]] std::optional<double> calls_per_job() const;
};

struct NotTried {
  std::string mitigation;
  std::string why;
};

// What a mitigation did to the harm, against the file as written, by 95 %
// intervals on the same seeds.
enum class Effect {
  kRemoves,        // none in its runs, and apart from the file's share
  kLessens,        // less, apart from the file's share
  kNoClearEffect,  // its share inside the file's interval, or the seeds ran out first
  kWorsens,        // more, apart from the file's share
};

struct Advice {
  std::string scenario;
  model::Fencing mode = model::Fencing::kOff;
  std::uint64_t first_seed = 1;
  std::uint64_t seeds = 0;  // run per row
  int rounds = 0;           // 1 + how many times the seeds were added to
  bool separated = false;   // every mitigation's effect is told apart (else most_seeds was reached)
  // The kinds the file as written shows that the ranking is by: its harm to
  // data (stale_write, lost_update, duplicate_effect, token_order) when it
  // shows any, else every kind it shows. Empty: nothing to advise.
  std::vector<checker::ViolationKind> harm;
  std::vector<checker::ViolationKind> shown;  // every kind a row shows, in report order
  std::vector<AdviceRow> rows;                // the file as written first, then best first
  std::vector<NotTried> not_tried;

  // The runs of `row` with each harm kind, added up: what the ranking compares.
  [[nodiscard]] std::int64_t harm_runs(const AdviceRow& row) const;
  // Whether `row` shows none of the harm in its runs (effect_on says whether that is told apart).
  [[nodiscard]] bool removes_harm(const AdviceRow& row) const { return harm_runs(row) == 0; }
  // What `row` did to harm kind `kind` against the file as written.
  [[nodiscard]] Effect effect_on(const AdviceRow& row, checker::ViolationKind kind) const;
};

struct AdviseOptions {
  std::optional<std::uint64_t> seeds;  // the first round's; default the scenario's `seeds`
  std::uint64_t most_seeds = 3'200;
  unsigned threads = 1;
};

// Throws scenario::ScenarioError when the scenario's own file cannot be read.
[[nodiscard]] Advice advise(const scenario::Scenario& scenario, const AdviseOptions& options);

// The file name part a mitigation's variant is written under: "fence-writes".
[[nodiscard]] std::string mitigation_slug(const std::string& mitigation);

}  // namespace locksim::advise
