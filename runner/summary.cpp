#include "runner/summary.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "runner/scenario_run.h"
#include "scenario/fencing_modes.h"

namespace locksim::runner {

std::string BadScenarioFile::json_pointer() const {
  const std::string prefix = file + ": /";
  if (!message.starts_with(prefix)) return "";
  const std::size_t end = message.find(": ", prefix.size());
  return message.substr(prefix.size() - 1, end == std::string::npos ? std::string::npos : end - prefix.size() + 1);
}
namespace {

using scenario::Measure;
using scenario::RunOutcomeKind;

std::string fault_key(std::size_t index) { return fmt::format("faults[{}]", index); }

// Sums that merge adds up from files: a total past the type's range is an
// error, not a wrapped number.
template <class Integer>
void add_to(Integer& total, Integer part) {
  if (__builtin_add_overflow(total, part, &total)) throw std::overflow_error("a count in the summaries exceeds 2^63");
}

// Keeps the lower of the seed already kept for `measure` and `seed`.
void keep_lower_seed(std::map<Measure, std::int64_t>& seeds, const Measure& measure, std::int64_t seed) {
  const auto [kept, added] = seeds.try_emplace(measure, seed);
  if (!added) kept->second = std::min(kept->second, seed);
}

template <class Key>
void add_counts(std::map<Key, std::int64_t>& total, const std::map<Key, std::int64_t>& part) {
  for (const auto& [key, count] : part) add_to(total[key], count);
}

// What one run adds to ModeSummary::total(measure).
std::int64_t run_total(const SeedRun& run, const Measure& measure) {
  if (const auto* violation = std::get_if<checker::ViolationKind>(&measure)) {
    return run.verdict.violation_count(*violation).value_or(0);
  }
  if (const auto* of = std::get_if<scenario::IncidentsOf>(&measure)) {
    return run.verdict.incident_count(of->kind).value_or(0);
  }
  switch (std::get<RunOutcomeKind>(measure)) {
    case RunOutcomeKind::kStoppedShort: return run.stopped_short ? 1 : 0;
    case RunOutcomeKind::kUnfinishedJobs: return run.unfinished_jobs;
  }
  return 0;
}

// Adds `more` to the disagreements `total` keeps: the lowest seeds'.
void keep_lowest_disagreements(ModeSummary& total, const std::vector<OracleDisagreement>& more) {
  total.oracle_disagreements.insert(total.oracle_disagreements.end(), more.begin(), more.end());
  std::stable_sort(total.oracle_disagreements.begin(), total.oracle_disagreements.end(),
                   [](const OracleDisagreement& a, const OracleDisagreement& b) { return a.seed < b.seed; });
  if (total.oracle_disagreements.size() > kOracleDisagreementsKept) {
    total.oracle_disagreements.resize(kOracleDisagreementsKept);
  }
}

bool applies(const scenario::Expectation& expectation, model::Fencing mode) {
  return !expectation.mode || *expectation.mode == mode;
}

// Whether `expectation` says a liveness hazard happens (stuck_lock or
// unfinished_jobs stated so that zero breaks it): such a run usually stops
// short (its jobs wait for ever), so the file means that too.
bool expects_liveness_hazard(const scenario::Expectation& expectation) {
  const Measure& measure = expectation.measure;
  const bool liveness = measure == Measure{checker::ViolationKind::kStuckLock} ||
                        measure == Measure{scenario::IncidentsOf{checker::ViolationKind::kStuckLock}} ||
                        measure == Measure{RunOutcomeKind::kUnfinishedJobs};
  return liveness && !scenario::bound_holds(expectation.bound, 0, 0, 1);
}

// Whether the file decides about stopped_short itself in `mode`: it states
// it, or it expects a liveness hazard; else `stopped_short ==0` is implied.
bool states_stopped_short(const scenario::Scenario& scenario, model::Fencing mode) {
  return std::any_of(scenario.expect.begin(), scenario.expect.end(), [mode](const scenario::Expectation& expectation) {
    return applies(expectation, mode) &&
           (expectation.measure == Measure{RunOutcomeKind::kStoppedShort} || expects_liveness_hazard(expectation));
  });
}

// An expectation that zero occurrences would break ("> 0", ">= 1", "> 2%"):
// the scenario claims its hazard happens.
bool claims_hazard(const ExpectationResult& result) {
  return result.stated && !scenario::bound_holds(result.bound, 0, 0, std::max<std::int64_t>(result.runs, 1));
}

void judge_coverage(ScenarioSummary& summary) {
  summary.judged = true;
  for (ModeSummary& mode : summary.modes) {
    mode.judged = std::any_of(summary.expectations.begin(), summary.expectations.end(),
                              [&](const ExpectationResult& result) { return result.stated && result.mode == mode.mode; });
    if (mode.runs > 0 && !mode.judged) summary.judged = false;
  }
  summary.reproduced = summary.ok && summary.judged &&
                       std::any_of(summary.expectations.begin(), summary.expectations.end(),
                                   [](const ExpectationResult& result) { return result.ok && claims_hazard(result); });
}

}  // namespace

std::int64_t ModeSummary::total(const Measure& measure) const {
  if (const auto* violation = std::get_if<checker::ViolationKind>(&measure)) {
    const auto found = violations.find(*violation);
    return found == violations.end() ? 0 : found->second;
  }
  if (const auto* of = std::get_if<scenario::IncidentsOf>(&measure)) {
    const auto found = incidents.find(of->kind);
    return found == incidents.end() ? 0 : found->second;
  }
  switch (std::get<RunOutcomeKind>(measure)) {
    case RunOutcomeKind::kStoppedShort: return stopped_short;
    case RunOutcomeKind::kUnfinishedJobs: return unfinished_jobs;
  }
  return 0;
}

std::int64_t ModeSummary::runs_with_any(const Measure& measure) const {
  const auto found = runs_with.find(measure);
  return found == runs_with.end() ? 0 : found->second;
}

double ScenarioSummary::cpu_seconds() const {
  double seconds = 0;
  for (const ModeSummary& mode : modes) seconds += mode.cpu_seconds;
  return seconds;
}

ModeSummary empty_mode_summary(model::Fencing mode, std::size_t fault_count) {
  ModeSummary summary;
  summary.mode = mode;
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    summary.violations[kind] = 0;
    summary.incidents[kind] = 0;
  }
  for (const Measure& measure : scenario::all_measures()) summary.runs_with[measure] = 0;
  for (std::size_t index = 0; index < fault_count; ++index) summary.faults_fired[fault_key(index)] = 0;
  return summary;
}

