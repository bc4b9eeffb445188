// The sweep's SVG: the writer's escaping and number format, and the line
// plot and heat map as XML (parsed with pugixml) holding the lines, bands,
// cells, labels and reference they promise.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <string>

#include "reports/heat_map.h"
#include "reports/plot_scale.h"
#include "reports/rate_plot.h"
#include "reports/svg_document.h"

namespace locksim::reports {
namespace {

using checker::ViolationKind;
using model::Fencing;

// A sweep result without running anything: `runs` runs per point and mode,
// stale writes in `stale_off(point)` of them without fencing, none with it;
// double holders in half the runs in both modes.
runner::SweepResult synthetic(std::vector<std::string> varies, std::int64_t runs,
                              const std::function<std::int64_t(std::size_t)>& stale_off) {
  runner::SweepResult result;
  result.seeds_per_point = static_cast<std::uint64_t>(runs);
  result.plan.scenario_name = "demo <&> sweep";
  result.plan.lease = sim::Duration::seconds(10);
  for (const std::string& vary : varies) result.plan.axes.push_back(runner::parse_vary(vary));
  const auto& axes = result.plan.axes;
  const std::vector<std::int64_t> one{0};
  for (const std::int64_t first : axes[0].values) {
    for (const std::int64_t second : axes.size() == 2 ? axes[1].values : one) {
      runner::SweepPoint point;
      point.values = {first};
      if (axes.size() == 2) point.values.push_back(second);
      const std::size_t index = result.plan.points.size();
      result.plan.points.push_back(point);
      runner::ScenarioSummary summary;
      for (const Fencing mode : runner::kSweepModes) {
        runner::ModeSummary counts = runner::empty_mode_summary(mode, 0);
        counts.runs = runs;
        counts.runs_with[ViolationKind::kStaleWrite] = mode == Fencing::kOff ? stale_off(index) : 0;
        counts.runs_with[ViolationKind::kDoubleHolder] = runs / 2;
        summary.modes.push_back(counts);
      }
      result.summaries.push_back(summary);
    }
  }
  return result;
}

std::size_t count_nodes(const pugi::xml_document& document, const char* xpath) {
  return document.select_nodes(xpath).size();
}

bool has_text(const pugi::xml_document& document, const std::string& text) {
  return !document.select_nodes(("//text[text()='" + text + "']").c_str()).empty();
}

TEST(SvgDocument, EscapesTextAndAttributes) {
  SvgDocument svg{100, 50};
  svg.add(svg_text(1, 2, "a < b & \"c\"")).set("data-x", "it's <ok>");
  const std::string xml = svg.to_xml();
  EXPECT_NE(xml.find("a &lt; b &amp; &quot;c&quot;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("data-x=\"it&apos;s &lt;ok&gt;\""), std::string::npos) << xml;
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(xml.c_str())) << xml;
  EXPECT_EQ(std::string{document.child("svg").child("text").child_value()}, "a < b & \"c\"");
}

TEST(SvgDocument, WritesNumbersOneWay) {
  EXPECT_EQ(svg_number(12.5), "12.5");
  EXPECT_EQ(svg_number(3.0), "3");
  EXPECT_EQ(svg_number(1.0 / 3.0), "0.33");
  EXPECT_EQ(svg_number(-0.001), "0");
  EXPECT_EQ(svg_number(-2.256), "-2.26");
}

TEST(PlotScale, TicksAreRoundNumbersInsideTheRange) {
  EXPECT_EQ(round_ticks(5, 20, 7), (std::vector<double>{5, 10, 15, 20}));
  EXPECT_EQ(round_ticks(0, 100, 6), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  std::vector<std::string> labels;
  for (const double tick : round_ticks(0.1, 0.9, 5)) labels.push_back(tick_label(tick));
  EXPECT_EQ(labels, (std::vector<std::string>{"0.2", "0.4", "0.6", "0.8"}));
  EXPECT_EQ(round_ticks(1, 3, 7, true), (std::vector<double>{1, 2, 3}));
}

TEST(RatePlot, ParsesAsXmlWithALineAndBandPerModeAndKindSeen) {
  const std::string xml =
      rate_plot_svg(synthetic({"/faults/0/for=5s..20s:4"}, 40, [](std::size_t point) { return 10 * point; }));
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(xml.c_str())) << xml;
  // double_holder and stale_write happened; the other kinds never did.
  EXPECT_EQ(count_nodes(document, "//polyline[@class='rate']"), 4u);
  EXPECT_EQ(count_nodes(document, "//polygon[@class='interval']"), 4u);
  EXPECT_EQ(count_nodes(document, "//polyline[@data-series='stale_write, fencing on'][@stroke-dasharray]"), 1u);
  EXPECT_EQ(count_nodes(document, "//polyline[@data-series='stale_write, fencing off'][@stroke-dasharray]"), 0u);
  EXPECT_EQ(count_nodes(document, "//circle"), 4u * 4 + 4);  // markers, and one per legend entry
  EXPECT_TRUE(has_text(document, "lease 10s"));
  EXPECT_EQ(count_nodes(document, "//line[@class='reference']"), 1u);
  EXPECT_TRUE(has_text(document, "/faults/0/for (s)"));
  EXPECT_TRUE(has_text(document, "runs with the violation (%)"));
  EXPECT_TRUE(has_text(document, "100%"));
  EXPECT_TRUE(has_text(document, "demo <&> sweep: share of runs with each violation"));
  EXPECT_TRUE(has_text(document, "stale_write, fencing off"));
  EXPECT_FALSE(has_text(document, "lost_update, fencing off"));
  // Double holders come in half the runs with fencing and without: one line, and the legend says so.
  EXPECT_EQ(count_nodes(document, "//text[@class='coincides']"), 1u);
  EXPECT_TRUE(has_text(document, "same line as double_holder off"));
}

TEST(RatePlot, NoLeaseLineWhenTheLeaseIsTheVariedValue) {
  const std::string xml = rate_plot_svg(synthetic({"/lock/lease=5s..20s:4"}, 10, [](std::size_t) { return 0; }));
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(xml.c_str()));
  EXPECT_EQ(count_nodes(document, "//line[@class='reference']"), 0u);
}

