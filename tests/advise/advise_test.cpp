// locksim advise: every row is what `run` shows for the file it writes; the
// seeds grow until the effects are told apart; pairs come only when no
// single mitigation removes the harm; the catalogue offers only changes.

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "advise/advice.h"
#include "advise/mitigation.h"
#include "reports/advice_text.h"
#include "runner/scenario_run.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_text.h"

namespace locksim::advise {
namespace {

using checker::ViolationKind;

scenario::Scenario builtin(const std::string& name) {
  return scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json");
}

const AdviceRow& row_named(const Advice& advice, const std::string& mitigation) {
  const auto found = std::ranges::find(advice.rows, mitigation, &AdviceRow::mitigation);
  EXPECT_NE(found, advice.rows.end()) << mitigation;
  return *found;
}

// The variant file a row carries, run as `locksim run` would run it on the
// same seeds, shows what the row printed.
void expect_runs_as_printed(const Advice& advice, const AdviceRow& row) {
  const scenario::Scenario variant = scenario::parse_scenario(row.file_text, "variant.json");
  runner::RunRequest request;
  request.first_seed = advice.first_seed;
  request.seed_count = advice.seeds;
  const runner::ScenarioSummary summary = runner::run_scenario(variant, request);
  ASSERT_EQ(summary.modes.size(), 1u);
  EXPECT_EQ(summary.modes.front().runs, row.runs);
  EXPECT_EQ(summary.modes.front().calls, row.calls) << row.mitigation;
  EXPECT_EQ(summary.modes.front().acquire_wait_ns, row.acquire_wait_ns) << row.mitigation;
  EXPECT_EQ(summary.modes.front().jobs_done, row.jobs_done) << row.mitigation;
  for (const ViolationKind kind : checker::kAllViolationKinds) {
    EXPECT_EQ(summary.modes.front().runs_with_any(kind), row.runs_with.at(kind))
        << row.mitigation << ": " << checker::violation_kind_name(kind);
  }
}

TEST(Advise, PausePastLeaseIsFixedByALongerLeaseOrFencingAndEachRowRunsAsPrinted) {
  const Advice advice = advise(builtin("h01-gc-pause-past-lease"), {.seeds = 40, .most_seeds = 400, .threads = 1});
  ASSERT_EQ(advice.mode, model::Fencing::kOff);
  EXPECT_EQ(advice.harm, (std::vector{ViolationKind::kStaleWrite, ViolationKind::kLostUpdate}));
  ASSERT_GT(advice.harm_runs(advice.rows.front()), 0);
  EXPECT_TRUE(advice.separated);

  // A lease that outlasts h01's longest pause (20 s) and work (2 s) removes everything, double holders too.
  const AdviceRow& lease = row_named(advice, "a longer lease");
  EXPECT_EQ(lease.change, "lock.lease: 23s (was 10s)");
  EXPECT_EQ(advice.effect_on(lease, ViolationKind::kStaleWrite), Effect::kRemoves);
  EXPECT_EQ(lease.runs_with.at(ViolationKind::kDoubleHolder), 0);
  // Fencing removes the harm to data, not the double holder.
  const AdviceRow& fence = row_named(advice, "fence writes");
  EXPECT_EQ(advice.effect_on(fence, ViolationKind::kStaleWrite), Effect::kRemoves);
  EXPECT_GT(fence.runs_with.at(ViolationKind::kDoubleHolder), 0);
  // A watchdog freezes with its process.
  EXPECT_EQ(advice.effect_on(row_named(advice, "a watchdog"), ViolationKind::kStaleWrite), Effect::kNoClearEffect);
  // Best first: nothing ranks above a row that removes the harm.
  EXPECT_TRUE(advice.removes_harm(advice.rows[1]));
  // The costs: a holder that froze keeps a longer lease longer, so the others wait longer for the lock;
  // validating with the service adds storage's question to every fenced read and write.
  const AdviceRow& as_written = advice.rows.front();
  EXPECT_GT(lease.wait_per_grant_ns().value(), as_written.wait_per_grant_ns().value());
  const AdviceRow& fenced_reads = row_named(advice, "fence reads and writes");
  const AdviceRow& validated = row_named(advice, "validate with the service");
  EXPECT_GT(validated.calls_per_job().value(), fenced_reads.calls_per_job().value() + 1.5);

  for (const AdviceRow& row : advice.rows) expect_runs_as_printed(advice, row);
}

// H22: the file fences writes and still shows stale writes (a read acted
// on after the next holder's grant); fenced reads remove them.
TEST(Advise, TheFencingWindowIsClosedByFencedReads) {
  const Advice advice = advise(builtin("h22-fencing-window"), {.seeds = 40, .most_seeds = 400, .threads = 1});
  EXPECT_EQ(advice.mode, model::Fencing::kOn);
  EXPECT_EQ(std::ranges::count(advice.rows, std::string{"fence writes"}, &AdviceRow::mitigation), 0)
      << "the file already fences its writes";
  const AdviceRow& reads = row_named(advice, "fence reads and writes");
  EXPECT_EQ(advice.effect_on(reads, ViolationKind::kStaleWrite), Effect::kRemoves);
  expect_runs_as_printed(advice, reads);
}

// H25: the double charge goes to a payments API that takes no token.
// Fencing cannot stop it and the table says why; a job-derived idempotency
// key can.
TEST(Advise, TheDoubleChargeIsStoppedByAnIdempotencyKeyNotByFencing) {
  const Advice advice = advise(builtin("h25-duplicate-charge"), {.seeds = 40, .most_seeds = 400, .threads = 1});
  EXPECT_EQ(advice.harm, std::vector{ViolationKind::kDuplicateEffect});
  const AdviceRow& keys = row_named(advice, "idempotency keys");
  EXPECT_EQ(advice.effect_on(keys, ViolationKind::kDuplicateEffect), Effect::kRemoves);
  EXPECT_EQ(&keys, &advice.rows[1]);
  const AdviceRow& fence = row_named(advice, "fence reads and writes");
  EXPECT_EQ(advice.effect_on(fence, ViolationKind::kDuplicateEffect), Effect::kNoClearEffect);
  EXPECT_NE(reports::advice_text(advice, {}).find("duplicate_effect: a double charge is an effect outside the fenced store"),
            std::string::npos);
  expect_runs_as_printed(advice, keys);
}

TEST(Advise, SeedsAreAddedUntilEveryEffectIsToldApart) {
  // On 5 seeds, 0 of 5 cannot be told from h01's 3 or so of 5.
  const Advice advice = advise(builtin("h01-gc-pause-past-lease"), {.seeds = 5, .most_seeds = 400, .threads = 2});
  EXPECT_GT(advice.rounds, 1);
  EXPECT_EQ(advice.seeds, 5u << (advice.rounds - 1));
  EXPECT_TRUE(advice.separated);
  for (const AdviceRow& row : advice.rows) EXPECT_EQ(row.runs, static_cast<std::int64_t>(advice.seeds));

  const Advice capped = advise(builtin("h01-gc-pause-past-lease"), {.seeds = 5, .most_seeds = 5, .threads = 1});
  EXPECT_EQ(capped.rounds, 1);
  EXPECT_FALSE(capped.separated);
  EXPECT_NE(reports::advice_text(capped, {}).find("some effects are still not told apart"), std::string::npos);
}

// Billing through an external API, a pause with no bound: fencing guards
// the cursor write, not the charge; idempotency keys guard the charge, not
// the write. Only a pair removes both.
TEST(Advise, APairIsTriedOnlyWhenNoSingleMitigationRemovesTheHarm) {
  // advise reads the file's own text: the scenario lives in a file.
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "locksim-advise-pairs.json";
  {
    std::ofstream file{path};
    file << R"({"name": "pairs", "duration": "2m", "seeds": 40, "lock": {"lease": "5s"},
    "workers": {"count": 3, "work": "1s"},
    "workload": {"kind": "billing", "customers": 4, "charge": "external"},
    "faults": [{"kind": "pause", "target": "workers", "when": "after-acquire",
                "for": {"dist": "exponential", "mean": "8s"}}]})";
  }
  const Advice advice = advise(scenario::load_scenario_file(path.string()), {.seeds = 40, .most_seeds = 640, .threads = 2});
  std::filesystem::remove(path);
  EXPECT_EQ(advice.harm, (std::vector{ViolationKind::kStaleWrite, ViolationKind::kDuplicateEffect}));
  const auto singles_remove = std::ranges::any_of(advice.rows, [&](const AdviceRow& row) {
    return !row.pair && !row.mitigation.empty() && advice.removes_harm(row);
  });
  EXPECT_FALSE(singles_remove);
  const auto pair = std::ranges::find_if(advice.rows, [&](const AdviceRow& row) { return row.pair; });
  ASSERT_NE(pair, advice.rows.end());
  EXPECT_TRUE(advice.removes_harm(*pair)) << pair->mitigation;
  EXPECT_EQ(&*pair, &advice.rows[1]) << "the pair that removes the harm ranks first";
  EXPECT_NE(pair->mitigation.find("idempotency keys"), std::string::npos);
  // No longer lease: the pause has no bound.
  EXPECT_EQ(std::ranges::count(advice.rows, std::string{"a longer lease"}, &AdviceRow::mitigation), 0);
  expect_runs_as_printed(advice, *pair);

