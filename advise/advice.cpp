#include "advise/advice.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "advise/mitigation.h"
#include "runner/scenario_run.h"
#include "runner/wilson_interval.h"
#include "scenario/scenario_parser.h"
#include "scenario/scenario_text.h"

namespace locksim::advise {
namespace {

using checker::ViolationKind;
using nlohmann::json;

constexpr std::array kHarmToData{ViolationKind::kStaleWrite, ViolationKind::kLostUpdate, ViolationKind::kDuplicateEffect,
                                 ViolationKind::kTokenOrder};
// Pairs are made of the singles that help most, so their number stays small.
constexpr std::size_t kMostSinglesPaired = 4;

struct Variant {
  AdviceRow row;
  scenario::Scenario scenario;
};

// The file as advise runs it: one fencing mode, no expectations (a variant
// is not meant to keep the file's claims).
json as_run(json document, model::Fencing mode) {
  document.erase("expect");
  document.erase("probes_required");
  document["storage"]["fencing"] = mode == model::Fencing::kOn ? "on" : "off";
  return document;
}

void apply(json& document, const json& patch) {
  if (patch.is_array()) {
    for (const json& each : patch) document.merge_patch(each);
  } else {
    document.merge_patch(patch);
  }
}

std::optional<Variant> variant_of(const scenario::Scenario& original, const json& base, const Mitigation& mitigation,
                                  bool pair, std::vector<NotTried>& not_tried) {
  json document = base;
  apply(document, mitigation.patch);
  document["name"] = fmt::format("{}-{}", original.name, mitigation_slug(mitigation.name));
  document["description"] = fmt::format("{}, with {} ({}), as `locksim advise` ran it.", original.name,
                                        mitigation.name, mitigation.change);
  const std::string text = document.dump(2) + "\n";
  try {
    scenario::Scenario parsed = scenario::parse_scenario(text, document["name"].get<std::string>() + ".json");
    return Variant{{mitigation.name, mitigation.change, mitigation.why, mitigation.cannot, pair, text, 0, {}, 0, 0, 0},
                   std::move(parsed)};
  } catch (const scenario::ScenarioError& error) {
    // A fault aimed at redis-0 has no target under consensus, for one.
    not_tried.push_back({mitigation.name, error.what()});
    return std::nullopt;
  }
}

// The variant runs in its own one mode: off as written, on where a mitigation fences.
void run_seeds(Variant& variant, std::uint64_t first_seed, std::uint64_t count, unsigned threads) {
  runner::RunRequest request;
  request.first_seed = first_seed;
  request.seed_count = count;
  request.threads = threads;
  const runner::ScenarioSummary summary = runner::run_scenario(variant.scenario, request);
  const runner::ModeSummary& counted = summary.modes.front();
  AdviceRow& row = variant.row;
  row.runs += counted.runs;
  for (const ViolationKind kind : checker::kAllViolationKinds) row.runs_with[kind] += counted.runs_with_any(kind);
  row.unfinished_jobs += counted.unfinished_jobs;
  row.acquisitions += counted.acquisitions;
  row.stopped_short += counted.stopped_short;
  row.jobs_done += counted.jobs_done;
  row.calls += counted.calls;
  row.acquire_wait_ns += counted.acquire_wait_ns;
}

std::int64_t other_runs(const Advice& advice, const AdviceRow& row) {
  std::int64_t total = 0;
  for (const auto& [kind, runs] : row.runs_with) {
    if (std::ranges::count(advice.harm, kind) == 0) total += runs;
  }
  return total;
}

// Best first: the least harm, then the fewest other violations, then the
// fewest unfinished jobs; ties keep the catalogue's order.
void rank(Advice& advice, std::vector<Variant>& variants) {
  std::stable_sort(variants.begin() + 1, variants.end(), [&advice](const Variant& a, const Variant& b) {
    const auto key = [&advice](const AdviceRow& row) {
      return std::tuple{advice.harm_runs(row), other_runs(advice, row), row.unfinished_jobs};
    };
    return key(a.row) < key(b.row);
  });
}

// Every mitigation's harm is told apart from the file as written's (95 %
// intervals apart), or its share lies inside the file's interval (no clear
// effect: more seeds would chase noise). A mitigation that shows 0 in 200
// seeds against the file's 2 is neither, and gets more seeds.
bool separated(const Advice& advice, const std::vector<Variant>& variants) {
  const AdviceRow& as_written = variants.front().row;
  return std::ranges::all_of(variants.begin() + 1, variants.end(), [&](const Variant& variant) {
    return std::ranges::all_of(advice.harm, [&](ViolationKind kind) {
      const runner::ShareWithInterval written = runner::wilson_interval(as_written.runs_with.at(kind), as_written.runs);
      const runner::ShareWithInterval share = runner::wilson_interval(variant.row.runs_with.at(kind), variant.row.runs);
      const bool apart = share.high < written.low || share.low > written.high;
      const bool inside = written.low <= share.rate && share.rate <= written.high;
      return apart || inside;
    });
  });
}

std::vector<ViolationKind> harm_of(const AdviceRow& as_written) {
  std::vector<ViolationKind> harm;
  for (const ViolationKind kind : kHarmToData) {
    if (as_written.runs_with.at(kind) > 0) harm.push_back(kind);
  }
  if (!harm.empty()) return harm;
  for (const ViolationKind kind : checker::kAllViolationKinds) {
    if (as_written.runs_with.at(kind) > 0) harm.push_back(kind);
  }
  return harm;
}

// Pairs of the singles that lessen some harm kind (by their runs so far),
// when no single one removes the harm: the best kMostSinglesPaired of them,
// two of one family (the fencing variants, each a step beyond the last) never together.
void add_pairs(const scenario::Scenario& scenario, const json& base, const std::vector<Mitigation>& singles,
               Advice& advice, std::vector<Variant>& variants) {
  const AdviceRow& as_written = variants.front().row;
  std::vector<const Mitigation*> helping;
  for (std::size_t index = 1; index < variants.size() && helping.size() < kMostSinglesPaired; ++index) {
    const AdviceRow& row = variants[index].row;
    const bool lessens = std::ranges::any_of(advice.harm, [&](ViolationKind kind) {
      return row.runs_with.at(kind) < as_written.runs_with.at(kind);
    });
    const auto single = std::ranges::find(singles, row.mitigation, &Mitigation::name);
    const bool family_taken = std::ranges::any_of(helping, [&](const Mitigation* taken) {
      return !single->family.empty() && taken->family == single->family;
    });
    if (lessens && !family_taken) helping.push_back(&*single);
  }
  for (std::size_t first = 0; first < helping.size(); ++first) {
    for (std::size_t second = first + 1; second < helping.size(); ++second) {
      if (auto variant = variant_of(scenario, base, combined(*helping[first], *helping[second]), true, advice.not_tried)) {
        variants.push_back(std::move(*variant));
      }
    }
  }
}

}  // namespace

Effect Advice::effect_on(const AdviceRow& row, ViolationKind kind) const {
  const AdviceRow& as_written = rows.front();
  const runner::ShareWithInterval written = runner::wilson_interval(as_written.runs_with.at(kind), as_written.runs);
  const runner::ShareWithInterval share = runner::wilson_interval(row.runs_with.at(kind), row.runs);
  if (share.high < written.low) return row.runs_with.at(kind) == 0 ? Effect::kRemoves : Effect::kLessens;
  if (share.low > written.high) return Effect::kWorsens;
  return Effect::kNoClearEffect;
}

std::optional<std::int64_t> AdviceRow::wait_per_grant_ns() const {
  if (acquisitions == 0) return std::nullopt;
  return acquire_wait_ns / acquisitions;
}

std::optional<double> AdviceRow::calls_per_job() const {
  if (jobs_done == 0) return std::nullopt;
  return static_cast<double>(calls) / static_cast<double>(jobs_done);
}

std::int64_t Advice::harm_runs(const AdviceRow& row) const {
  std::int64_t total = 0;
  for (const ViolationKind kind : harm) total += row.runs_with.at(kind);
  return total;
}

std::string mitigation_slug(const std::string& mitigation) {
  std::string slug;
  for (const char c : mitigation) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

Advice advise(const scenario::Scenario& scenario, const AdviseOptions& options) {
  const json document = json::parse(scenario::read_scenario_text(scenario.file));
  Advice advice;
  advice.scenario = scenario.name;
  // The design as written: fencing off unless the file fences (a `compare`
  // file's unfenced half; fencing is one of the mitigations).
  advice.mode = scenario.fencing_modes.size() == 1 ? scenario.fencing_modes.front() : model::Fencing::kOff;
  advice.first_seed = scenario.first_seed.value_or(1);
  const json base = as_run(document, advice.mode);

  std::vector<Variant> variants;
  variants.push_back({{"", "", "", {}, false, base.dump(2) + "\n", 0, {}, 0, 0, 0},
                      scenario::parse_scenario(base.dump(2), scenario.file)});
  const std::vector<Mitigation> singles = applicable_mitigations(variants.front().scenario);
  for (const Mitigation& mitigation : singles) {
    if (auto variant = variant_of(scenario, base, mitigation, false, advice.not_tried)) variants.push_back(std::move(*variant));
  }

  std::uint64_t batch = options.seeds.value_or(static_cast<std::uint64_t>(scenario.seeds));
  for (Variant& variant : variants) run_seeds(variant, advice.first_seed, batch, options.threads);
  advice.seeds = batch;
  advice.rounds = 1;
  advice.harm = harm_of(variants.front().row);
  if (!advice.harm.empty()) {
    rank(advice, variants);
    const bool one_removes = std::ranges::any_of(variants.begin() + 1, variants.end(),
                                                 [&advice](const Variant& v) { return advice.removes_harm(v.row); });
    if (!one_removes) {
      const std::size_t before = variants.size();
      add_pairs(scenario, base, singles, advice, variants);
      for (std::size_t index = before; index < variants.size(); ++index) {
        run_seeds(variants[index], advice.first_seed, advice.seeds, options.threads);
      }
      rank(advice, variants);
    }
    while (!(advice.separated = separated(advice, variants)) && advice.seeds < options.most_seeds) {
      batch = std::min(advice.seeds, options.most_seeds - advice.seeds);
      for (Variant& variant : variants) {
        run_seeds(variant, advice.first_seed + advice.seeds, batch, options.threads);
      }
      advice.seeds += batch;
      ++advice.rounds;
      rank(advice, variants);
    }
  }
  for (const ViolationKind kind : checker::kAllViolationKinds) {
    const bool shown = std::ranges::any_of(variants, [kind](const Variant& v) { return v.row.runs_with.at(kind) > 0; });
    if (shown) advice.shown.push_back(kind);
  }
  for (Variant& variant : variants) advice.rows.push_back(std::move(variant.row));
  return advice;
}

}  // namespace locksim::advise
