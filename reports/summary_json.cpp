#include "reports/summary_json.h"

#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "locksim/version.h"

namespace locksim::reports {
namespace {

using nlohmann::ordered_json;
using runner::ExpectationResult;
using runner::ModeSummary;
using runner::ScenarioSummary;

ordered_json mode_to_json(const ModeSummary& mode) {
  ordered_json json;
  json["runs"] = mode.runs;
  json["runs_with_violation"] = mode.runs_with_violation;
  json["violations"] = mode.violations;
  json["counts"] = {{"acquisitions", mode.acquisitions},
                    {"accepted_writes", mode.accepted_writes},
                    {"rejected_writes", mode.rejected_writes}};
  json["first_failing_seed"] = mode.first_failing_seed ? ordered_json(*mode.first_failing_seed) : ordered_json(nullptr);
  // virtual_ns (an extension) keeps the exact sum for merging.
  json["stats"] = {{"events", mode.events},
                   {"virtual_s", static_cast<double>(mode.virtual_ns) / 1e9},
                   {"wall_s", mode.wall_seconds},
                   {"virtual_ns", mode.virtual_ns}};
  json["faults_fired"] = mode.faults_fired;
  json["probes"] = mode.probes;
  json["replay"] = mode.replay.empty() ? ordered_json(nullptr) : ordered_json(mode.replay);
  return json;
}

ordered_json scenario_to_json(const ScenarioSummary& scenario) {
  ordered_json json;
  json["name"] = scenario.name;
  json["file"] = scenario.file;
  json["seeds"] = {{"first", scenario.first_seed}, {"count", scenario.seed_count}};
  json["modes"] = ordered_json::object();
  for (const ModeSummary& mode : scenario.modes) json["modes"][mode.mode] = mode_to_json(mode);
  json["expectations"] = ordered_json::array();
  for (const ExpectationResult& result : scenario.expectations) {
    json["expectations"].push_back({{"mode", result.mode},
                                    {"violation", result.violation},
                                    {"op", result.op},
                                    {"value", result.value},
                                    {"actual", result.actual},
                                    {"ok", result.ok}});
  }
  json["inert"] = scenario.inert;
  json["inert_rules"] = {{"allow_inert", scenario.allow_inert}, {"probes_required", scenario.probes_required}};
  json["recheck"] = {{"seeds", scenario.rechecked}, {"failed", scenario.recheck_failed}};
  json["ok"] = scenario.ok;
  return json;
}

// Reads with JSON-path errors; the summary is machine-written, so the checks
// are about truncated or hand-edited files.
class Reader {
 public:
  explicit Reader(std::string file) : file_{std::move(file)} {}
  const ordered_json& at(const ordered_json& object, const std::string& key, const std::string& path) const {
    if (!object.is_object() || !object.contains(key)) fail(path + "/" + key, "missing");
    return object[key];
  }
  std::int64_t integer(const ordered_json& object, const std::string& key, const std::string& path) const {
    const ordered_json& value = at(object, key, path);
    if (!value.is_number_integer()) fail(path + "/" + key, "expected a whole number");
    return value.get<std::int64_t>();
  }
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw SummaryError(fmt::format("{}: {}: {}", file_, path, what));
  }

 private:
  std::string file_;
};

ModeSummary mode_from_json(const Reader& reader, const ordered_json& json, const std::string& name, const std::string& path) {
  ModeSummary mode;
  mode.mode = name;
  mode.runs = reader.integer(json, "runs", path);
  mode.runs_with_violation = reader.integer(json, "runs_with_violation", path);
  for (const auto& [key, value] : reader.at(json, "violations", path).items()) mode.violations[key] = value.get<std::int64_t>();
  const ordered_json& counts = reader.at(json, "counts", path);
  mode.acquisitions = reader.integer(counts, "acquisitions", path + "/counts");
  mode.accepted_writes = reader.integer(counts, "accepted_writes", path + "/counts");
  mode.rejected_writes = reader.integer(counts, "rejected_writes", path + "/counts");
  const ordered_json& first = reader.at(json, "first_failing_seed", path);
  if (!first.is_null()) mode.first_failing_seed = first.get<std::uint64_t>();
  const ordered_json& stats = reader.at(json, "stats", path);
  mode.events = static_cast<std::uint64_t>(reader.integer(stats, "events", path + "/stats"));
  mode.virtual_ns = reader.integer(stats, "virtual_ns", path + "/stats");
  mode.wall_seconds = reader.at(stats, "wall_s", path + "/stats").get<double>();
  for (const auto& [key, value] : reader.at(json, "faults_fired", path).items()) mode.faults_fired[key] = value.get<std::int64_t>();
  for (const auto& [key, value] : reader.at(json, "probes", path).items()) mode.probes[key] = value.get<std::int64_t>();
  const ordered_json& replay = reader.at(json, "replay", path);
  if (!replay.is_null()) mode.replay = replay.get<std::string>();
  return mode;
}

}  // namespace

