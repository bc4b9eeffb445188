#include "reports/summary_json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <tuple>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "locksim/version.h"
#include "reports/expectation_text.h"
#include "scenario/fencing_modes.h"

namespace locksim::reports {
namespace {

using nlohmann::ordered_json;
using runner::ExpectationResult;
using runner::ModeSummary;
using runner::ScenarioSummary;
using runner::OracleDisagreement;
using runner::StoppedShortExample;

// The violation kinds by name, through the one measure name table.
std::optional<checker::ViolationKind> checker_kind(std::string_view name) {
  const std::optional<scenario::Measure> measure = scenario::measure_from_name(name);
  if (!measure || !std::holds_alternative<checker::ViolationKind>(*measure)) return std::nullopt;
  return std::get<checker::ViolationKind>(*measure);
}

template <class Key, class Name>
ordered_json counts_by_name(const std::map<Key, std::int64_t>& counts, Name name_of) {
  ordered_json json = ordered_json::object();
  for (const auto& [key, count] : counts) json[std::string{name_of(key)}] = count;
  return json;
}

ordered_json mode_to_json(const ModeSummary& mode) {
  using Part = runner::ModeField::Part;
  ordered_json json;
  for (const runner::ModeField& field : runner::kModeFields) {
    ordered_json& object = field.object.empty() ? json : json[std::string{field.object}];
    ordered_json& value = object[std::string{field.key}];
    switch (field.part) {
      case Part::kCount: value = mode.*field.count; break;
      case Part::kJudged: value = mode.judged; break;
      case Part::kViolations: value = counts_by_name(mode.violations, checker::violation_kind_name); break;
      case Part::kIncidents: value = counts_by_name(mode.incidents, checker::violation_kind_name); break;
      // Per violation kind and run outcome, the runs with at least one: what
      // share-of-runs expectations ("<=2%") are judged on, also after a merge.
      case Part::kRunsWith: value = counts_by_name(mode.runs_with, scenario::measure_name); break;
      // Per measure the lowest seed with one: what a failed expectation's replay shows, also after a merge.
      case Part::kFirstSeedWith: value = counts_by_name(mode.first_seed_with, scenario::measure_name); break;
      case Part::kStoppedShortExample:
        if (const auto& example = mode.stopped_short_example) {
          value = {{"seed", example->seed}, {"why", example->why}, {"blocked", example->blocked}, {"replay", example->replay}};
        }
        break;  // else null
      case Part::kFirstFailingSeed:
        if (mode.first_failing_seed) value = *mode.first_failing_seed;
        break;
      // virtual_ns (an extension) keeps the exact sum for merging.
      case Part::kVirtualSeconds: value = static_cast<double>(mode.virtual_ns) / 1e9; break;
      case Part::kCpuSeconds: value = mode.cpu_seconds; break;
      case Part::kFaultsFired: value = mode.faults_fired; break;
      case Part::kProbes: value = mode.probes; break;
      case Part::kReplay:
        if (!mode.replay.empty()) value = mode.replay;
        break;
      case Part::kOracleDisagreements:
        value = ordered_json::array();
        for (const OracleDisagreement& disagreement : mode.oracle_disagreements) {
          value.push_back({{"seed", disagreement.seed},
                           {"kind", disagreement.kind},
                           {"checker", disagreement.checker},
                           {"oracle", disagreement.oracle},
                           {"replay", disagreement.replay}});
        }
        break;
    }
  }
  return json;
}

ordered_json expectation_to_json(const ExpectationResult& result) {
  const bool share = result.bound.scale == scenario::Scale::kShareOfRuns;
  ordered_json json = {{"mode", scenario::fencing_mode_name(result.mode)},
                       {"violation", scenario::measure_name(result.measure)},
                       {"op", scenario::comparison_symbol(result.bound.comparison)}};
  // A share's value is its percentage (2.5 for "<=2.5%"), its actual the runs with at least one.
  if (share) {
    json["value"] = static_cast<double>(result.bound.value) / static_cast<double>(scenario::kPartsPerMillionPerPercent);
  } else {
    json["value"] = result.bound.value;
  }
  json["share_of_runs"] = share;
  json["actual"] = result.actual;
  json["runs"] = result.runs;
  json["stated"] = result.stated;
  json["text"] = expectation_words(result);
  // A failed expectation: the seed that shows it and its replay (null: no seed shows it).
  json["seed"] = result.shown_by_seed ? ordered_json(*result.shown_by_seed) : ordered_json(nullptr);
  json["replay"] = result.replay.empty() ? ordered_json(nullptr) : ordered_json(result.replay);
  // On a shard nothing is judged: `ok` is null rather than a verdict on part of the seeds.
  json["judged"] = result.judged;
  json["ok"] = result.judged ? ordered_json(result.ok) : ordered_json(nullptr);
  return json;
}

ordered_json scenario_to_json(const ScenarioSummary& scenario) {
  ordered_json json;
  json["name"] = scenario.name;
  json["file"] = scenario.file;
  json["content_hash"] = fmt::format("{:016x}", scenario.content_hash);
  json["seeds"] = {{"first", scenario.first_seed}, {"count", scenario.seed_count}};
  json["shard"] = fmt::format("{}/{}", scenario.shard_index, scenario.shard_count);
  json["partial"] = scenario.partial();
  json["modes"] = ordered_json::object();
  for (const ModeSummary& mode : scenario.modes) json["modes"][std::string{scenario::fencing_mode_name(mode.mode)}] = mode_to_json(mode);
  json["expectations"] = ordered_json::array();
  for (const ExpectationResult& result : scenario.expectations) json["expectations"].push_back(expectation_to_json(result));
  json["inert"] = scenario.inert;
  json["inert_rules"] = {{"allow_inert", scenario.allow_inert}, {"probes_required", scenario.probes_required}};
  json["recheck"] = {{"seeds", scenario.rechecked}, {"failed", scenario.recheck_failed}};
  // Wall time is what the user waited; CPU time is summed over the threads.
  json["stats"] = {{"wall_s", scenario.wall_seconds}, {"cpu_s", scenario.cpu_seconds()}};
  // A shard has only some seeds: it judges nothing, so it states no verdict.
  const auto verdict = [&scenario](bool value) { return scenario.partial() ? ordered_json(nullptr) : ordered_json(value); };
  json["ok"] = verdict(scenario.ok);
  json["judged"] = verdict(scenario.judged);
  json["reproduced"] = verdict(scenario.reproduced);
  return json;
}

// Reads with JSON-path errors; the summary is machine-written, so the checks
// are about truncated or hand-edited files.
class Reader {
 public:
  static constexpr std::int64_t kLargestCount = 1'000'000'000'000'000'000;

