// No label of a timeline prints over another label, a bar or a mark: every
// built-in scenario's pictures, as report pages draw them (the whole run, the
// window around the first violation and the critical window enlarged, with a
// critical-event note on the first fault), read back from the SVG and measured with the picture's own
// layout model (reports/label_layout.h). scripts/report-screenshots.sh holds
// the same pages to Chromium's own text boxes.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "reports/label_layout.h"
#include "reports/timeline.h"
#include "reports/timeline_svg.h"
#include "reports/trace.h"
#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"

namespace locksim::reports {
namespace {

// What a label must not print over: a lease or belief bar, a fault's band, a write's or an effect's mark.
bool is_obstacle(const pugi::xml_node& shape) {
  const std::string kind = shape.attribute("class").as_string();
  const std::string name = shape.name();
  if (name == "rect") return kind == "lease" || kind == "belief" || kind == "fault";
  if (name == "circle") return kind.starts_with("write") || kind.starts_with("effect") || kind.starts_with("read");
  return false;
}

Box shape_box(const pugi::xml_node& shape) {
  if (std::string{shape.name()} == "circle") {
    const double cx = shape.attribute("cx").as_double();
    const double cy = shape.attribute("cy").as_double();
    const double r = shape.attribute("r").as_double();
    return Box{cx - r, cy - r, cx + r, cy + r};
  }
  const double left = shape.attribute("x").as_double();
  const double top = shape.attribute("y").as_double();
  return Box{left, top, left + shape.attribute("width").as_double(), top + shape.attribute("height").as_double()};
}

struct Label {
  std::string text;
  std::string kind;
  Box box;
};

Label label_of(const pugi::xml_node& text) {
  const std::string anchor = text.attribute("text-anchor").as_string("start");
  return Label{text.text().as_string(), text.attribute("class").as_string(),
               text_box(text.attribute("x").as_double(), text.attribute("y").as_double(), anchor,
                        text.attribute("font-size").as_double(12), text.text().as_string())};
}

// Every overlap of the picture, in words; empty when there is none.
std::vector<std::string> overlaps(const std::string& svg) {
  pugi::xml_document document;
  EXPECT_TRUE(document.load_string(svg.c_str(), pugi::parse_default | pugi::parse_trim_pcdata));
  std::vector<Label> labels;
  std::vector<Box> obstacles;
  for (const pugi::xml_node& node : document.child("svg").children()) {
    if (std::string{node.name()} == "text") labels.push_back(label_of(node));
    if (is_obstacle(node)) obstacles.push_back(shape_box(node));
  }
  std::vector<std::string> found;
  for (std::size_t one = 0; one < labels.size(); ++one) {
    for (std::size_t other = one + 1; other < labels.size(); ++other) {
      if (labels[one].box.overlaps(labels[other].box)) {
        found.push_back(fmt::format("\"{}\" over \"{}\"", labels[one].text, labels[other].text));
      }
    }
    // A lease's token is written inside its own bar, a crash's ✕ on its belief's end.
    if (labels[one].kind == "token" || labels[one].kind == "crash-mark") continue;
    for (const Box& obstacle : obstacles) {
      if (labels[one].box.overlaps(obstacle)) {
        found.push_back(fmt::format("\"{}\" over a bar or mark at x {:.0f}", labels[one].text, obstacle.left));
      }
    }
  }
  return found;
}

struct Pictured {
  Timeline timeline;
  std::string scenario;
};

Pictured picture(const scenario::Scenario& scenario, std::uint64_t seed, model::Fencing fencing) {
  std::vector<TraceEntry> trace;
  const runner::SeedRun run = runner::run_plan(scenario, scenario::make_plan(scenario, seed), fencing,
                                               [&](std::string_view line, const sim::Simulation&) {
                                                 trace.push_back(trace_entry(line));
                                               });
  return {build_timeline(trace, run.verdict), scenario.name};
}

// The note a report page puts on its explored counterexample's critical fault.
std::optional<TimelineNote> note_on_first_fault(const Timeline& timeline) {
  const std::string text = "critical event: this pause — fails from 10.03039s (lease 10s)";
  if (!timeline.spans.empty()) {
    return TimelineNote{text, timeline.spans.front().begin_ns, timeline.lanes[timeline.spans.front().lane].name};
  }
  if (!timeline.markers.empty()) {
    return TimelineNote{text, timeline.markers.front().time_ns, timeline.lanes[timeline.markers.front().lane].name};
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> builtin_scenarios() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator{LOCKSIM_SCENARIO_DIR}) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::ranges::sort(files);
  return files;
}

class BuiltinTimelines : public ::testing::TestWithParam<std::filesystem::path> {};

TEST_P(BuiltinTimelines, NoLabelPrintsOverAnotherLabelABarOrAMark) {
  const scenario::Scenario scenario = scenario::load_scenario_file(GetParam().string());
  for (const std::uint64_t seed : {scenario.first_seed.value_or(1), scenario.first_seed.value_or(1) + 1}) {
    for (const model::Fencing fencing : scenario.fencing_modes) {
      const Pictured pictured = picture(scenario, seed, fencing);
      for (const std::string_view view : {"the whole run", "around the first violation", "the critical window"}) {
        TimelineOptions options;
        if (view == "around the first violation") options.around_first_violation_ns = 2'000'000'000;
        if (view == "the critical window") {
          options.window = critical_window(pictured.timeline);
          if (!options.window) continue;
        }
        options.note = note_on_first_fault(pictured.timeline);
        const std::vector<std::string> found = overlaps(timeline_svg(pictured.timeline, options));
        EXPECT_TRUE(found.empty()) << "seed " << seed << ", fencing " << (fencing == model::Fencing::kOff ? "off" : "on")
                                   << ", " << view << ": " << fmt::format("{}", fmt::join(found, "; "));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryBuiltin, BuiltinTimelines, ::testing::ValuesIn(builtin_scenarios()),
                         [](const ::testing::TestParamInfo<std::filesystem::path>& param) {
                           std::string name = param.param.stem().string();
                           std::ranges::replace_if(name, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                           return name;
                         });

}  // namespace
}  // namespace locksim::reports