std::string summary_to_json(const std::vector<ScenarioSummary>& scenarios) {
  ordered_json json;
  json["version"] = kVersion;
  json["scenarios"] = ordered_json::array();
  bool ok = true;
  for (const ScenarioSummary& scenario : scenarios) {
    json["scenarios"].push_back(scenario_to_json(scenario));
    ok = ok && scenario.ok;
  }
  json["ok"] = ok;
  return json.dump(2) + "\n";
}

std::vector<ScenarioSummary> summary_from_json(std::string_view text, const std::string& file) {
  const Reader reader{file};
  ordered_json json;
  try {
    json = ordered_json::parse(text);
  } catch (const ordered_json::exception& error) {
    throw SummaryError(fmt::format("{}: not a locksim summary: malformed JSON ({})", file, error.what()));
  }
  std::vector<ScenarioSummary> scenarios;
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
      for (const auto& [mode, value] : reader.at(entry, "modes", path).items()) {
        scenario.modes.push_back(mode_from_json(reader, value, mode, path + "/modes/" + mode));
      }
      for (const ordered_json& result : reader.at(entry, "expectations", path)) {
        scenario.expectations.push_back(ExpectationResult{result.at("mode"), result.at("violation"), result.at("op"),
                                                          result.at("value"), result.at("actual"), result.at("ok")});
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
      scenario.ok = reader.at(entry, "ok", path).get<bool>();
      scenarios.push_back(std::move(scenario));
    }
  } catch (const ordered_json::exception& error) {
    throw SummaryError(fmt::format("{}: not a locksim summary: {}", file, error.what()));
  }
  return scenarios;
}

void merge_summaries(std::vector<ScenarioSummary>& total, const std::vector<ScenarioSummary>& more) {
  for (const ScenarioSummary& part : more) {
    auto existing = std::find_if(total.begin(), total.end(), [&](const ScenarioSummary& s) { return s.name == part.name; });
    if (existing == total.end()) {
      total.push_back(part);
      continue;
    }
    ScenarioSummary& sum = *existing;
    sum.first_seed = std::min(sum.first_seed, part.first_seed);
    sum.rechecked += part.rechecked;
    sum.recheck_failed.insert(sum.recheck_failed.end(), part.recheck_failed.begin(), part.recheck_failed.end());
    for (const ModeSummary& mode : part.modes) {
      auto into = std::find_if(sum.modes.begin(), sum.modes.end(), [&](const ModeSummary& m) { return m.mode == mode.mode; });
      if (into == sum.modes.end()) {
        sum.modes.push_back(mode);
        continue;
      }
      into->runs += mode.runs;
      into->runs_with_violation += mode.runs_with_violation;
      for (const auto& [name, count] : mode.violations) into->violations[name] += count;
      into->acquisitions += mode.acquisitions;
      into->accepted_writes += mode.accepted_writes;
      into->rejected_writes += mode.rejected_writes;
      if (mode.first_failing_seed && (!into->first_failing_seed || *mode.first_failing_seed < *into->first_failing_seed)) {
        into->first_failing_seed = mode.first_failing_seed;
        into->replay = mode.replay;
      }
      into->events += mode.events;
      into->virtual_ns += mode.virtual_ns;
      into->wall_seconds += mode.wall_seconds;
      for (const auto& [name, count] : mode.faults_fired) into->faults_fired[name] += count;
      for (const auto& [name, count] : mode.probes) into->probes[name] += count;
    }
  }
  // Judge again on the totals: an expectation is about all seeds together.
  for (ScenarioSummary& scenario : total) {
    std::int64_t runs = 0;
    for (const ModeSummary& mode : scenario.modes) runs = std::max(runs, mode.runs);
    scenario.seed_count = static_cast<std::uint64_t>(runs);
    runner::judge(scenario);
  }
}

}  // namespace locksim::reports