  explicit Reader(std::string file) : file_{std::move(file)} {}
  const ordered_json& at(const ordered_json& object, const std::string& key, const std::string& path) const {
    if (!object.is_object() || !object.contains(key)) fail(path + "/" + key, "missing");
    return object[key];
  }
  std::int64_t integer(const ordered_json& object, const std::string& key, const std::string& path) const {
    const ordered_json& value = at(object, key, path);
    // No count of a real run comes near 10^18; a larger one (or a negative
    // one) is a hand-edited file, and summing it could overflow.
    if (!value.is_number_integer() || (value.is_number_unsigned() && value.get<std::uint64_t>() > kLargestCount) ||
        (!value.is_number_unsigned() && (value.get<std::int64_t>() < 0 || value.get<std::int64_t>() > kLargestCount))) {
      fail(path + "/" + key, "expected a whole number from 0 to 10^18");
    }
    return value.get<std::int64_t>();
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SummaryError(fmt::format("{}: {}: {}", file_, path, what));
  }

 private:
  std::string file_;
};

// A time in seconds: a number, not negative.
double seconds(const Reader& reader, const ordered_json& object, const std::string& key, const std::string& path) {
  const ordered_json& value = reader.at(object, key, path);
  if (!value.is_number() || value.get<double>() < 0) reader.fail(path + "/" + key, "expected seconds (a number, 0 or more)");
  return value.get<double>();
}

// Counts keyed by name, every name known to `from_name`.
template <class Key, class FromName>
std::map<Key, std::int64_t> counts_from_json(const Reader& reader, const ordered_json& json, const std::string& path,
                                             FromName from_name) {
  std::map<Key, std::int64_t> counts;
  if (!json.is_object()) reader.fail(path, "expected an object");
  for (const auto& [name, value] : json.items()) {
    const std::optional<Key> key = from_name(name);
    if (!key) reader.fail(path + "/" + name, "unknown name");
    counts[*key] = reader.integer(json, name, path);
  }
  return counts;
}

// Every violation kind must have its count: the table and the merge read each
// one (a summary without one made the table throw; found by fuzzing).
void require_every_kind(const Reader& reader, const std::map<checker::ViolationKind, std::int64_t>& counts,
                        const std::string& path) {
  for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
    if (!counts.contains(kind)) {
      reader.fail(path, fmt::format("expected a count for every violation kind; \"{}\" is missing",
                                    checker::violation_kind_name(kind)));
    }
  }
}

ModeSummary mode_from_json(const Reader& reader, const ordered_json& json, model::Fencing mode_fencing, const std::string& path) {
  using Part = runner::ModeField::Part;
  ModeSummary mode;
  mode.mode = mode_fencing;
  for (const runner::ModeField& field : runner::kModeFields) {
    const std::string object_path = field.object.empty() ? path : fmt::format("{}/{}", path, field.object);
    const ordered_json& object = field.object.empty() ? json : reader.at(json, std::string{field.object}, path);
    const std::string key{field.key};
    const std::string key_path = fmt::format("{}/{}", object_path, key);
    switch (field.part) {
      case Part::kCount: mode.*field.count = reader.integer(object, key, object_path); break;
      case Part::kViolations:
      case Part::kIncidents: {
        auto& counts = field.part == Part::kViolations ? mode.violations : mode.incidents;
        counts = counts_from_json<checker::ViolationKind>(reader, reader.at(object, key, object_path), key_path,
                                                          [](std::string_view name) { return checker_kind(name); });
        require_every_kind(reader, counts, key_path);
        break;
      }
      case Part::kRunsWith:
        mode.runs_with = counts_from_json<scenario::Measure>(reader, reader.at(object, key, object_path), key_path,
                                                              scenario::measure_from_name);
        for (const auto& [measure, runs] : mode.runs_with) {
          // More runs with one than runs: a share above 100 %.
          if (runs > mode.runs) {
            reader.fail(fmt::format("{}/{}", key_path, scenario::measure_name(measure)),
                        fmt::format("expected at most the mode's {} runs, got {}", mode.runs, runs));
          }
        }
        break;
      case Part::kFirstSeedWith:  // optional: summaries written before it was added have none
        if (object.contains(key)) {
          mode.first_seed_with =
              counts_from_json<scenario::Measure>(reader, object[key], key_path, scenario::measure_from_name);
        }
        break;
      case Part::kStoppedShortExample:
        if (const ordered_json& example = reader.at(object, key, object_path); !example.is_null()) {
          mode.stopped_short_example = StoppedShortExample{
              static_cast<std::uint64_t>(reader.integer(example, "seed", key_path)),
              reader.at(example, "why", key_path).get<std::string>(),
              reader.at(example, "blocked", key_path).get<std::vector<std::string>>(),
              reader.at(example, "replay", key_path).get<std::string>()};
        }
        break;
      case Part::kFirstFailingSeed:
        if (const ordered_json& first = reader.at(object, key, object_path); !first.is_null()) {
          mode.first_failing_seed = first.get<std::uint64_t>();
        }
        break;
      case Part::kCpuSeconds: mode.cpu_seconds = seconds(reader, object, key, object_path); break;
      case Part::kFaultsFired:
        for (const auto& [name, value] : reader.at(object, key, object_path).items()) {
          mode.faults_fired[name] = value.get<std::int64_t>();
        }
        break;
      case Part::kProbes:
        for (const auto& [name, value] : reader.at(object, key, object_path).items()) {
          mode.probes[name] = value.get<std::int64_t>();
        }
        break;
      case Part::kReplay:
        if (const ordered_json& replay = reader.at(object, key, object_path); !replay.is_null()) {
          mode.replay = replay.get<std::string>();
        }
        break;
      case Part::kOracleDisagreements: {
        const ordered_json& disagreements = reader.at(object, key, object_path);
        for (std::size_t index = 0; index < disagreements.size(); ++index) {
          const std::string entry_path = fmt::format("{}/{}", key_path, index);
          const ordered_json& entry = disagreements[index];
          mode.oracle_disagreements.push_back({static_cast<std::uint64_t>(reader.integer(entry, "seed", entry_path)),
                                               reader.at(entry, "kind", entry_path).get<std::string>(),
                                               reader.integer(entry, "checker", entry_path),
                                               reader.integer(entry, "oracle", entry_path),
                                               reader.at(entry, "replay", entry_path).get<std::string>()});
        }
        break;
      }
      case Part::kJudged:          // judge() decides it again
      case Part::kVirtualSeconds:  // virtual_ns is the exact sum
        break;
    }
  }
  return mode;
}

model::Fencing mode_from_name(const Reader& reader, const std::string& name, const std::string& path) {
  const std::optional<model::Fencing> fencing = scenario::fencing_from_mode_name(name);
  if (!fencing) {
    reader.fail(path, fmt::format("expected \"{}\" or \"{}\"", scenario::fencing_mode_name(model::Fencing::kOff),
                                  scenario::fencing_mode_name(model::Fencing::kOn)));
  }
  return *fencing;
}

ExpectationResult expectation_from_json(const Reader& reader, const ordered_json& json, const std::string& path) {
  ExpectationResult result;
  result.mode = mode_from_name(reader, reader.at(json, "mode", path).get<std::string>(), path + "/mode");
  const std::optional<scenario::Measure> measure =
      scenario::measure_from_name(reader.at(json, "violation", path).get<std::string>());
  if (!measure) reader.fail(path + "/violation", "unknown name");
  result.measure = *measure;
  const std::optional<scenario::Comparison> comparison =
      scenario::comparison_from_symbol(reader.at(json, "op", path).get<std::string>());
  if (!comparison) reader.fail(path + "/op", "expected one of ==, >, <, >=, <=");
  result.bound.comparison = *comparison;
  const bool share = reader.at(json, "share_of_runs", path).get<bool>();
  result.bound.scale = share ? scenario::Scale::kShareOfRuns : scenario::Scale::kTotal;
  const ordered_json& value = reader.at(json, "value", path);
  if (share && (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 100)) {
    reader.fail(path + "/value", "expected a share of runs from 0 to 100 (percent)");
  }
  result.bound.value = share ? std::llround(value.get<double>() * static_cast<double>(scenario::kPartsPerMillionPerPercent))
                             : reader.integer(json, "value", path);
  result.stated = reader.at(json, "stated", path).get<bool>();
  result.actual = reader.integer(json, "actual", path);
  result.runs = reader.integer(json, "runs", path);
  result.judged = reader.at(json, "judged", path).get<bool>();
  const ordered_json& ok = reader.at(json, "ok", path);
  result.ok = ok.is_null() || ok.get<bool>();
  return result;
}

std::uint64_t hash_from_json(const Reader& reader, const ordered_json& json, const std::string& path) {
  const std::string text = json.get<std::string>();
  std::uint64_t hash = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), hash, 16);
  if (text.size() != 16 || error != std::errc{} || end != text.data() + text.size()) reader.fail(path, "expected 16 hex digits");
  return hash;
}