TEST(RatePlot, IsTheSameBytesEveryTime) {
  const auto make = [] { return rate_plot_svg(synthetic({"/workers/count=1..5"}, 7, [](std::size_t p) { return p; })); };
  EXPECT_EQ(make(), make());
}

TEST(HeatMap, ParsesAsXmlWithACellPerPairInBothPanels) {
  const std::string xml = heat_map_svg(
      synthetic({"/faults/0/for=5s..20s:4", "/lock/lease=5s..15s:3"}, 20, [](std::size_t point) { return point; }),
      ViolationKind::kStaleWrite);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(xml.c_str())) << xml;
  EXPECT_EQ(count_nodes(document, "//rect[@class='cell']"), 2u * 4 * 3);
  EXPECT_TRUE(has_text(document, "fencing off"));
  EXPECT_TRUE(has_text(document, "fencing on"));
  EXPECT_TRUE(has_text(document, "demo <&> sweep: share of runs with stale_write"));
  EXPECT_TRUE(has_text(document, "/faults/0/for (s)"));
  EXPECT_TRUE(has_text(document, "/lock/lease (s)"));
  EXPECT_TRUE(has_text(document, "55%"));  // point 11 (20s × 15s): 11 of 20 runs
  EXPECT_TRUE(has_text(document, "17.5s") == false && has_text(document, "20s"));
  EXPECT_EQ(count_nodes(document, "//line[@class='reference']"), 2u);  // pause = lease, in each panel
  EXPECT_TRUE(has_text(document, "20 seeds per cell and fencing mode; dashed diagonal: /faults/0/for = /lock/lease"));
  EXPECT_TRUE(has_text(document, "100%"));  // the colour scale
}

TEST(HeatMap, LeavesTheNumbersOutOfSmallCells) {
  const std::string xml = heat_map_svg(
      synthetic({"/workers/count=1..60:60", "/workload/jobs=1..40:40"}, 10, [](std::size_t) { return 3; }),
      ViolationKind::kStaleWrite);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(xml.c_str()));
  EXPECT_EQ(count_nodes(document, "//rect[@class='cell']"), 2u * 60 * 40);
  EXPECT_FALSE(has_text(document, "30%"));
  EXPECT_FALSE(has_text(document, "30"));
  EXPECT_EQ(count_nodes(document, "//line[@class='reference']"), 0u);
}

}  // namespace
}  // namespace locksim::reports
