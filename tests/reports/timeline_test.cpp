// The swimlane timeline: the model against the history it came from, and
// the SVG (parsed with pugixml) against the model — for a known seed of the
// pause-past-lease scenario without and with fencing, a hand-written history
// with a late write, and a scenario name that is markup.
#include <gtest/gtest.h>
#include <pugixml.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checker/history_checker.h"
#include "reports/timeline.h"
#include "reports/timeline_svg.h"
#include "reports/trace.h"
#include "runner/seed_run.h"
#include "scenario/plan.h"
#include "scenario/scenario_parser.h"

namespace locksim::reports {
namespace {

constexpr std::uint64_t kSeed = 2;  // worker-1 pauses 16.12 s past its 10 s lease; the next holder writes first

struct Replayed {
  std::vector<TraceEntry> entries;
  runner::SeedRun run;
};

Replayed replay(const std::string& name, std::uint64_t seed, model::Fencing fencing) {
  const scenario::Scenario scenario = scenario::load_scenario_file(std::string{LOCKSIM_SCENARIO_DIR} + "/" + name + ".json");
  Replayed replayed;
  replayed.run = runner::run_plan(scenario, scenario::make_plan(scenario, seed), fencing,
                                  [&](std::string_view line, const sim::Simulation&) {
                                    replayed.entries.push_back(trace_entry(line));
                                  });
  return replayed;
}

Replayed replay_h01(model::Fencing fencing) { return replay("h01-gc-pause-past-lease", kSeed, fencing); }

const TraceEntry& only_event(const std::vector<TraceEntry>& entries, std::string_view proc, std::string_view event) {
  const auto matches = [&](const TraceEntry& entry) { return entry.proc == proc && entry.event == event; };
  EXPECT_EQ(std::count_if(entries.begin(), entries.end(), matches), 1) << proc << " " << event;
  return *std::find_if(entries.begin(), entries.end(), matches);
}

const TraceEntry& event_at(const std::vector<TraceEntry>& entries, std::int64_t index) {
  return entries.at(static_cast<std::size_t>(index));
}

std::string field_text(const TraceEntry& entry, std::string_view key) {
  const checker::HistoryField* found = entry.field(key);
  return found == nullptr ? std::string{} : found->text;
}

// The timeline of a hand-written history, judged by the checker.
Timeline timeline_of(const std::string& history) {
  std::vector<TraceEntry> entries;
  std::size_t from = 0;
  while (from < history.size()) {
    const std::size_t end = history.find('\n', from);
    entries.push_back(trace_entry(history.substr(from, end - from)));
    from = end + 1;
  }
  const checker::CheckOutcome outcome = checker::check_history_text(history, "test.jsonl", {});
  EXPECT_FALSE(outcome.error.has_value());
  return build_timeline(entries, outcome.verdict);
}

pugi::xml_document parsed_svg(const std::string& svg) {
  pugi::xml_document document;
  const pugi::xml_parse_result result = document.load_string(svg.c_str());
  EXPECT_TRUE(result) << result.description() << "\n" << svg.substr(0, 2000);
  return document;
}

std::size_t count(const pugi::xml_document& document, const std::string& xpath) {
  return document.select_nodes(xpath.c_str()).size();
}

TEST(TimelineModel, PausePastLeaseShowsTheLeaseExpiringWhileTheFrozenHolderStillBelievesAndItsStaleWrite) {
  const Replayed replayed = replay_h01(model::Fencing::kOff);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  EXPECT_EQ(timeline.scenario, "h01-gc-pause-past-lease");
  EXPECT_EQ(timeline.seed, 2);
  EXPECT_EQ(timeline.fencing, false);
  std::vector<std::string> lanes;
  for (const Lane& lane : timeline.lanes) lanes.push_back(lane.name);
  EXPECT_EQ(lanes, (std::vector<std::string>{"worker-1", "worker-2", "worker-3", "redis-0", "storage"}));

  // The lease the service let go by expiring it: the paused holder's.
  const TraceEntry& expire = only_event(replayed.entries, "redis-0", "lease.expire");
  const auto expired = std::find_if(timeline.leases.begin(), timeline.leases.end(),
                                    [](const LeaseBar& lease) { return lease.ended_by == "lease.expire"; });
  ASSERT_NE(expired, timeline.leases.end());
  EXPECT_EQ(expired->owner, field_text(expire, "owner"));
  EXPECT_EQ(expired->token, field_text(expire, "token"));
  EXPECT_EQ(expired->end_ns, expire.time_ns);
  EXPECT_EQ(timeline.lanes[expired->lane].name, "redis-0");

  // Its holder's belief outlives it: that is the gap.
  const auto belief = std::find_if(timeline.beliefs.begin(), timeline.beliefs.end(),
                                   [&](const BeliefBar& bar) { return bar.token == expired->token; });
  ASSERT_NE(belief, timeline.beliefs.end());
  EXPECT_EQ(timeline.lanes[belief->lane].name, expired->owner);
  EXPECT_GT(belief->end_ns, expired->end_ns);

  // The pause, on the frozen worker's lane, as the nemesis recorded it.
  const TraceEntry& pause_begin = only_event(replayed.entries, "nemesis", "fault.begin");
  const TraceEntry& pause_end = only_event(replayed.entries, "nemesis", "fault.end");
  ASSERT_EQ(timeline.spans.size(), 1U);
  EXPECT_EQ(timeline.spans[0].kind, "pause");
  EXPECT_EQ(timeline.lanes[timeline.spans[0].lane].name, expired->owner);
  EXPECT_EQ(timeline.spans[0].begin_ns, pause_begin.time_ns);
  EXPECT_EQ(timeline.spans[0].end_ns, pause_end.time_ns);

  // Exactly the checker's stale write is stale, with the frozen holder's token.
  std::vector<std::int64_t> stale_events;
  for (const checker::Violation& violation : replayed.run.verdict.violations) {
    if (violation.kind == checker::ViolationKind::kStaleWrite) stale_events.push_back(violation.detected_at);
  }
  std::vector<const TimelineWrite*> stale;
  for (const TimelineWrite& write : timeline.writes) {
    if (write.write_class == WriteClass::kStale) stale.push_back(&write);
  }
  ASSERT_EQ(stale.size(), 1U);
  ASSERT_EQ(stale_events.size(), 1U);
  EXPECT_EQ(stale[0]->storage_index, stale_events[0]);
  EXPECT_EQ(event_at(replayed.entries, stale[0]->storage_index).event, "write.accept");
  EXPECT_EQ(timeline.lanes[stale[0]->writer_lane].name, expired->owner);
  EXPECT_EQ(stale[0]->token, expired->token);
  EXPECT_EQ(stale[0]->label(), fmt::format("qty={} t{}", stale[0]->value, expired->token));
  ASSERT_TRUE(stale[0]->invoke_ns.has_value());
  EXPECT_LE(*stale[0]->invoke_ns, *stale[0]->storage_ns);
  EXPECT_GT(*stale[0]->invoke_ns, pause_end.time_ns - 1);
}

TEST(TimelineSvg, PausePastLeaseWithoutFencingHasARedStaleWriteLabelledWithItsTokenAndTheLeaseEndingAtItsExpiry) {
  const Replayed replayed = replay_h01(model::Fencing::kOff);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const std::string svg = timeline_svg(timeline);
  const pugi::xml_document document = parsed_svg(svg);
  const TimelineWindow window = timeline_window(timeline, {});
  EXPECT_EQ(window.begin_ns, 0);
  EXPECT_EQ(window.end_ns, timeline.end_ns);

  const TraceEntry& expire = only_event(replayed.entries, "redis-0", "lease.expire");
  const std::string token = field_text(expire, "token");
  const pugi::xpath_node_set leases = document.select_nodes(
      fmt::format("//rect[@class='lease'][@data-ended-by='lease.expire'][@data-token='{}']", token).c_str());
  ASSERT_EQ(leases.size(), 1U);
  const pugi::xml_node lease = leases.first().node();
  EXPECT_NEAR(lease.attribute("x").as_double() + lease.attribute("width").as_double(), timeline_x(window, expire.time_ns),
              0.02);

  const pugi::xpath_node_set stale = document.select_nodes("//circle[@class='write stale']");
  ASSERT_EQ(stale.size(), 1U);
  EXPECT_STREQ(stale.first().node().attribute("fill").value(), "#d62728");
  EXPECT_EQ(std::string{stale.first().node().attribute("data-token").value()}, token);
  const auto stale_write = std::find_if(timeline.writes.begin(), timeline.writes.end(),
                                        [](const TimelineWrite& write) { return write.write_class == WriteClass::kStale; });
  ASSERT_NE(stale_write, timeline.writes.end());
  EXPECT_NEAR(stale.first().node().attribute("cx").as_double(), timeline_x(window, *stale_write->storage_ns), 0.01);

  const pugi::xpath_node_set labels = document.select_nodes("//text[@class='write-label stale']");
  ASSERT_EQ(labels.size(), 1U);
  EXPECT_STREQ(labels.first().node().attribute("fill").value(), "#d62728");
  EXPECT_EQ(std::string{labels.first().node().child_value()}, stale_write->label());
  EXPECT_NE(std::string{labels.first().node().child_value()}.find(" t" + token), std::string::npos);

  EXPECT_EQ(count(document, "//rect[@class='pause']"), 1U);
  EXPECT_GE(count(document, "//text[@class='violation'][@data-kind='stale_write']"), 1U);
  EXPECT_GE(count(document, "//pattern[@id='pause-hatch']"), 1U);
  EXPECT_EQ(count(document, "//*[contains(@class,'rejected')]"), 0U);
  EXPECT_NE(svg.find("h01-gc-pause-past-lease — seed 2, fencing off"), std::string::npos);
}

// h01 fences reads too: the woken holder's first storage access is its read,
// and that is what fencing turns away (it never gets to write).
TEST(TimelineSvg, TheSamePlanWithFencingShowsTheWokenHoldersReadCrossedOutAndNoRedMark) {
  const Replayed replayed = replay_h01(model::Fencing::kOn);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const TraceEntry& rejected = only_event(replayed.entries, "storage", "read.reject");
  ASSERT_EQ(timeline.turned_away_reads.size(), 1U);
  const TurnedAwayRead& read = timeline.turned_away_reads[0];
  EXPECT_EQ(timeline.lanes[read.reader_lane].name, field_text(rejected, "reader"));
  EXPECT_EQ(read.storage_ns, rejected.time_ns);
  EXPECT_EQ(read.token, field_text(rejected, "token"));
  EXPECT_EQ(read.reason, "stale-token");
  EXPECT_TRUE(std::none_of(timeline.writes.begin(), timeline.writes.end(),
                           [](const TimelineWrite& write) { return write.write_class == WriteClass::kStale; }));

  const pugi::xml_document document = parsed_svg(timeline_svg(timeline));
  const pugi::xpath_node_set marks = document.select_nodes("//circle[@class='read rejected']");
  ASSERT_EQ(marks.size(), 1U);
  EXPECT_NEAR(marks.first().node().attribute("cx").as_double(), timeline_x(timeline_window(timeline, {}), rejected.time_ns),
              0.01);
  EXPECT_EQ(count(document, "//line[@class='cross-out']"), 2U);
  EXPECT_EQ(count(document, "//text[@class='read-label rejected'][@text-decoration='line-through']"), 1U);
  EXPECT_EQ(count(document, "//circle[@class='write stale']"), 0U);
  EXPECT_EQ(count(document, "//*[@class='write-label stale']"), 0U);
  EXPECT_EQ(count(document, "//text[@data-kind='stale_write']"), 0U);
  EXPECT_EQ(count(document, "//*[@fill='#d62728'][not(ancestor::defs)][not(@class='violation') and not(@class='violation-detail')]"), 1U)
      << "only the legend's stale dot is red (the arrowheads in defs are used by stale arrows only)";
}

// h24 fences writes only: with fencing on, the woken holder's write is turned away.
TEST(TimelineSvg, AWriteStorageTurnedAwayIsCrossedOutAndNotRed) {
  const Replayed replayed = replay("h24-idempotence-is-not-fencing", 4, model::Fencing::kOn);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const TraceEntry& rejected = only_event(replayed.entries, "storage", "write.reject");
  const auto write = std::find_if(timeline.writes.begin(), timeline.writes.end(), [](const TimelineWrite& candidate) {
    return candidate.write_class == WriteClass::kRejected;
  });
  ASSERT_NE(write, timeline.writes.end());
  EXPECT_EQ(write->storage_index, rejected.index);
  EXPECT_EQ(write->reject_reason, field_text(rejected, "reason"));
  EXPECT_EQ(timeline.lanes[write->writer_lane].name, field_text(rejected, "writer"));

  const pugi::xml_document document = parsed_svg(timeline_svg(timeline));
  EXPECT_EQ(count(document, "//circle[@class='write rejected']"), 1U);
  EXPECT_EQ(count(document, "//line[@class='cross-out']"), 2U);
  const pugi::xpath_node_set labels =
      document.select_nodes("//text[@class='write-label rejected'][@text-decoration='line-through']");
  ASSERT_EQ(labels.size(), 1U);
  EXPECT_EQ(std::string{labels.first().node().child_value()}, write->label());
  EXPECT_EQ(count(document, "//circle[@class='write stale']"), 0U);
}

TEST(TimelineSvg, ARedlockHoldPastItsValidityShowsWhereTheValidityRanOut) {
  // h14: the client skips the elapsed check, so it holds a lease whose
  // validity had run out before its round even ended.
  const Replayed replayed = replay("h14-redlock-reply-handled-late", 4, model::Fencing::kOff);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const auto late = std::find_if(timeline.beliefs.begin(), timeline.beliefs.end(), [](const BeliefBar& belief) {
    return belief.valid_until_ns && *belief.valid_until_ns < belief.end_ns;
  });
  ASSERT_NE(late, timeline.beliefs.end());
  const pugi::xml_document document = parsed_svg(timeline_svg(timeline, {}));
  EXPECT_FALSE(document.select_nodes("//line[@class='validity-end']").empty());
}

// h22's worker-1 invokes its write and freezes before the message leaves:
// the arrow starts when the pause ends, with the wait dotted along its lane,
// not as a flight of 8.6 s.
TEST(TimelineSvg, AWriteHeldBackByItsWritersPauseIsDrawnFromWhenItLeft) {
  const Replayed replayed = replay("h22-fencing-window", 4, model::Fencing::kOff);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const auto stale = std::ranges::find(timeline.writes, WriteClass::kStale, &TimelineWrite::write_class);
  ASSERT_NE(stale, timeline.writes.end());
  const auto pause = std::ranges::find_if(timeline.spans, [&](const FaultSpan& span) {
    return span.lane == stale->writer_lane && span.begin_ns <= *stale->invoke_ns && *stale->invoke_ns < span.end_ns;
  });
  ASSERT_NE(pause, timeline.spans.end()) << "worker-1 invokes its write, then freezes";
  const TimelineWindow window = timeline_window(timeline, {});
  const pugi::xml_document document = parsed_svg(timeline_svg(timeline));
  const pugi::xml_node arrow = document.select_node("//line[@class='write-arrow'][@stroke='#d62728']").node();
  EXPECT_NEAR(arrow.attribute("x1").as_double(), timeline_x(window, pause->end_ns), 0.01);
  EXPECT_NEAR(arrow.attribute("x2").as_double(), timeline_x(window, *stale->storage_ns), 0.01);
  const pugi::xml_node held = document.select_node("//line[@class='held-back']").node();
  ASSERT_TRUE(held);
  EXPECT_NEAR(held.attribute("x1").as_double(), timeline_x(window, *stale->invoke_ns), 0.01);
  EXPECT_NEAR(held.attribute("x2").as_double(), timeline_x(window, pause->end_ns), 0.01);
}

TEST(TimelineSvg, TheSameRunIsTheSameBytes) {
  const Replayed first = replay_h01(model::Fencing::kOff);
  const Replayed second = replay_h01(model::Fencing::kOff);
  EXPECT_EQ(timeline_svg(build_timeline(first.entries, first.run.verdict)),
            timeline_svg(build_timeline(second.entries, second.run.verdict)));
}

TEST(TimelineSvg, AWindowAroundTheFirstViolationShowsOnlyThatStretchAndTheNote) {
  const Replayed replayed = replay_h01(model::Fencing::kOff);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  TimelineOptions options;
  options.around_first_violation_ns = 10'000'000'000;
  options.note = TimelineNote{"worker-1 wakes <here>", only_event(replayed.entries, "nemesis", "fault.end").time_ns,
                              "worker-1"};
  const TimelineWindow window = timeline_window(timeline, options);
  const std::int64_t first = replayed.run.verdict.violations.front().time_ns;
  EXPECT_EQ(window.begin_ns, first - 10'000'000'000);
  EXPECT_EQ(window.end_ns, first + 10'000'000'000);
  const pugi::xml_document document = parsed_svg(timeline_svg(timeline, options));
  for (const pugi::xpath_node& node : document.select_nodes("//rect[@class='lease' or @class='belief']")) {
    EXPECT_GE(node.node().attribute("x").as_double(), timeline_x(window, window.begin_ns) - 0.01);
    EXPECT_LE(node.node().attribute("x").as_double() + node.node().attribute("width").as_double(),
              timeline_x(window, window.end_ns) + 0.01);
  }
  EXPECT_EQ(count(document, "//circle[@class='write stale']"), 1U);
  const pugi::xpath_node_set note = document.select_nodes("//text[@class='note-text']");
  ASSERT_EQ(note.size(), 1U);
  EXPECT_STREQ(note.first().node().child_value(), "worker-1 wakes <here>");
}

// worker-1 holds t3; its lease expires and worker-2 is granted t4; worker-1
// writes before worker-2 touches storage (late), then worker-2 reads and
// writes, then worker-1 writes again (stale).
std::string late_and_stale_history(std::string_view scenario) {
  const std::string name = nlohmann::json(std::string{scenario}).dump();  // quoted and escaped as JSON
  return fmt::format(
             R"({{"i":0,"t":0,"proc":"run","ev":"run.begin","scenario":{},"seed":7,"fencing":false,"version":"x"}})"
             "\n",
             name) +
         R"({"i":1,"t":1000,"proc":"redis-0","ev":"lease.grant","lock":"l","owner":"worker-1","token":3,"lease_ns":10000}
{"i":2,"t":1100,"proc":"worker-1","ev":"hold.begin","lock":"l","token":3}
{"i":3,"t":11000,"proc":"redis-0","ev":"lease.expire","lock":"l","owner":"worker-1","token":3}
{"i":4,"t":12000,"proc":"redis-0","ev":"lease.grant","lock":"l","owner":"worker-2","token":4,"lease_ns":10000}
{"i":5,"t":12100,"proc":"worker-2","ev":"hold.begin","lock":"l","token":4}
{"i":6,"t":13000,"proc":"worker-1","ev":"write.invoke","key":"qty","value":6}
{"i":7,"t":13500,"proc":"storage","ev":"write.accept","key":"qty","value":6,"writer":"worker-1"}
{"i":8,"t":14000,"proc":"storage","ev":"read.accept","key":"qty","reader":"worker-2"}
{"i":9,"t":15000,"proc":"worker-1","ev":"write.invoke","key":"qty","value":7}
{"i":10,"t":15500,"proc":"storage","ev":"write.accept","key":"qty","value":7,"writer":"worker-1"}
{"i":11,"t":16000,"proc":"worker-2","ev":"hold.end","lock":"l","token":4,"reason":"released"}
{"i":12,"t":20000,"proc":"run","ev":"run.end","final":{"qty":7}}
)";
}

TEST(TimelineModel, MemoryPressureThatLastsIsASpanOnTheInstanceAndOneOverAtOnceAMarker) {
  const Replayed lasting = replay("redis-eviction-noeviction", 1, model::Fencing::kOff);
  const Timeline full = build_timeline(lasting.entries, lasting.run.verdict);
  const auto pressure = std::find_if(full.spans.begin(), full.spans.end(),
                                     [](const FaultSpan& span) { return span.kind == "memory-pressure"; });
  ASSERT_NE(pressure, full.spans.end());
  EXPECT_EQ(pressure->end_ns - pressure->begin_ns, 30'000'000'000) << "its `for`, to its fault.end";
  EXPECT_EQ(pressure->label, "memory pressure (evict 1) 30s");
  EXPECT_TRUE(std::none_of(full.markers.begin(), full.markers.end(),
                           [](const FaultMarker& marker) { return marker.kind == "memory-pressure"; }));

  const Replayed instant = replay("redis-eviction-volatile-ttl", 1, model::Fencing::kOff);
  const Timeline evicted = build_timeline(instant.entries, instant.run.verdict);
  EXPECT_TRUE(std::none_of(evicted.spans.begin(), evicted.spans.end(),
                           [](const FaultSpan& span) { return span.kind == "memory-pressure"; }));
  EXPECT_TRUE(std::any_of(evicted.markers.begin(), evicted.markers.end(),
                          [](const FaultMarker& marker) { return marker.kind == "memory-pressure"; }));
}

TEST(TimelineModel, LateAndStaleWritesAreTheCheckersOnes) {
  const Timeline timeline = timeline_of(late_and_stale_history("demo"));
  ASSERT_EQ(timeline.writes.size(), 2U);
  EXPECT_EQ(timeline.writes[0].write_class, WriteClass::kLate);
  EXPECT_EQ(timeline.writes[0].label(), "qty=6 t3");
  EXPECT_EQ(timeline.writes[0].invoke_ns, 13000);
  EXPECT_EQ(timeline.writes[0].storage_ns, 13500);
  EXPECT_EQ(timeline.writes[1].write_class, WriteClass::kStale);
  // worker-1's belief runs to the end of the run: it never learns.
  ASSERT_EQ(timeline.beliefs.size(), 2U);
  EXPECT_EQ(timeline.beliefs[0].end_ns, 20000);
  EXPECT_EQ(timeline.beliefs[0].ended_by, "end of run");
  EXPECT_EQ(timeline.beliefs[1].ended_by, "released");
  // worker-2's lease was never let go: it runs to the end too.
  ASSERT_EQ(timeline.leases.size(), 2U);
  EXPECT_EQ(timeline.leases[1].ended_by, "end of run");

  const pugi::xml_document document = parsed_svg(timeline_svg(timeline));
  const pugi::xpath_node_set late = document.select_nodes("//circle[@class='write late']");
  ASSERT_EQ(late.size(), 1U);
  EXPECT_STREQ(late.first().node().attribute("fill").value(), "#f0a202");
  EXPECT_EQ(count(document, "//circle[@class='write stale']"), 1U);
  EXPECT_EQ(count(document, "//line[@class='write-arrow']"), 2U);
}

TEST(TimelineModel, AnExternalChargeMadeTwiceForOneJobIsADuplicateEffectOnThePaymentsLane) {
  const Replayed replayed = replay("h25-duplicate-charge", 4, model::Fencing::kOn);
  const std::int64_t duplicates = replayed.run.verdict.violation_count(checker::ViolationKind::kDuplicateEffect).value_or(0);
  ASSERT_GT(duplicates, 0);
  const Timeline timeline = build_timeline(replayed.entries, replayed.run.verdict);
  const std::optional<std::size_t> payments = timeline.lane_of("payments");
  ASSERT_TRUE(payments.has_value());
  EXPECT_EQ(timeline.lanes[*payments].kind, LaneKind::kExternal);
  std::int64_t accepted = 0;
  std::int64_t marked = 0;
  for (const TraceEntry& entry : replayed.entries) accepted += entry.event == "effect.accept" ? 1 : 0;
  for (const TimelineEffect& effect : timeline.effects) {
    EXPECT_EQ(effect.service_lane, *payments);
    marked += effect.duplicate ? 1 : 0;
    if (effect.duplicate) {
      EXPECT_TRUE(effect.accepted);
    }
  }
  EXPECT_EQ(static_cast<std::int64_t>(timeline.effects.size()), accepted) << "every call the service took, once";
  EXPECT_EQ(marked, duplicates) << "each duplicate_effect names one accepted call";

  const pugi::xml_document document = parsed_svg(timeline_svg(timeline));
  EXPECT_EQ(count(document, "//circle[@class='effect duplicate']"), static_cast<std::size_t>(duplicates));
  EXPECT_EQ(std::string{document.select_node("//text[@class='effect-label']").node().child_value()}.substr(0, 4), "job ");
}

TEST(TimelineSvg, AScenarioNameThatIsMarkupIsText) {
  const std::string name = "<script>alert(1)</script>";
  const Timeline timeline = timeline_of(late_and_stale_history(name));
  EXPECT_EQ(timeline.scenario, name);
  const std::string svg = timeline_svg(timeline);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  const pugi::xml_document document = parsed_svg(svg);
  EXPECT_EQ(count(document, "//script"), 0U);
  EXPECT_EQ(std::string{document.select_node("//text[@class='title']").node().child_value()},
            name + " — seed 7, fencing off");
}

}  // namespace
}  // namespace locksim::reports