// "K/N" with 0 <= K < N.
std::pair<std::uint64_t, std::uint64_t> shard_from_json(const Reader& reader, const ordered_json& json, const std::string& path) {
  const std::string text = json.get<std::string>();
  const std::size_t slash = text.find('/');
  std::uint64_t index = 0;
  std::uint64_t count = 0;
  const char* const end = text.data() + text.size();
  const bool read = slash != std::string::npos &&
                    std::from_chars(text.data(), text.data() + slash, index).ptr == text.data() + slash &&
                    std::from_chars(text.data() + slash + 1, end, count).ptr == end && slash > 0 && slash + 1 < text.size();
  if (!read || count == 0 || index >= count) reader.fail(path, "expected \"K/N\" with 0 <= K < N");
  return {index, count};
}

}  // namespace

std::string summary_to_json(const std::vector<ScenarioSummary>& scenarios,
                            const std::vector<runner::BadScenarioFile>& load_errors,
                            const std::map<std::string, std::string>& run_flags) {
  ordered_json json;
  json["version"] = kVersion;
  json["build"] = kBuildId;
  json["run_flags"] = run_flags;
  json["scenarios"] = ordered_json::array();
  bool ok = load_errors.empty();
  bool all_partial = !scenarios.empty();
  for (const ScenarioSummary& scenario : scenarios) {
    json["scenarios"].push_back(scenario_to_json(scenario));
    if (!scenario.partial()) ok = ok && scenario.ok;
    all_partial = all_partial && scenario.partial();
  }
  json["load_errors"] = ordered_json::array();
  for (const runner::BadScenarioFile& bad : load_errors) {
    json["load_errors"].push_back({{"file", bad.file}, {"path", bad.json_pointer()}, {"message", bad.message}});
  }
  // A shard judges nothing: null, unless a file failed to load (false: the run's exit code was 2).
  json["ok"] = all_partial && ok ? ordered_json(nullptr) : ordered_json(ok);
  return json.dump(2) + "\n";
}