void add_run(ModeSummary& total, const SeedRun& run, const std::string& replay) {
  // Straight into the totals, not through a one-run summary of its own: a
  // summary is a dozen maps, and building one per run was a tenth of a short
  // run's cost. Every map of `total` already has every key (empty_mode_summary).
  add_to(total.runs, std::int64_t{1});
  if (!run.verdict.ok()) {
    add_to(total.runs_with_violation, std::int64_t{1});
    if (!total.first_failing_seed || run.seed < *total.first_failing_seed) {
      total.first_failing_seed = run.seed;
      total.replay = replay;
    }
  }
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    add_to(total.violations[kind], run.verdict.violation_count(kind).value_or(0));
    add_to(total.incidents[kind], run.verdict.incident_count(kind).value_or(0));
  }
  add_to(total.acquisitions, run.verdict.counts.acquisitions);
  add_to(total.accepted_writes, run.verdict.counts.accepted_writes);
  add_to(total.rejected_writes, run.verdict.counts.rejected_writes);
  add_to(total.late_writes, run.verdict.counts.late_writes);
  add_to(total.unfinished_jobs, run.unfinished_jobs);
  add_to(total.jobs_done, run.jobs_done);
  add_to(total.calls, run.calls);
  add_to(total.acquire_wait_ns, run.acquire_wait_ns);
  if (run.stopped_short) {
    add_to(total.stopped_short, std::int64_t{1});
    if (!total.stopped_short_example || run.seed < total.stopped_short_example->seed) {
      total.stopped_short_example = StoppedShortExample{run.seed, run.why_stopped, run.blocked, replay};
    }
  }
  for (const Measure& measure : scenario::all_measures()) {
    if (run_total(run, measure) == 0) continue;
    add_to(total.runs_with[measure], std::int64_t{1});
    keep_lower_seed(total.first_seed_with, measure, static_cast<std::int64_t>(run.seed));
  }
  add_to(total.events, static_cast<std::int64_t>(run.events));
  add_to(total.virtual_ns, run.virtual_ns);
  total.cpu_seconds += run.cpu_seconds;
  for (const std::size_t index : run.faults_fired) add_to(total.faults_fired[fault_key(index)], std::int64_t{1});
  add_counts(total.probes, run.probes);
  if (run.oracle) {
    add_to(total.oracle_runs, std::int64_t{1});
    if (!run.oracle_mismatches.empty()) add_to(total.oracle_disagreeing_runs, std::int64_t{1});
    std::vector<OracleDisagreement> disagreements;
    for (const OracleMismatch& mismatch : run.oracle_mismatches) {
      disagreements.push_back({run.seed, mismatch.measure, mismatch.checker_count, mismatch.oracle_count, replay});
    }
    keep_lowest_disagreements(total, disagreements);
  }
}

