#include "runner/sweep.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenario/scenario_parser.h"

namespace locksim::runner {
namespace {

// Keeps the file's key order, so the parser reads the file as written.
using Document = nlohmann::ordered_json;
using Pointer = Document::json_pointer;

// Where the pointer's value goes must exist in the file: its parent object
// (the last member may be new, e.g. /lock/lease left to its default) or its
// array element.
void check_place(const Document& document, const SweepAxis& axis, const std::string& file) {
  Pointer pointer;
  try {
    pointer = Pointer{axis.pointer};
  } catch (const nlohmann::json::exception& error) {
    throw SweepInputError(fmt::format("--vary {}: not a JSON pointer: {}", axis.argument, error.what()));
  }
  const Pointer parent = pointer.parent_pointer();
  const bool has_parent = document.contains(parent);
  const bool fits = has_parent && (document.at(parent).is_object() ||
                                   (document.at(parent).is_array() && document.contains(pointer)));
  if (!fits) {
    throw SweepInputError(fmt::format(
        "--vary {}: {} has no {}: the pointer's parent must be an object or an existing array element in the file "
        "(only its last member may be new)",
        axis.argument, file, has_parent ? axis.pointer : parent.to_string()));
  }
}

Document with_value(Document document, const SweepAxis& axis, std::int64_t value) {
  const Pointer pointer{axis.pointer};
  if (axis.unit == AxisUnit::kDuration) {
    document[pointer] = value_text(axis, value);
  } else {
    document[pointer] = value;
  }
  return document;
}

void check_axes(const std::vector<SweepAxis>& axes) {
  if (axes.empty() || axes.size() > 2) {
    throw SweepInputError(fmt::format("--vary: expected once or twice, got {} times", axes.size()));
  }
  if (axes.size() == 2) {
    const std::string& first = axes[0].pointer;
    const std::string& second = axes[1].pointer;
    const auto contains = [](const std::string& outer, const std::string& inner) {
      return inner.size() > outer.size() && inner.compare(0, outer.size(), outer) == 0 && inner[outer.size()] == '/';
    };
    if (first == second || contains(first, second) || contains(second, first)) {
      throw SweepInputError(fmt::format("--vary {} and --vary {}: the two must vary different settings", axes[0].argument,
                                        axes[1].argument));
    }
  }
}

scenario::Scenario parse_point(const Document& document, const std::string& file, const std::vector<SweepAxis>& axes,
                                const std::vector<std::int64_t>& values) {
  try {
    return scenario::parse_scenario(document.dump(2), file);
  } catch (const scenario::ScenarioError& error) {
    std::string where;
    for (std::size_t index = 0; index < axes.size(); ++index) {
      where += fmt::format("{}{} = {}", index == 0 ? "" : ", ", axes[index].pointer, value_text(axes[index], values[index]));
    }
    throw SweepInputError(fmt::format("--vary: the scenario with {} is refused: {}", where, error.what()));
  }
}

ScenarioSummary run_point(const SweepPoint& point, const SweepSettings& settings) {
  RunRequest request;
  request.first_seed = point.scenario.first_seed.value_or(1);
  request.seed_count = settings.seeds;
  request.modes = kSweepModes;
  request.threads = settings.threads;
  request.recheck_fraction = 0.0;
  request.oracle = OracleChoice::kOn;
  return run_scenario(point.scenario, request);
}

}  // namespace

SweepPlan plan_sweep(const std::string& text, const std::string& file, std::vector<SweepAxis> axes) {
  check_axes(axes);
  scenario::Scenario original;
  try {
    original = scenario::parse_scenario(text, file);
  } catch (const scenario::ScenarioError& error) {
    throw SweepInputError(error.what());
  }
  const Document document = Document::parse(text);  // the parser accepted it, so it is JSON
  for (const SweepAxis& axis : axes) check_place(document, axis, file);

  SweepPlan plan;
  plan.scenario_name = original.name;
  plan.file = file;
  plan.lease = original.system.lock.lease;
  plan.scenario_seeds = original.seeds;
  const std::vector<std::int64_t> no_second_axis{0};
  const std::vector<std::int64_t>& second_values = axes.size() == 2 ? axes[1].values : no_second_axis;
  for (const std::int64_t first : axes[0].values) {
    for (const std::int64_t second : second_values) {
      std::vector<std::int64_t> values{first};
      Document varied = with_value(document, axes[0], first);
      if (axes.size() == 2) {
        values.push_back(second);
        varied = with_value(std::move(varied), axes[1], second);
      }
      scenario::Scenario scenario = parse_point(varied, file, axes, values);
      plan.points.push_back({std::move(values), std::move(scenario)});
    }
  }
  plan.axes = std::move(axes);
  return plan;
}

SweepResult run_sweep(SweepPlan plan, const SweepSettings& settings, const SweepProgress& progress) {
  SweepResult result;
  result.seeds_per_point = settings.seeds.value_or(static_cast<std::uint64_t>(plan.scenario_seeds));
  for (const SweepPoint& point : plan.points) {
    result.summaries.push_back(run_point(point, settings));
    if (progress) progress(result.summaries.size(), plan.points.size());
  }
  result.plan = std::move(plan);
  return result;
}

std::vector<SweepRow> sweep_rows(const SweepResult& result) {
  std::vector<SweepRow> rows;
  for (std::size_t index = 0; index < result.plan.points.size(); ++index) {
    const ScenarioSummary& summary = result.summaries[index];
    for (const model::Fencing mode : kSweepModes) {
      const auto found = std::find_if(summary.modes.begin(), summary.modes.end(),
                                      [mode](const ModeSummary& candidate) { return candidate.mode == mode; });
      for (const checker::ViolationKind kind : checker::kAllViolationKinds) {
        SweepRow row;
        row.values = result.plan.points[index].values;
        row.mode = mode;
        row.kind = kind;
        if (found != summary.modes.end()) {
          row.runs = found->runs;
          row.runs_with = found->runs_with_any(kind);
        }
        row.share = wilson_interval(row.runs_with, row.runs);
        rows.push_back(std::move(row));
      }
    }
  }
  return rows;
}

}  // namespace locksim::runner
