#include "reports/advice_text.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/readable_duration.h"
#include "runner/wilson_interval.h"
#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

using nlohmann::ordered_json;

// Whole percent, one decimal below 1 % and above 99 % (but "0" and "100", not "100.0").
std::string percent_text(double share) {
  const double percent = 100.0 * share;
  const bool edge = (percent > 0 && percent < 1) || (percent > 99 && percent < 100);
  std::string text = edge ? fmt::format("{:.1f}", percent) : fmt::format("{:.0f}", percent);
  if (text == "100.0" || text == "0.0") text.resize(text.size() - 2);
  return text;
}

std::string row_name(const advise::AdviceRow& row) { return row.mitigation.empty() ? "(as written)" : row.mitigation; }

double per_run(std::int64_t total, std::int64_t runs) {
  return runs == 0 ? 0.0 : static_cast<double>(total) / static_cast<double>(runs);
}

}  // namespace

std::string wait_per_grant_text(const advise::AdviceRow& row, const advise::AdviceRow& as_written) {
  const std::optional<std::int64_t> wait = row.wait_per_grant_ns();
  if (!wait) return "-";
  std::string text = readable_duration(*wait);
  const std::optional<std::int64_t> before = as_written.wait_per_grant_ns();
  if (&row != &as_written && before && *wait != *before) {
    text += fmt::format(" ({}{})", *wait > *before ? "+" : "", readable_duration(*wait - *before));
  }
  return text;
}

std::string calls_per_job_text(const advise::AdviceRow& row) {
  const std::optional<double> calls = row.calls_per_job();
  return calls ? fmt::format("{:.1f}", *calls) : std::string{"-"};
}

namespace {

std::string seeds_text(const advise::Advice& advice) {
  const std::string rounds =
      advice.rounds == 1 ? "" : fmt::format(", in {} rounds, each adding seeds", advice.rounds);
  const std::string outcome = advice.harm.empty() ? ""
                              : advice.separated  ? ": every mitigation's effect told apart from the file's"
                                                  : ": the most seeds allowed, and some effects are still not told apart";
  return fmt::format("{} seeds per row, from seed {}{}{}", advice.seeds, advice.first_seed, rounds, outcome);
}

std::string effect_text(advise::Effect effect) {
  switch (effect) {
    case advise::Effect::kRemoves: return "removes the harm in these runs";
    case advise::Effect::kLessens: return "lessens it";
    case advise::Effect::kNoClearEffect: return "no clear effect in these runs";
    case advise::Effect::kWorsens: return "makes it worse here";
  }
  return "";
}

// "removes the harm in these runs", or kind by kind: "removes stale_write;
// no clear effect on duplicate_effect".
std::string verdict_text(const advise::Advice& advice, const advise::AdviceRow& row) {
  const advise::Effect first = advice.effect_on(row, advice.harm.front());
  const bool alike = std::ranges::all_of(advice.harm, [&](checker::ViolationKind kind) {
    return advice.effect_on(row, kind) == first;
  });
  if (alike) return effect_text(first);
  std::string text;
  for (const checker::ViolationKind kind : advice.harm) {
    const advise::Effect effect = advice.effect_on(row, kind);
    const std::string_view name = checker::violation_kind_name(kind);
    text += text.empty() ? "" : "; ";
    switch (effect) {
      case advise::Effect::kRemoves: text += fmt::format("removes {}", name); break;
      case advise::Effect::kLessens: text += fmt::format("lessens {}", name); break;
      case advise::Effect::kNoClearEffect: text += fmt::format("no clear effect on {}", name); break;
      case advise::Effect::kWorsens: text += fmt::format("more {}", name); break;
    }
  }
  return text;
}

std::string_view effect_name(advise::Effect effect) {
  switch (effect) {
    case advise::Effect::kRemoves: return "removes";
    case advise::Effect::kLessens: return "lessens";
    case advise::Effect::kNoClearEffect: return "no-clear-effect";
    case advise::Effect::kWorsens: return "worsens";
  }
  return "";
}

}  // namespace

std::string advice_row_sentence(const advise::Advice& advice, const advise::AdviceRow& row) {
  std::string text = fmt::format("{}. {}", verdict_text(advice, row), row.why);
  for (const checker::ViolationKind kind : advice.harm) {
    const auto cannot = row.cannot.find(kind);
    if (cannot != row.cannot.end() && advice.effect_on(row, kind) == advise::Effect::kNoClearEffect) {
      text += fmt::format("; {}: {}", checker::violation_kind_name(kind), cannot->second);
    }
  }
  return text;
}

std::string advice_seeds_text(const advise::Advice& advice) { return seeds_text(advice); }

std::string share_with_interval_text(std::int64_t runs_with, std::int64_t runs) {
  const runner::ShareWithInterval share = runner::wilson_interval(runs_with, runs);
  return fmt::format("{}% [{}–{}]", percent_text(share.rate), percent_text(share.low), percent_text(share.high));
}