void add(ModeSummary& total, const ModeSummary& part) {
  using Part = ModeField::Part;
  for (const ModeField& field : kModeFields) {
    switch (field.part) {
      case Part::kCount: add_to(total.*field.count, part.*field.count); break;
      case Part::kViolations: add_counts(total.violations, part.violations); break;
      case Part::kIncidents: add_counts(total.incidents, part.incidents); break;
      case Part::kRunsWith: add_counts(total.runs_with, part.runs_with); break;
      case Part::kFirstSeedWith:
        for (const auto& [measure, seed] : part.first_seed_with) keep_lower_seed(total.first_seed_with, measure, seed);
        break;
      case Part::kStoppedShortExample:
        if (part.stopped_short_example &&
            (!total.stopped_short_example || part.stopped_short_example->seed < total.stopped_short_example->seed)) {
          total.stopped_short_example = part.stopped_short_example;
        }
        break;
      case Part::kFirstFailingSeed:  // and its replay command
        if (part.first_failing_seed &&
            (!total.first_failing_seed || *part.first_failing_seed < *total.first_failing_seed)) {
          total.first_failing_seed = part.first_failing_seed;
          total.replay = part.replay;
        }
        break;
      case Part::kCpuSeconds: total.cpu_seconds += part.cpu_seconds; break;
      case Part::kFaultsFired: add_counts(total.faults_fired, part.faults_fired); break;
      case Part::kProbes: add_counts(total.probes, part.probes); break;
      case Part::kOracleDisagreements: keep_lowest_disagreements(total, part.oracle_disagreements); break;
      case Part::kJudged:          // set by judge() on the sum
      case Part::kVirtualSeconds:  // derived from virtual_ns
      case Part::kReplay:          // with the first failing seed
        break;
    }
  }
}

std::vector<ExpectationResult> expectations_for(const scenario::Scenario& scenario,
                                                const std::vector<ModeSummary>& modes) {
  std::vector<ExpectationResult> results;
  for (const scenario::Expectation& expectation : scenario.expect) {
    for (const ModeSummary& mode : modes) {
      if (applies(expectation, mode.mode)) results.push_back(ExpectationResult{mode.mode, expectation.measure, expectation.bound});
    }
  }
  // A run cut short proves less than it seems: unless the file says
  // otherwise, every run must end by itself.
  for (const ModeSummary& mode : modes) {
    if (states_stopped_short(scenario, mode.mode)) continue;
    ExpectationResult implicit{mode.mode, Measure{RunOutcomeKind::kStoppedShort},
                               scenario::Bound{scenario::Comparison::kEqual, scenario::Scale::kTotal, 0}};
    implicit.stated = false;
    results.push_back(implicit);
  }
  return results;
}

namespace {

// For a failed expectation, the seed that shows it: for a bound that zero
// keeps (==0, <=N, a share) the first seed with that measure; an
// expectation that something happens failed because no seed showed it.
void show_failure(ExpectationResult& result, const ModeSummary& mode, const std::string& scenario_file) {
  result.shown_by_seed.reset();
  result.replay.clear();
  if (result.ok || !scenario::bound_holds(result.bound, 0, 0, std::max<std::int64_t>(result.runs, 1))) return;
  const auto seed = mode.first_seed_with.find(result.measure);
  if (seed == mode.first_seed_with.end()) return;
  result.shown_by_seed = static_cast<std::uint64_t>(seed->second);
  result.replay = replay_command(scenario_file, *result.shown_by_seed, result.mode);
  if (const auto* kind = std::get_if<checker::ViolationKind>(&result.measure)) {
    result.replay += fmt::format(" --around {}", checker::violation_kind_name(*kind));
  } else if (const auto* of = std::get_if<scenario::IncidentsOf>(&result.measure)) {
    result.replay += fmt::format(" --around {}", checker::violation_kind_name(of->kind));
  }
}

}  // namespace