  // A file that already fences and fences reads is offered no fencing.
  const nlohmann::json fenced = nlohmann::json::parse(R"({"name": "fenced", "storage": {"fencing": "on", "fence_reads": true}})");
  const scenario::Scenario parsed = scenario::parse_scenario(fenced.dump(), "fenced.json");
  const std::vector<Mitigation> offered = applicable_mitigations(parsed);
  EXPECT_EQ(std::ranges::count(offered, std::string{"fence writes"}, &Mitigation::name), 0);
  EXPECT_EQ(std::ranges::count(offered, std::string{"fence reads and writes"}, &Mitigation::name), 0);
  EXPECT_EQ(std::ranges::count(offered, std::string{"validate with the service"}, &Mitigation::name), 1);
}

TEST(Advise, NothingToAdviseWhenNoRunShowsHarm) {
  const Advice advice = advise(builtin("control-no-faults"), {.seeds = 10, .most_seeds = 10, .threads = 1});
  EXPECT_TRUE(advice.harm.empty());
  EXPECT_NE(reports::advice_text(advice, {}).find("nothing to advise"), std::string::npos);
}

TEST(AdviceText, ASharePrintsWithItsWilsonInterval) {
  EXPECT_EQ(reports::share_with_interval_text(0, 200), "0% [0–2]");
  EXPECT_EQ(reports::share_with_interval_text(200, 200), "100% [98–100]");
  EXPECT_EQ(reports::share_with_interval_text(1, 200), "0.5% [0.1–3]");
}

}  // namespace
}  // namespace locksim::advise
