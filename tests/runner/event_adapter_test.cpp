// The typed event path and the text path agree: for generated histories,
// the records the simulator makes, adapted by runner::EventAdapter, equal
// what checker's history reader makes of the same records written as JSON
// Lines — event for event, field for field, and, where a record is bad
// input, the very message.
#include "runner/event_adapter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/event.h"
#include "checker/history_reader.h"
#include "sim/history_recorder.h"
#include "vocabulary/event_kind.h"

namespace locksim::runner {
namespace {

// A record as generated: owns its strings, so the sim::Field views stay valid.
struct OwnedField {
  std::string key;
  int type = 0;  // 0 integer, 1 bool, 2 string, 3 raw JSON
  std::int64_t number = 0;
  std::string text;

  [[nodiscard]] sim::Field field() const {
    switch (type) {
      case 0: return {key, number};
      case 1: return {key, number % 2 == 0};
      case 2: return {key, std::string_view{text}};
      default: return {key, sim::RawJson{text}};
    }
  }
};

struct OwnedRecord {
  std::int64_t time_step = 0;
  std::string proc;
  vocabulary::EventKind event = vocabulary::EventKind::kRunBegin;
  std::vector<OwnedField> fields;
};

// Every field name the checks read, plus others (not the line's own `i`,
// `t`, `proc`, `ev`: a record never carries them, the adapter refuses them).
const std::vector<std::string> kKeys = {"lock",   "owner",  "by",         "token",   "lease_ns", "reason",
                                        "key",    "writer", "reader",     "job",     "request_id", "value",
                                        "service", "workload", "stuck_after_ns", "final", "extra", "seed"};
// Every event kind: the recorder takes no other (an unknown name does not compile).
std::vector<vocabulary::EventKind> all_event_kinds() {
  std::vector<vocabulary::EventKind> kinds;
  for (const vocabulary::EventInfo& info : vocabulary::kEvents) kinds.push_back(info.kind);
  return kinds;
}
const std::vector<vocabulary::EventKind> kEvents = all_event_kinds();
// Valid JSON that a RawJson field may hold (the recorder's contract); a
// string value is valid UTF-8 (the simulator's come from parsed scenarios).
const std::vector<std::string> kRawJson = {R"({"kind":"redis","instances":3,"quorum":2})",
                                           R"({"kind":"counter","key":"qty"})",
                                           R"({"qty":4,"other":"x"})",
                                           R"(["worker-1","redis-0"])",
                                           R"({ "c" : 7 })",
                                           "12",
                                           R"("text")",
                                           "null",
                                           "{}"};

rc::Gen<std::string> text() {
  // Mostly names the checks compare, sometimes empty or with characters that need escaping.
  return rc::gen::weightedOneOf<std::string>(
      {{6, rc::gen::elementOf(std::vector<std::string>{"worker-1", "worker-2", "redis-0", "orders", "qty", "held",
                                                       "released", "stale-token", "r-1", "4"})},
       {1, rc::gen::just(std::string{})},
       {1, rc::gen::map(rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(
                            std::vector<std::string>{"a", "b", "\"", "\\", "\n", "\t", "\x01", "/", " ", "\u00e9"})),
                        [](const std::vector<std::string>& pieces) {
                          std::string joined;
                          for (const std::string& piece : pieces) joined += piece;
                          return joined;
                        })}});
}

rc::Gen<OwnedField> owned_field(bool text_tokens) {
  return rc::gen::exec([text_tokens] {
    OwnedField field;
    field.key = *rc::gen::elementOf(kKeys);
    // Mostly the type the checks expect for that key; sometimes another.
    const bool integer_key = field.key == "lease_ns" || field.key == "stuck_after_ns" ||
                             (field.key == "token" && !text_tokens) || field.key == "seed";
    const bool raw_key = field.key == "service" || field.key == "workload" || field.key == "final";
    const int expected = raw_key ? 3 : integer_key ? 0 : 2;
    field.type = *rc::gen::weightedOneOf<int>({{8, rc::gen::just(expected)}, {1, rc::gen::inRange(0, 4)}});
    if (field.key == "token") {
      field.type = text_tokens ? 2 : 0;  // one kind of token per history, as the reader requires
    }
    field.number = *rc::gen::weightedOneOf<std::int64_t>(
        {{6, rc::gen::inRange<std::int64_t>(0, 100'000'000'000)}, {1, rc::gen::arbitrary<std::int64_t>()}});
    field.text = field.type == 3 ? *rc::gen::elementOf(kRawJson) : *text();
    if (field.key == "token" && field.type == 2 && field.text.empty()) field.text = "lock-id";
    return field;
  });
}

rc::Gen<OwnedRecord> owned_record(bool text_tokens) {
  return rc::gen::exec([text_tokens] {
    OwnedRecord record;
    record.time_step = *rc::gen::inRange<std::int64_t>(0, 5'000'000);
    record.proc = *rc::gen::weightedOneOf<std::string>({{12, rc::gen::elementOf(std::vector<std::string>{
                                                                 "worker-1", "redis-0", "storage", "run"})},
                                                        {1, rc::gen::just(std::string{})}});
    record.event = *rc::gen::elementOf(kEvents);
    record.fields = *rc::gen::container<std::vector<OwnedField>>(*rc::gen::inRange(0, 7), owned_field(text_tokens));
    return record;
  });
}

// Every member of the two events, by value (their strings live in different buffers).
void expect_same_event(const checker::Event& adapted, const checker::Event& read) {
  RC_ASSERT(adapted.index == read.index);
  RC_ASSERT(adapted.time_ns == read.time_ns);
  RC_ASSERT(adapted.process == read.process);
  RC_ASSERT(adapted.kind == read.kind);
  RC_ASSERT(adapted.lock == read.lock);
  RC_ASSERT(adapted.owner == read.owner);
  RC_ASSERT(adapted.by == read.by);
  RC_ASSERT(adapted.token == read.token);
  RC_ASSERT(adapted.token_text == read.token_text);
  RC_ASSERT(adapted.lease_ns == read.lease_ns);
  RC_ASSERT(adapted.reason == read.reason);
  RC_ASSERT(adapted.key == read.key);
  RC_ASSERT(adapted.writer == read.writer);
  RC_ASSERT(adapted.reader == read.reader);
  RC_ASSERT(adapted.job == read.job);
  RC_ASSERT(adapted.request_id == read.request_id);
  RC_ASSERT(adapted.value_json == read.value_json);
  RC_ASSERT(adapted.value_integer == read.value_integer);
  RC_ASSERT(adapted.service_kind == read.service_kind);
  RC_ASSERT(adapted.service_instances == read.service_instances);
  RC_ASSERT(adapted.service_quorum == read.service_quorum);
  RC_ASSERT(adapted.workload_kind == read.workload_kind);
  RC_ASSERT(adapted.stuck_after_ns == read.stuck_after_ns);
  RC_ASSERT(adapted.has_final == read.has_final);
  RC_ASSERT(adapted.final_values.size() == read.final_values.size());
  for (std::size_t entry = 0; entry < read.final_values.size(); ++entry) {
    RC_ASSERT(adapted.final_values[entry].key == read.final_values[entry].key);
    RC_ASSERT(adapted.final_values[entry].integer == read.final_values[entry].integer);
  }
}

// A copy of an event's values, so that the adapter's event can be compared
// after the reader has run (both are views valid only for a moment).
struct OwnedEvent {
  checker::Event event;
  std::vector<std::string> texts;
  std::vector<checker::FinalValue> finals;
  std::vector<std::string> final_keys;
};

OwnedEvent own(const checker::Event& event) {
  OwnedEvent owned;
  owned.event = event;
  owned.texts.reserve(16);
  auto keep = [&owned](std::string_view& view) {
    owned.texts.emplace_back(view);
    view = owned.texts.back();
  };
  checker::Event& copy = owned.event;
  for (std::string_view* view : {&copy.process, &copy.lock, &copy.owner, &copy.by, &copy.token_text, &copy.reason,
                                 &copy.key, &copy.writer, &copy.reader, &copy.job, &copy.request_id, &copy.value_json,
                                 &copy.service_kind, &copy.workload_kind}) {
    keep(*view);
  }
  owned.final_keys.reserve(event.final_values.size());
  for (const checker::FinalValue& value : event.final_values) {
    owned.final_keys.emplace_back(value.key);
    owned.finals.push_back({owned.final_keys.back(), value.integer});
  }
  copy.final_values = owned.finals;
  return owned;
}

RC_GTEST_PROP(EventAdapter, AdaptedRecordsEqualWhatTheReaderReadsFromTheirText, ()) {
  const bool text_tokens = *rc::gen::weightedOneOf<bool>({{4, rc::gen::just(false)}, {1, rc::gen::just(true)}});
  // Not empty: an empty history is an error of the file ("got an empty file"), not of a record.
  const auto records = *rc::gen::nonEmpty(rc::gen::container<std::vector<OwnedRecord>>(owned_record(text_tokens)));

  std::string text;
  sim::HistoryRecorder recorder{[&text](std::string_view line) {
    text.append(line);
    text.push_back('\n');
  }};
  EventAdapter adapter;
  std::vector<OwnedEvent> adapted;
  std::optional<std::string> adapter_problem;
  sim::Time time;
  for (const OwnedRecord& record : records) {
    std::vector<sim::Field> fields;
    for (const OwnedField& field : record.fields) fields.push_back(field.field());
    time = time + sim::Duration::nanoseconds(record.time_step);
    const std::uint64_t index = recorder.events_recorded();
    recorder.record(time, record.proc, record.event, fields);
    adapter_problem = adapter.adapt(index, time, record.proc, record.event, fields);
    if (adapter_problem) break;
    adapted.push_back(own(adapter.event()));
  }

  std::vector<OwnedEvent> read;
  const checker::ReadOutcome outcome = checker::read_history_text(
      text, "generated", [&read](const checker::Event& event) { read.push_back(own(event)); });

  RC_LOG() << "history:\n" << text << "reader: " << (outcome.error ? outcome.error->message() : "ok")
           << "\nadapter: " << adapter_problem.value_or("ok") << "\n";
  RC_ASSERT(read.size() == adapted.size());
  for (std::size_t position = 0; position < read.size(); ++position) {
    expect_same_event(adapted[position].event, read[position].event);
  }
  // Bad input stops both at the same record, with the same words.
  RC_ASSERT(outcome.error.has_value() == adapter_problem.has_value());
  if (adapter_problem) {
    RC_ASSERT(outcome.error->what == *adapter_problem);
    RC_ASSERT(outcome.error->line == static_cast<std::int64_t>(adapted.size()) + 1);
  }
  if (!adapter_problem) {
    RC_ASSERT(outcome.summary.events == adapter.summary().events);
    RC_ASSERT(outcome.summary.has_run_begin == adapter.summary().has_run_begin);
    RC_ASSERT(outcome.summary.has_run_end == adapter.summary().has_run_end);
  }
}

TEST(EventAdapter, MapsASimulatedWriteWithoutText) {
  EventAdapter adapter;
  const std::vector<sim::Field> fields{{"key", "qty"}, {"value", 5}, {"writer", "worker-2"}, {"token", 7},
                                       {"request_id", 12}, {"job", "customer-9"}};
  ASSERT_EQ(adapter.adapt(3, sim::Time::from_ns(42), "storage", vocabulary::EventKind::kWriteAccept, fields),
            std::nullopt);
  const checker::Event& event = adapter.event();
  EXPECT_EQ(event.index, 3);
  EXPECT_EQ(event.time_ns, 42);
  EXPECT_EQ(event.kind, checker::EventKind::kWriteAccept);
  EXPECT_EQ(event.writer, "worker-2");
  EXPECT_EQ(event.token, 7);
  EXPECT_EQ(event.value_integer, 5);
  EXPECT_EQ(event.value_json, "5");
  EXPECT_EQ(event.request_id, "12");
  EXPECT_EQ(event.job, "customer-9");
}

TEST(EventAdapter, RefusesARecordThatCarriesTheLinesOwnFields) {
  EventAdapter adapter;
  const std::vector<sim::Field> fields{{"lock", "orders"}, {"i", 9}};
  EXPECT_EQ(adapter.adapt(0, sim::Time{}, "worker-1", vocabulary::EventKind::kHoldBegin, fields),
            std::optional<std::string>{"a record may not carry field `i`: the recorder writes it for every line"});
}

TEST(EventAdapter, SaysWhichFieldARecordLacksInTheReadersWords) {
  EventAdapter adapter;
  const std::vector<sim::Field> fields{{"owner", "worker-1"}};
  EXPECT_EQ(adapter.adapt(0, sim::Time{}, "redis-0", vocabulary::EventKind::kLeaseGrant, fields),
            std::optional<std::string>{"expected field `lock` (the lock's name, a string) in a lease.grant event"});
}

}  // namespace
}  // namespace locksim::runner