std::string advice_text(const advise::Advice& advice, const std::vector<std::string>& written) {
  std::string text = fmt::format("advise {}: {} as written; {}\n", advice.scenario,
                                 scenario::fencing_mode_name(advice.mode), seeds_text(advice));
  if (advice.harm.empty()) {
    return text + "no run showed a violation: nothing to advise (try more seeds with --seeds)\n";
  }
  std::string harm;
  for (const checker::ViolationKind kind : advice.harm) {
    harm += fmt::format("{}{}", harm.empty() ? "" : ", ", checker::violation_kind_name(kind));
  }
  text += fmt::format("ranked by {} (share of runs with one, 95 % interval), then the other kinds and the cost\n\n", harm);

  std::size_t name_width = std::string_view{"mitigation"}.size();
  for (const advise::AdviceRow& row : advice.rows) name_width = std::max(name_width, row_name(row).size());
  text += fmt::format("{:<{}}", "mitigation", name_width + 2);
  for (const checker::ViolationKind kind : advice.shown) text += fmt::format("{:<20}", checker::violation_kind_name(kind));
  text += "unfinished/run  wait for the lock      calls/job\n";
  for (const advise::AdviceRow& row : advice.rows) {
    text += fmt::format("{:<{}}", row_name(row), name_width + 2);
    for (const checker::ViolationKind kind : advice.shown) {
      text += fmt::format("{:<20}", share_with_interval_text(row.runs_with.at(kind), row.runs));
    }
    text += fmt::format("{:<16.2f}{:<22}{}\n", per_run(row.unfinished_jobs, row.runs),
                        wait_per_grant_text(row, advice.rows.front()), calls_per_job_text(row));
  }

  text += "\nwhy:\n";
  for (std::size_t index = 1; index < advice.rows.size(); ++index) {
    const advise::AdviceRow& row = advice.rows[index];
    text += fmt::format("  {} ({}): {}\n", row.mitigation, row.change, advice_row_sentence(advice, row));
  }
  for (const advise::NotTried& skipped : advice.not_tried) {
    text += fmt::format("  not tried: {}: {}\n", skipped.mitigation, skipped.why);
  }
  const bool any_written = std::ranges::any_of(written, [](const std::string& path) { return !path.empty(); });
  if (any_written) {
    text += "\nwritten (run each with `locksim run FILE`):\n";
    for (std::size_t index = 0; index < advice.rows.size() && index < written.size(); ++index) {
      text += fmt::format("  {}: {}\n", row_name(advice.rows[index]), written[index]);
    }
  }
  return text;
}

std::string advice_json(const advise::Advice& advice, const std::vector<std::string>& written) {
  ordered_json rows = ordered_json::array();
  for (std::size_t index = 0; index < advice.rows.size(); ++index) {
    const advise::AdviceRow& row = advice.rows[index];
    ordered_json kinds = ordered_json::object();
    for (const checker::ViolationKind kind : advice.shown) {
      const runner::ShareWithInterval share = runner::wilson_interval(row.runs_with.at(kind), row.runs);
      ordered_json entry{{"runs_with", row.runs_with.at(kind)}, {"share", share.rate}, {"low", share.low}, {"high", share.high}};
      if (index > 0 && std::ranges::count(advice.harm, kind) > 0) entry["effect"] = effect_name(advice.effect_on(row, kind));
      kinds[std::string{checker::violation_kind_name(kind)}] = std::move(entry);
    }
    rows.push_back({{"mitigation", row.mitigation.empty() ? ordered_json() : ordered_json(row.mitigation)},
                    {"change", row.change},
                    {"why", row.why},
                    {"pair", row.pair},
                    {"runs", row.runs},
                    {"removes_harm", index > 0 && advice.removes_harm(row)},
                    {"kinds", kinds},
                    {"unfinished_jobs", row.unfinished_jobs},
                    {"acquisitions", row.acquisitions},
                    {"jobs_done", row.jobs_done},
                    {"calls", row.calls},
                    {"acquire_wait_ns", row.acquire_wait_ns},
                    {"stopped_short", row.stopped_short},
                    {"file", index < written.size() && !written[index].empty() ? ordered_json(written[index]) : ordered_json()}});
  }
  ordered_json harm = ordered_json::array();
  for (const checker::ViolationKind kind : advice.harm) harm.push_back(std::string{checker::violation_kind_name(kind)});
  ordered_json not_tried = ordered_json::array();
  for (const advise::NotTried& skipped : advice.not_tried) not_tried.push_back({{"mitigation", skipped.mitigation}, {"why", skipped.why}});
  const ordered_json json{{"scenario", advice.scenario},
                          {"mode", scenario::fencing_mode_name(advice.mode)},
                          {"first_seed", advice.first_seed},
                          {"seeds", advice.seeds},
                          {"rounds", advice.rounds},
                          {"separated", advice.separated},
                          {"ranked_by", harm},
                          {"rows", rows},
                          {"not_tried", not_tried}};
  return json.dump(2) + "\n";
}

}  // namespace locksim::reports
