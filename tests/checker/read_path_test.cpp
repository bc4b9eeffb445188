// The reader's streamed path (a document stream per chunk) against its
// reference, every line parsed on its own: for any text — well-formed lines,
// lines with every kind of odd field, lines laid out oddly — the same events,
// the same summary and the same message, byte for byte.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "checker/history_reader.h"

namespace locksim::checker {
namespace {

std::string optional_text(const std::optional<std::int64_t>& number) {
  return number ? std::to_string(*number) : "-";
}

// Every field of `event`, as text: two events are the same iff these are.
std::string describe(const Event& event) {
  std::string text = fmt::format(
      "i={} t={} proc={} ev={} lock={} owner={} by={} token={} token_text={} lease_ns={} reason={} key={} writer={} "
      "reader={} job={} request_id={} value_json={} value_integer={} service={}/{}/{} workload={} stuck_after={} "
      "final={}",
      event.index, event.time_ns, event.process, event_kind_name(event.kind), event.lock, event.owner, event.by,
      optional_text(event.token), event.token_text, optional_text(event.lease_ns), event.reason, event.key,
      event.writer, event.reader, event.job, event.request_id, event.value_json, optional_text(event.value_integer),
      event.service_kind, optional_text(event.service_instances), optional_text(event.service_quorum),
      event.workload_kind, optional_text(event.stuck_after_ns), event.has_final);
  for (const FinalValue& value : event.final_values) text += fmt::format(" {}={}", value.key, optional_text(value.integer));
  return text;
}

// What reading `text` by `path` gives: every event, then the outcome.
std::vector<std::string> read_by(std::string_view text, ReadPath path) {
  std::vector<std::string> seen;
  const ReadOutcome outcome =
      read_history_text(text, "h.jsonl", [&](const Event& event) { seen.push_back(describe(event)); }, path);
  seen.push_back(fmt::format("events={} begin={} end={} cut_off={}", outcome.summary.events,
                             outcome.summary.has_run_begin, outcome.summary.has_run_end,
                             optional_text(outcome.summary.cut_off_line)));
  seen.push_back(outcome.error ? outcome.error->message() : "no error");
  return seen;
}

// A field of an event line: well-formed ones most of the time, and every kind
// of value the contract or JSON allows or forbids now and then.
rc::Gen<std::string> field() {
  const rc::Gen<std::string> integer = rc::gen::element<std::string>(
      "0", "7", "1000000000", "-1", "-0", "1.5", "1e3", "01", "9223372036854775807", "9223372036854775808",
      "1000000000000000001", "null", "\"7\"", "true");
  const rc::Gen<std::string> text = rc::gen::element<std::string>(
      R"("worker-1")", R"("orders")", R"("")", R"("w\"x")", R"("\u00e9t\u00e9")", R"("a\\b")", R"("\q")", "null",
      "3", "[]", "{}", "\"\x01\"");
  const rc::Gen<std::string> event_name = rc::gen::element<std::string>(
      R"("acquire.ok")", R"("lease.grant")", R"("lease.release")", R"("write.accept")", R"("write.reject")",
      R"("read.accept")", R"("hold.begin")", R"("effect.accept")", R"("run.begin")", R"("run.end")",
      R"("fault.begin")", R"("no.such")", R"("")");
  const rc::Gen<std::string> any = rc::gen::element<std::string>(
      "1", "-2.5e-3", "\"s\"", "true", "false", "null", "[1,[2,{\"a\":null}]]", "{\"x\":{\"y\":[]}}", "[1,,2]",
      "{\"a\":1,}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]", "tru", "\"\\ud800\"",
      "{\"kind\":\"redis\",\"instances\":3,\"quorum\":2}", "{\"kind\":\"redis\",\"quorum\":0}",
      "{\"kind\":\"counter\",\"key\":\"c\"}", "{\"k\":1,\"s\":\"x\",\"f\":1.5}");
  auto keyed = [](std::string key, const rc::Gen<std::string>& values) {
    return rc::gen::map(values, [key](const std::string& value) { return fmt::format("\"{}\":{}", key, value); });
  };
  return rc::gen::oneOf(keyed("i", integer), keyed("t", integer), keyed("proc", text), keyed("ev", event_name),
                        keyed("lock", text), keyed("owner", text), keyed("by", text),
                        keyed("token", rc::gen::oneOf(integer, text)), keyed("lease_ns", integer),
                        keyed("reason", text), keyed("key", text), keyed("writer", text), keyed("reader", text),
                        keyed("job", rc::gen::oneOf(integer, text)), keyed("request_id", rc::gen::oneOf(integer, text)),
                        keyed("value", rc::gen::oneOf(integer, text, any)), keyed("service", any),
                        keyed("workload", rc::gen::oneOf(text, any)), keyed("stuck_after_ns", integer),
                        keyed("final", any), keyed("local_t", any), keyed("\\u0069", integer), keyed("x\\ty", any));
}

// A field that a well-formed line may carry and still be accepted, written
// in a way only a full JSON reading gets right (escapes, duplicates, nesting).
rc::Gen<std::string> tricky_field() {
  return rc::gen::element<std::string>(
      R"("\u006c\u006f\u0063\u006b":"M")", R"("lock":"\u00e9\"q\"")", R"("proc":"re\/d")", R"("lock":"L2")",
      R"("local_t":{"a":[1,{"b":null}],"c":"\n"})", R"("job":17)", R"("request_id":-3)", R"("value":"x\\y")",
      R"("value":-0)", R"("token":"opaque")", R"("lease_ns":0)", R"("extra":[])", R"("e\u0078tra":{})");
}