void judge(ScenarioSummary& summary) {
  for (ExpectationResult& result : summary.expectations) {
    const auto mode = std::find_if(summary.modes.begin(), summary.modes.end(),
                                   [&](const ModeSummary& candidate) { return candidate.mode == result.mode; });
    const ModeSummary empty;
    const ModeSummary& counted = mode == summary.modes.end() ? empty : *mode;
    const std::int64_t total = counted.total(result.measure);
    const std::int64_t runs_with = counted.runs_with_any(result.measure);
    result.runs = counted.runs;
    result.actual = result.bound.scale == scenario::Scale::kShareOfRuns ? runs_with : total;
    result.judged = !summary.partial();
    result.ok = !result.judged || scenario::bound_holds(result.bound, total, runs_with, counted.runs);
    show_failure(result, counted, summary.file.empty() ? summary.name : summary.file);
  }
  summary.inert.clear();
  // A fault that never fired on this shard's seeds may fire on another's.
  const std::vector<ModeSummary> no_modes;
  for (const ModeSummary& mode : summary.partial() ? no_modes : summary.modes) {
    if (mode.runs == 0) continue;
    const std::string_view mode_name = scenario::fencing_mode_name(mode.mode);
    if (!summary.allow_inert) {
      for (const auto& [fault, runs_fired] : mode.faults_fired) {
        if (runs_fired == 0) summary.inert.push_back(fmt::format("{}: {} never fired", mode_name, fault));
      }
    }
    for (const std::string& probe : summary.probes_required) {
      const auto reached = mode.probes.find(probe);
      if (reached == mode.probes.end() || reached->second == 0) {
        summary.inert.push_back(fmt::format("{}: probe {} was never reached", mode_name, probe));
      }
    }
  }
  summary.ok = summary.inert.empty() && summary.recheck_failed.empty() &&
               std::all_of(summary.expectations.begin(), summary.expectations.end(),
                           [](const ExpectationResult& result) { return result.ok; });
  judge_coverage(summary);
}

void merge_summaries(std::vector<ScenarioSummary>& total, const std::vector<ScenarioSummary>& more) {
  for (const ScenarioSummary& part : more) {
    auto existing = std::find_if(total.begin(), total.end(), [&](const ScenarioSummary& s) { return s.name == part.name; });
    if (existing == total.end()) {
      total.push_back(part);
      continue;
    }
    ScenarioSummary& sum = *existing;
    sum.content_hash = part.content_hash;
    sum.first_seed = std::min(sum.first_seed, part.first_seed);
    sum.rechecked += part.rechecked;
    sum.wall_seconds += part.wall_seconds;
    sum.recheck_failed.insert(sum.recheck_failed.end(), part.recheck_failed.begin(), part.recheck_failed.end());
    for (const ModeSummary& mode : part.modes) {
      auto into = std::find_if(sum.modes.begin(), sum.modes.end(), [&](const ModeSummary& m) { return m.mode == mode.mode; });
      if (into == sum.modes.end()) {
        sum.modes.push_back(mode);
      } else {
        add(*into, mode);
      }
    }
  }
  // Judge again on the totals: an expectation is about all seeds together.
  for (ScenarioSummary& scenario : total) {
    std::int64_t runs = 0;
    for (const ModeSummary& mode : scenario.modes) runs = std::max(runs, mode.runs);
    scenario.seed_count = static_cast<std::uint64_t>(runs);
    scenario.shard_index = 0;
    scenario.shard_count = 1;
    judge(scenario);
  }
}