std::vector<ScenarioSummary> summary_from_json(std::string_view text, const std::string& file) {
  return summary_input_from_json(text, file).scenarios;
}

runner::SummaryInput summary_input_from_json(std::string_view text, const std::string& file) {
  const Reader reader{file};
  ordered_json json;
  try {
    json = ordered_json::parse(text);
  } catch (const ordered_json::exception& error) {
    throw SummaryError(fmt::format("{}: not a locksim summary: malformed JSON ({})", file, error.what()));
  }
  runner::SummaryInput input;
  input.file = file;
  std::vector<ScenarioSummary>& scenarios = input.scenarios;
  try {
    const ordered_json& list = reader.at(json, "scenarios", "");
    if (!list.is_array()) reader.fail("/scenarios", "expected a list");
    for (std::size_t index = 0; index < list.size(); ++index) {
      const std::string path = fmt::format("/scenarios/{}", index);
      const ordered_json& entry = list[index];
      ScenarioSummary scenario;
      scenario.name = reader.at(entry, "name", path).get<std::string>();
      scenario.file = reader.at(entry, "file", path).get<std::string>();
      scenario.first_seed = static_cast<std::uint64_t>(reader.integer(reader.at(entry, "seeds", path), "first", path + "/seeds"));
      scenario.seed_count = static_cast<std::uint64_t>(reader.integer(reader.at(entry, "seeds", path), "count", path + "/seeds"));
      scenario.content_hash = hash_from_json(reader, reader.at(entry, "content_hash", path), path + "/content_hash");
      std::tie(scenario.shard_index, scenario.shard_count) =
          shard_from_json(reader, reader.at(entry, "shard", path), path + "/shard");
      for (const auto& [mode, value] : reader.at(entry, "modes", path).items()) {
        const std::string mode_path = path + "/modes/" + mode;
        scenario.modes.push_back(mode_from_json(reader, value, mode_from_name(reader, mode, mode_path), mode_path));
      }
      const ordered_json& expectations = reader.at(entry, "expectations", path);
      for (std::size_t position = 0; position < expectations.size(); ++position) {
        scenario.expectations.push_back(
            expectation_from_json(reader, expectations[position], fmt::format("{}/expectations/{}", path, position)));
      }
      for (const ordered_json& why : reader.at(entry, "inert", path)) scenario.inert.push_back(why.get<std::string>());
      const ordered_json& rules = reader.at(entry, "inert_rules", path);
      scenario.allow_inert = reader.at(rules, "allow_inert", path + "/inert_rules").get<bool>();
      for (const ordered_json& probe : reader.at(rules, "probes_required", path + "/inert_rules")) {
        scenario.probes_required.push_back(probe.get<std::string>());
      }
      const ordered_json& recheck = reader.at(entry, "recheck", path);
      scenario.rechecked = static_cast<std::uint64_t>(reader.integer(recheck, "seeds", path + "/recheck"));
      for (const ordered_json& seed : reader.at(recheck, "failed", path + "/recheck")) scenario.recheck_failed.push_back(seed.get<std::uint64_t>());
      scenario.wall_seconds = seconds(reader, reader.at(entry, "stats", path), "wall_s", path + "/stats");
      const ordered_json& ok = reader.at(entry, "ok", path);
      if (ok.is_null() && !scenario.partial()) reader.fail(path + "/ok", "expected true or false (null only on a shard)");
      scenario.ok = ok.is_null() || ok.get<bool>();
      scenarios.push_back(std::move(scenario));
    }
    if (json.contains("run_flags")) {
      const ordered_json& flags = json["run_flags"];
      if (!flags.is_object()) reader.fail("/run_flags", "expected an object");
      for (const auto& [flag, value] : flags.items()) {
        if (!value.is_string()) reader.fail("/run_flags/" + flag, "expected a string");
        input.run_flags.emplace(flag, value.get<std::string>());
      }
    }
    if (json.contains("load_errors")) {
      const ordered_json& errors = json["load_errors"];
      if (!errors.is_array()) reader.fail("/load_errors", "expected a list");
      for (std::size_t index = 0; index < errors.size(); ++index) {
        const std::string path = fmt::format("/load_errors/{}", index);
        input.load_errors.push_back({reader.at(errors[index], "file", path).get<std::string>(),
                                     reader.at(errors[index], "message", path).get<std::string>()});
      }
    }
    input.version = reader.at(json, "version", "").get<std::string>();
    input.build = reader.at(json, "build", "").get<std::string>();
  } catch (const ordered_json::exception& error) {
    throw SummaryError(fmt::format("{}: not a locksim summary: {}", file, error.what()));
  }
  return input;
}

}  // namespace locksim::reports