// A well-formed line of one of the common kinds, with `i` = index.
std::string good_line(int index, int kind) {
  switch (kind % 4) {
    case 0:
      return fmt::format(R"({{"i":{},"t":{},"proc":"redis-0","ev":"lease.grant","lock":"L","owner":"worker-1",)"
                         R"("token":{},"lease_ns":100}})",
                         index, index * 10, index + 1);
    case 1: return fmt::format(R"({{"i":{},"t":{},"proc":"worker-1","ev":"hold.begin","lock":"L"}})", index, index * 10);
    case 2:
      return fmt::format(R"({{"i":{},"t":{},"proc":"storage","ev":"write.accept","key":"k","value":{},)"
                         R"("writer":"worker-1","request_id":"r-1","job":4}})",
                         index, index * 10, index);
    default: return fmt::format(R"({{"i":{},"t":{},"proc":"w","ev":"fault.begin","kind":"pause","for_ns":5}})", index, index * 10);
  }
}

// A line: well-formed, or well-formed with a few generated fields added
// (which may override its own), or made of generated fields, or laid out oddly.
rc::Gen<std::string> line(int index) {
  return rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(0, 4), [index](int kind) { return good_line(index, kind); }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(0, 4), rc::gen::container<std::vector<std::string>>(
                                                             *rc::gen::inRange(1, 4), field())),
                   [index](const std::pair<int, std::vector<std::string>>& drawn) {
                     std::string text = good_line(index, drawn.first);
                     text.pop_back();
                     for (const std::string& each : drawn.second) text += "," + each;
                     return text + "}";
                   }),
      rc::gen::map(rc::gen::pair(rc::gen::inRange(0, 4), tricky_field()),
                   [index](const std::pair<int, std::string>& drawn) {
                     std::string text = good_line(index, drawn.first);
                     text.pop_back();
                     return text + "," + drawn.second + "}";
                   }),
      rc::gen::map(rc::gen::container<std::vector<std::string>>(field()),
                   [index](const std::vector<std::string>& fields) {
                     std::string text = fmt::format(R"({{"i":{},"t":{})", index, index * 10);
                     for (const std::string& each : fields) text += "," + each;
                     return text + "}";
                   }),
      rc::gen::map(rc::gen::inRange(0, 9), [index](int layout) {
        const std::string good = good_line(index, layout);
        switch (layout) {
          case 0: return "  " + good + " \t";
          case 1: return good + "\r";
          case 2: return good + " " + good;
          case 3: return good.substr(0, 20) + "\n" + good.substr(20);
          case 4: return std::string{};
          case 5: return good + "}";
          case 6: return "[" + good + "]";
          case 7: return good.substr(0, good.size() - 1);
          default: return std::string{"\"just a string\""};
        }
      }));
}

RC_GTEST_PROP(ReadPath, ReadsEveryTextAsTheOneLinePathDoes, ()) {
  const int lines = *rc::gen::inRange(1, 40);
  std::string text;
  for (int index = 0; index < lines; ++index) text += *line(index) + "\n";
  if (*rc::gen::arbitrary<bool>()) text.pop_back();  // a last line without its newline
  RC_ASSERT(read_by(text, ReadPath::kStreamed) == read_by(text, ReadPath::kOneLineAtATime));
}

}  // namespace
}  // namespace locksim::checker