namespace {

// "--fencing compare --oracle on" as the flags were given; "(none recorded)".
std::string flags_words(const std::map<std::string, std::string>& flags) {
  if (flags.empty()) return "(none recorded)";
  std::vector<std::string> words;
  for (const auto& [flag, value] : flags) words.push_back(fmt::format("--{} {}", flag, value));
  return fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

std::string shard_set_problems(const std::vector<SummaryInput>& inputs) {
  std::vector<std::string> problems;
  if (inputs.empty()) return "no summaries given";
  const SummaryInput& first = inputs.front();
  const auto differ = [&](const SummaryInput& other, std::string_view what, const auto& mine, const auto& theirs) {
    problems.push_back(fmt::format("{} and {} differ in {}: {} vs {}", first.file, other.file, what, mine, theirs));
  };
  // Every scenario of one file carries the same shard, as one `run` wrote it.
  const auto shard_of = [](const SummaryInput& input) {
    return input.scenarios.empty() ? std::pair<std::uint64_t, std::uint64_t>{0, 1}
                                   : std::pair{input.scenarios.front().shard_index, input.scenarios.front().shard_count};
  };
  for (const SummaryInput& input : inputs) {
    for (const ScenarioSummary& scenario : input.scenarios) {
      if (std::pair{scenario.shard_index, scenario.shard_count} != shard_of(input)) {
        problems.push_back(fmt::format("{}: its scenarios come from different shards", input.file));
        break;
      }
    }
  }
  const std::uint64_t shard_count = shard_of(first).second;
  std::map<std::uint64_t, std::vector<std::string>> files_by_shard;
  for (const SummaryInput& input : inputs) {
    const auto [index, count] = shard_of(input);
    if (count != shard_count) {
      differ(input, "shard count N", fmt::format("{}/{}", shard_of(first).first, shard_count), fmt::format("{}/{}", index, count));
      continue;
    }
    files_by_shard[index].push_back(input.file);
    if (input.version != first.version) differ(input, "locksim version", first.version, input.version);
    if (input.run_flags != first.run_flags) {
      differ(input, "the flags they were run with", flags_words(first.run_flags), flags_words(input.run_flags));
    }
    if (input.build != first.build) differ(input, "build", first.build, input.build);
    std::vector<std::string> names;
    std::vector<std::string> first_names;
    for (const ScenarioSummary& scenario : input.scenarios) names.push_back(scenario.name);
    for (const ScenarioSummary& scenario : first.scenarios) first_names.push_back(scenario.name);
    if (names != first_names) {
      differ(input, "scenarios", fmt::format("[{}]", fmt::join(first_names, ", ")), fmt::format("[{}]", fmt::join(names, ", ")));
      continue;
    }
    for (std::size_t position = 0; position < names.size(); ++position) {
      const ScenarioSummary& mine = first.scenarios[position];
      const ScenarioSummary& theirs = input.scenarios[position];
      const std::string of = " of scenario " + mine.name;
      if (mine.content_hash != theirs.content_hash) {
        differ(input, "the content of the scenario file" + of,
               fmt::format("{} (hash {:016x})", mine.file, mine.content_hash),
               fmt::format("{} (hash {:016x})", theirs.file, theirs.content_hash));
      }
      if (mine.first_seed != theirs.first_seed) differ(input, "first seed" + of, mine.first_seed, theirs.first_seed);
      if (mine.seed_count != theirs.seed_count) differ(input, "seed count" + of, mine.seed_count, theirs.seed_count);
    }
  }
  // What is missing first, then what is doubled, then what differs.
  std::vector<std::string> coverage;
  std::vector<std::string> doubled;
  for (std::uint64_t index = 0; index < shard_count; ++index) {
    const auto found = files_by_shard.find(index);
    if (found == files_by_shard.end()) {
      coverage.push_back(fmt::format("shard {}/{} is missing", index, shard_count));
    } else if (found->second.size() > 1) {
      const std::string times = found->second.size() == 2 ? "twice" : fmt::format("{} times", found->second.size());
      doubled.push_back(fmt::format("shard {}/{} is given {} ({})", index, shard_count, times, fmt::join(found->second, ", ")));
    }
  }
  coverage.insert(coverage.end(), doubled.begin(), doubled.end());
  coverage.insert(coverage.end(), problems.begin(), problems.end());
  return fmt::format("{}", fmt::join(coverage, "; "));
}

std::vector<ScenarioSummary> merge_shards(const std::vector<SummaryInput>& inputs) {
  std::vector<ScenarioSummary> total;
  for (const SummaryInput& input : inputs) merge_summaries(total, input.scenarios);
  return total;
}

}  // namespace locksim::runner
