#include "verify/counterexample_file.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace locksim::verify {

std::string counterexample_file_json(std::string_view original, const scenario::Scenario& scenario,
                                     const Bounds& bounds, const VerifiedRun& counterexample) {
  nlohmann::ordered_json document = nlohmann::ordered_json::parse(original);
  document["name"] = scenario.name + "-counterexample";
  document["seeds"] = 1;
  document.erase("first_seed");
  nlohmann::ordered_json deviations = nlohmann::ordered_json::array();
  for (std::size_t position = 0; position < counterexample.points.size(); ++position) {
    const ChoicePoint& point = counterexample.points[position];
    if (point.index == 0) continue;
    deviations.push_back({{"at", position}, {"index", point.index}, {"site", point.site()}});
  }
  document["choices"] = {{"anchors", bounds.anchors},
                         {"faults", bounds.extra_faults},
                         {"domain", bounds.domain.quartiles ? "wide" : "standard"},
                         {"deviations", std::move(deviations)}};
  return document.dump(2) + "\n";
}

Bounds bounds_of(const scenario::ChoiceScript& choices) {
  Bounds bounds;
  bounds.anchors = choices.anchors;
  bounds.extra_faults = choices.extra_faults;
  bounds.domain.quartiles = choices.wide_domain;
  bounds.deviations = static_cast<int>(choices.deviations.size());
  return bounds;
}

std::vector<std::uint32_t> script_of(const scenario::ChoiceScript& choices) {
  std::vector<std::uint32_t> script;
  for (const scenario::ScriptedChoice& choice : choices.deviations) {
    script.resize(choice.position + 1, 0);
    script[choice.position] = choice.index;
  }
  return script;
}

std::string check_sites(const scenario::ChoiceScript& choices, const VerifiedRun& run) {
  for (std::size_t index = 0; index < choices.deviations.size(); ++index) {
    const scenario::ScriptedChoice& choice = choices.deviations[index];
    const bool reached = choice.position < run.points.size();
    const std::string met = reached ? run.points[choice.position].site() : "no choice point";
    if (!reached || met != choice.site || run.points[choice.position].index != choice.index) {
      return fmt::format("/choices/deviations/{}: the run meets {} at position {} with this build, not {} (index {}); "
                         "the file was written by another version of locksim's model",
                         index, met, choice.position, choice.site, choice.index);
    }
  }
  return "";
}

}  // namespace locksim::verify
