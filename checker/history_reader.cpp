#include "checker/history_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "text/terminal_escape.h"

namespace locksim::checker {
namespace {

namespace dom = simdjson::dom;

// Bytes read from the file at a time. A line longer than this grows the
// buffer, up to kLineBytesMax, so memory stays bounded by the longest line.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
// A line longer than this is rejected rather than buffered: no event of the
// contract comes near it, and a history with no newlines must not exhaust memory.
constexpr std::size_t kLineBytesMax = std::size_t{64} << 20;

// Why one line could not be decoded. `not_json` separates malformed JSON (which
// on the last line means the recorder was cut off) from valid JSON that breaks
// the contract (always an error).
struct LineProblem {
  bool not_json = false;
  std::string what;
};

using Problem = std::optional<LineProblem>;

Problem not_json(simdjson::error_code error) {
  return LineProblem{true, fmt::format("expected one JSON object per line; this line is not valid JSON ({})",
                                       simdjson::error_message(error))};
}

Problem invalid(std::string what) { return LineProblem{false, std::move(what)}; }

std::string_view type_name(dom::element_type type) {
  switch (type) {
    case dom::element_type::ARRAY: return "an array";
    case dom::element_type::OBJECT: return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE: return "a number";
    case dom::element_type::STRING: return "a string";
    case dom::element_type::BOOL: return "a boolean";
    case dom::element_type::NULL_VALUE: return "null";
  }
  return "an unknown JSON value";
}

Problem wrong_type(std::string_view field, std::string_view expected, std::string_view got) {
  return invalid(fmt::format("expected field `{}` to be {}, got {}", field, expected, got));
}

// What a number that is not an int64 is, for the message.
std::string_view not_an_integer(dom::element_type type) {
  return type == dom::element_type::UINT64 || type == dom::element_type::DOUBLE
             ? "a number with a fraction or beyond 64 bits"
             : type_name(type);
}

// Reads an integer field; `null` leaves `out` empty.
Problem read_integer(dom::element value, std::string_view field, std::optional<std::int64_t>& out) {
  const dom::element_type type = value.type();
  if (type == dom::element_type::INT64) {
    out = value.get_int64().value_unsafe();
    return std::nullopt;
  }
  if (type == dom::element_type::NULL_VALUE) {
    out.reset();
    return std::nullopt;
  }
  return wrong_type(field, "an integer", not_an_integer(type));
}

// Reads a string field; `null` leaves `out` empty.
Problem read_text(dom::element value, std::string_view field, std::string_view& out) {
  const dom::element_type type = value.type();
  if (type == dom::element_type::STRING) {
    out = value.get_string().value_unsafe();
    return std::nullopt;
  }
  if (type == dom::element_type::NULL_VALUE) {
    out = {};
    return std::nullopt;
  }
  return wrong_type(field, "a string", type_name(type));
}

// Reads a field that names something and may be a string or an integer
// (`job`, `request_id`): integers are written as text into `storage`.
Problem read_name(dom::element value, std::string_view field, std::string_view& out, std::string& storage) {
  const dom::element_type type = value.type();
  if (type == dom::element_type::INT64) {
    storage = fmt::format("{}", value.get_int64().value_unsafe());
    out = storage;
    return std::nullopt;
  }
  if (type == dom::element_type::STRING || type == dom::element_type::NULL_VALUE) {
    return read_text(value, field, out);
  }
  return wrong_type(field, "a string or an integer", not_an_integer(type));
}

Problem at_least_zero(std::string_view field, const std::optional<std::int64_t>& number) {
  if (number && *number < 0) {
    return invalid(fmt::format("expected field `{}` to be >= 0, got {}", field, *number));
  }
  if (number && *number > kLongestTimeNs) {
    return invalid(fmt::format("expected field `{}` to be at most {} (nanoseconds: about 31.7 years), got {}", field,
                               kLongestTimeNs, *number));
  }
  return std::nullopt;
}

// Decodes one line into an Event, reusing the parser and its buffers.
//
// Why simdjson's DOM API and not On-Demand: On-Demand skips the values it is
// not asked for without validating them, so `"extra":[1,,2]` would pass as
// valid input; the DOM parse validates the whole line. It is also faster here:
// Debian's simdjson builds On-Demand's header code for the generic kernel in
// our translation units, while the DOM parse runs the library's runtime-chosen
// SIMD kernel (docs/checker.md has the measurements).
}  // namespace

// (Outside the unnamed namespace: LineReader, in the header, holds one.)
class LineDecoder {
 public:
  // Decodes the `length` bytes at `data`; `capacity` bytes from `data` are
  // readable (simdjson reads up to SIMDJSON_PADDING bytes past the end).
  Problem decode(const char* data, std::size_t length, std::size_t capacity);
  // Decodes a line that a document stream has already parsed.
  Problem decode(dom::element root);

  [[nodiscard]] const Event& event() const { return event_; }

 private:
  void reset();
  Problem decode_field(std::string_view name, dom::element value);
  Problem decode_value(dom::element value);
  Problem decode_token(dom::element value);
  Problem decode_service(dom::element value);
  Problem decode_workload(dom::element value);
  Problem decode_final(dom::element value);
  Problem require_fields();

  dom::parser parser_;
  Event event_;
  std::vector<FinalValue> final_values_;
  // Text made for the event (numbers given as job / request_id / value).
  std::string job_text_;
  std::string request_id_text_;
  std::string value_text_;
  bool has_index_ = false;
  bool has_time_ = false;
  bool has_process_ = false;
  std::string_view event_name_;
};

void LineDecoder::reset() {
  event_ = Event{};
  final_values_.clear();
  has_index_ = has_time_ = has_process_ = false;
  event_name_ = {};
}

Problem LineDecoder::decode(const char* data, std::size_t length, std::size_t capacity) {
  if (capacity < length + simdjson::SIMDJSON_PADDING) {
    return invalid("internal: line buffer without padding");  // read_lines always pads
  }
  dom::element root;
  // realloc_if_needed = false: the line is parsed in place, padding included.
  if (const auto error = parser_.parse(data, length, false).get(root)) {
    return not_json(error);
  }
  return decode(root);
}

Problem LineDecoder::decode(dom::element root) {
  reset();
  if (root.type() != dom::element_type::OBJECT) {
    return invalid(fmt::format("expected a JSON object (one event per line), got {}", type_name(root.type())));
  }
  dom::object object;
  if (const auto error = root.get_object().get(object)) {
    return not_json(error);
  }
  for (const dom::key_value_pair field : object) {
    if (auto problem = decode_field(field.key, field.value)) {
      return problem;
    }
  }
  event_.final_values = final_values_;
  return require_fields();
}

Problem LineDecoder::decode_field(std::string_view name, dom::element value) {
  switch (event_field_from_name(name)) {
    case EventField::kIndex: {
      std::optional<std::int64_t> index;
      Problem problem = read_integer(value, name, index);
      has_index_ = index.has_value();
      event_.index = index.value_or(0);
      return problem;
    }
    case EventField::kTime: {
      std::optional<std::int64_t> time;
      Problem problem = read_integer(value, name, time);
      has_time_ = time.has_value();
      event_.time_ns = time.value_or(0);
      return problem;
    }
    case EventField::kProcess: {
      Problem problem = read_text(value, name, event_.process);
      has_process_ = !event_.process.empty();
      return problem;
    }
    case EventField::kEvent: return read_text(value, name, event_name_);
    case EventField::kLock: return read_text(value, name, event_.lock);
    case EventField::kOwner: return read_text(value, name, event_.owner);
    case EventField::kBy: return read_text(value, name, event_.by);
    case EventField::kToken: return decode_token(value);
    case EventField::kLeaseNs: {
      Problem problem = read_integer(value, name, event_.lease_ns);
      return problem ? problem : at_least_zero(name, event_.lease_ns);
    }
    case EventField::kReason: return read_text(value, name, event_.reason);
    case EventField::kKey: return read_text(value, name, event_.key);
    case EventField::kWriter: return read_text(value, name, event_.writer);
    case EventField::kReader: return read_text(value, name, event_.reader);
    case EventField::kJob: return read_name(value, name, event_.job, job_text_);
    case EventField::kRequestId: return read_name(value, name, event_.request_id, request_id_text_);
    case EventField::kValue: return decode_value(value);
    case EventField::kService: return decode_service(value);
    case EventField::kWorkload: return decode_workload(value);
    case EventField::kStuckAfterNs: {
      Problem problem = read_integer(value, name, event_.stuck_after_ns);
      return problem ? problem : at_least_zero(name, event_.stuck_after_ns);
    }
    case EventField::kFinal: return decode_final(value);
    case EventField::kUnknown: break;
  }
  return std::nullopt;  // unknown fields are allowed: the contract adds fields freely
}

// `token` is an integer, or an opaque string lock id (a recorded real history).
Problem LineDecoder::decode_token(dom::element value) {
  if (value.type() == dom::element_type::STRING) {
    event_.token_text = value.get_string().value_unsafe();
    if (event_.token_text.empty()) {
      return invalid("expected field `token` to be an integer or a non-empty string (an opaque lock id), got \"\"");
    }
    return std::nullopt;
  }
  if (value.type() == dom::element_type::INT64 || value.type() == dom::element_type::NULL_VALUE) {
    return read_integer(value, "token", event_.token);
  }
  return wrong_type("token", "an integer or a string (an opaque lock id)", not_an_integer(value.type()));
}

// `value` may be anything; the checks need its text (for explanations) and,
// for the counter workload, whether it is an integer.
Problem LineDecoder::decode_value(dom::element value) {
  if (value.type() == dom::element_type::INT64) {
    event_.value_integer = value.get_int64().value_unsafe();
    value_text_ = fmt::format("{}", *event_.value_integer);
  } else if (value.type() == dom::element_type::STRING) {
    value_text_ = json_string_literal(value.get_string().value_unsafe());
  } else {
    value_text_ = simdjson::minify(value);
  }
  event_.value_json = value_text_;
  return std::nullopt;
}

Problem LineDecoder::decode_service(dom::element value) {
  if (value.type() == dom::element_type::NULL_VALUE) {
    return std::nullopt;
  }
  if (value.type() != dom::element_type::OBJECT) {
    return wrong_type("service", "an object {kind, instances, quorum}", type_name(value.type()));
  }
  dom::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (const dom::key_value_pair field : object) {
    Problem problem;
    if (field.key == "kind") {
      problem = read_text(field.value, "service.kind", event_.service_kind);
    } else if (field.key == "instances") {
      problem = read_integer(field.value, "service.instances", event_.service_instances);
    } else if (field.key == "quorum") {
      problem = read_integer(field.value, "service.quorum", event_.service_quorum);
    }
    if (problem) {
      return problem;
    }
  }
  if (event_.service_quorum && *event_.service_quorum < 1) {
    return invalid(fmt::format("expected field `service.quorum` to be >= 1, got {}", *event_.service_quorum));
  }
  return std::nullopt;
}

Problem LineDecoder::decode_workload(dom::element value) {
  if (value.type() != dom::element_type::OBJECT) {
    if (value.type() == dom::element_type::STRING || value.type() == dom::element_type::NULL_VALUE) {
      return read_text(value, "workload", event_.workload_kind);
    }
    return wrong_type("workload", "a string or an object with `kind`", type_name(value.type()));
  }
  dom::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (const dom::key_value_pair field : object) {
    if (field.key == "kind") {
      if (auto problem = read_text(field.value, "workload.kind", event_.workload_kind)) {
        return problem;
      }
    }
  }
  return std::nullopt;
}

Problem LineDecoder::decode_final(dom::element value) {
  if (value.type() == dom::element_type::NULL_VALUE) {
    return std::nullopt;
  }
  if (value.type() != dom::element_type::OBJECT) {
    return wrong_type("final", "an object of storage key to value", type_name(value.type()));
  }
  dom::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (const dom::key_value_pair field : object) {
    FinalValue entry;
    entry.key = field.key;
    if (field.value.type() == dom::element_type::INT64) {
      entry.integer = field.value.get_int64().value_unsafe();
    }
    final_values_.push_back(entry);
  }
  event_.has_final = true;
  return std::nullopt;
}

Problem LineDecoder::require_fields() {
  if (!has_index_) {
    return invalid("expected field `i` (the event's position in the history, an integer)");
  }
  if (!has_time_) {
    return invalid("expected field `t` (true time in nanoseconds, an integer)");
  }
  if (!has_process_) {
    return invalid("expected field `proc` (who did or saw the event, a non-empty string)");
  }
  if (event_name_.empty()) {
    return invalid("expected field `ev` (the event name, a string)");
  }
  const auto kind = event_kind_from_name(event_name_);
  if (!kind) {
    return invalid(fmt::format("expected a known `ev` (see docs/history-format.md), got \"{}\"", event_name_));
  }
  event_.kind = *kind;

  if (auto what = missing_required_field(event_)) {
    return invalid(std::move(*what));
  }
  return std::nullopt;
}

namespace {

// What a file that fails on its first line looks like, when it is clearly not
// a history at all — a scenario file, an EDN (Jepsen) history, a JSON array
// of events — with what to do instead; nullopt when it looks like nothing in
// particular (then the line's own problem is the better message).
std::optional<std::string> not_a_history(std::string_view beginning) {
  const std::size_t start = beginning.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return std::nullopt;
  const std::string_view text = beginning.substr(start);
  const auto after_bracket = [&] {
    const std::size_t next = text.find_first_not_of(" \t\r\n", 1);
    return next == std::string_view::npos ? std::string_view{} : text.substr(next);
  };
  if (text.starts_with("{:") || (text.starts_with('[') && after_bracket().starts_with("{:"))) {
    return "this looks like an EDN file (Clojure data, e.g. a Jepsen history), not a locksim history: a history is "
           "JSON Lines, one JSON object per line with `i`, `t`, `proc` and `ev` (docs/history-format.md); convert "
           "the events to that form first";
  }
  if (text.starts_with('[')) {
    return "this looks like a JSON array, not a history: a history is JSON Lines, one event object per line with no "
           "enclosing [ ] (e.g. `jq -c '.[]' FILE > FILE.jsonl`; docs/history-format.md)";
  }
  if (!text.starts_with('{')) return std::nullopt;
  dom::parser parser;
  dom::object object;
  if (parser.parse(text.data(), text.size()).get_object().get(object)) return std::nullopt;
  const auto has = [&](std::string_view key) { return !object.at_key(key).error(); };
  if (has("name") && (has("workers") || has("service")) && !has("ev")) {
    return "this looks like a locksim scenario file (a JSON object with \"name\", \"workers\", \"service\"), not "
           "a history: run it with `locksim run FILE`, or write one run's history with `locksim replay FILE --seed S "
           "--history H.jsonl` and check that";
  }
  return std::nullopt;
}

// Feeds lines to the decoder, enforces the order rules that span lines (`i`
// in sequence, `t` never decreasing) and tells the visitor.
class HistoryStream {
 public:
  HistoryStream(std::string_view name, const EventVisitor& visit) : name_{name}, visit_{visit} {}

  // Handles one line (without its newline). Returns false when reading must
  // stop (an error, or a cut-off last line).
  bool line(const char* data, std::size_t length, std::size_t capacity, bool ends_with_newline);
  // Handles the next line when a document stream has already parsed it (as
  // `root`) and found it whole on its line. Returns false when reading must stop.
  bool parsed_line(dom::element root);
  [[nodiscard]] dom::parser& stream_parser() { return stream_parser_; }
  void fail(std::int64_t line, std::string what) { outcome_.error = HistoryError{name_, line, std::move(what)}; }
  // Fails on the line that has not been handed over yet (it is being buffered).
  void fail_unfinished_line(std::string what) { fail(line_number_ + 1, std::move(what)); }
  ReadOutcome finish(bool file_was_empty);
  // When the first line failed (or was cut off) and `beginning`, the start of
  // the file, is clearly something else than a history, says what it is instead.
  void explain_first_line(std::string_view beginning);

 private:
  std::string name_;
  const EventVisitor& visit_;
  // Whether the line just decoded may be handed over, and what to do if not.
  bool accept(Problem problem, bool ends_with_newline);

  LineDecoder decoder_;
  dom::parser stream_parser_;  // the document stream's: it holds a whole chunk's structure
  ReadOutcome outcome_;
  std::int64_t line_number_ = 0;
  std::int64_t previous_time_ns_ = 0;
  // The line of the history's first token and whether it was a string: one
  // history uses one kind of token.
  std::int64_t first_token_line_ = 0;
  bool first_token_is_text_ = false;
};

bool HistoryStream::line(const char* data, std::size_t length, std::size_t capacity, bool ends_with_newline) {
  ++line_number_;
  if (length > 0 && data[length - 1] == '\r') {
    --length;  // tolerate CRLF line ends
  }
  if (length == 0) {
    fail(line_number_, "expected a JSON object (one event per line), got an empty line");
    return false;
  }
  return accept(decoder_.decode(data, length, capacity), ends_with_newline);
}

bool HistoryStream::parsed_line(dom::element root) {
  ++line_number_;
  return accept(decoder_.decode(root), true);
}

bool HistoryStream::accept(Problem problem, bool ends_with_newline) {
  if (problem) {
    if (problem->not_json && !ends_with_newline) {
      outcome_.summary.cut_off_line = line_number_;
      return false;
    }
    fail(line_number_, std::move(problem->what));
    return false;
  }
  const Event& event = decoder_.event();
  const std::int64_t expected_index = outcome_.summary.events;
  if (event.index != expected_index) {
    fail(line_number_, fmt::format("expected `i` = {} (one more than the previous event's; the first is 0), got {}",
                                   expected_index, event.index));
    return false;
  }
  if (event.time_ns > kLongestTimeNs) {
    fail(line_number_, fmt::format("expected `t` to be at most {} (nanoseconds: about 31.7 years), got {}",
                                   kLongestTimeNs, event.time_ns));
    return false;
  }
  if (event.time_ns < previous_time_ns_) {
    fail(line_number_, expected_index == 0
                           ? fmt::format("expected `t` >= 0 (nanoseconds since the run began), got {}", event.time_ns)
                           : fmt::format("expected `t` >= {} (the previous event's time: true time never goes "
                                         "backwards), got {}",
                                         previous_time_ns_, event.time_ns));
    return false;
  }
  if (event.token || !event.token_text.empty()) {
    const bool is_text = !event.token_text.empty();
    if (first_token_line_ == 0) {
      first_token_line_ = line_number_;
      first_token_is_text_ = is_text;
    } else if (is_text != first_token_is_text_) {
      fail(line_number_, fmt::format("expected field `token` to be {} like the history's first token (line {}): one "
                                     "history's tokens are all integers or all opaque strings, got {}",
                                     first_token_is_text_ ? "a string" : "an integer", first_token_line_,
                                     is_text ? "a string" : "an integer"));
      return false;
    }
  }
  previous_time_ns_ = event.time_ns;
  ++outcome_.summary.events;
  outcome_.summary.has_run_begin = outcome_.summary.has_run_begin || event.kind == EventKind::kRunBegin;
  outcome_.summary.has_run_end = outcome_.summary.has_run_end || event.kind == EventKind::kRunEnd;
  visit_(event);
  return true;
}

void HistoryStream::explain_first_line(std::string_view beginning) {
  const bool first_line_failed = (outcome_.error && outcome_.error->line == 1) || outcome_.summary.cut_off_line == 1;
  if (!first_line_failed || outcome_.summary.events > 0) return;
  if (std::optional<std::string> what_it_is = not_a_history(beginning)) {
    fail(1, std::move(*what_it_is));
    outcome_.summary.cut_off_line.reset();
  }
}

ReadOutcome HistoryStream::finish(bool file_was_empty) {
  if (file_was_empty && !outcome_.error) {
    fail(1, "expected a history (one JSON object per line), got an empty file");
  }
  if (!outcome_.error && outcome_.summary.events == 0 && outcome_.summary.cut_off_line) {
    // Not a recorder cut off mid-write: one that never wrote a whole event.
    fail(1, "expected a history (one JSON object per line, each ending in a newline), got no complete line: "
            "the file has no newline and its text is not a JSON event");
    outcome_.summary.cut_off_line.reset();
  }
  return std::move(outcome_);
}

bool only_whitespace(const char* data, std::size_t length) {
  return std::all_of(data, data + length, [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

struct StreamedLines {
  std::size_t consumed = 0;  // bytes of whole lines handed over
  bool stop = false;         // reading must stop (a line broke the contract)
};

// Reads the whole lines of [data, data + length) — which ends just after a
// newline, with SIMDJSON_PADDING readable bytes after it — through one
// simdjson document stream: stage 1 (structure and UTF-8 validation) runs
// once over all of them, stage 2 once per line, instead of both per line.
//
// A document is taken as a line only if it is an object alone on its line
// (nothing but blanks before and after it on that line). Anything else — a
// JSON error, a blank line, two documents on one line, one across lines, a
// line that is not an object — ends the stream at that line and leaves it to
// the caller's one-line parser, whose messages say exactly what is wrong and
// where. So the stream only ever speeds up lines that the one-line parser
// would take too, giving the same DOM; every message comes from one place.
StreamedLines stream_lines(HistoryStream& stream, const char* data, std::size_t length) {
  StreamedLines result;
  dom::parser& parser = stream.stream_parser();
  parser.threaded = false;  // one batch: nothing for a second thread to do
  dom::document_stream documents;
  if (parser.parse_many(data, length, std::max(length, dom::MINIMAL_BATCH_SIZE)).get(documents)) {
    return result;
  }
  std::size_t line_start = 0;
  for (auto document = documents.begin(); document != documents.end(); ++document) {
    dom::element root;
    if ((*document).get(root) || root.type() != dom::element_type::OBJECT) break;
    const auto* newline = static_cast<const char*>(std::memchr(data + line_start, '\n', length - line_start));
    const auto line_end = static_cast<std::size_t>(newline - data);  // found: the bytes end with a newline
    const std::size_t document_start = document.current_index();
    if (document_start < line_start || document_start >= line_end) break;
    const std::size_t document_end = document_start + document.source().size();
    if (document_end > line_end || !only_whitespace(data + document_end, line_end - document_end)) break;
    if (!stream.parsed_line(root)) {
      result.stop = true;
      return result;
    }
    line_start = line_end + 1;
  }
  result.consumed = line_start;
  return result;
}

// Reads bytes into `destination`, returning how many (0 at the end).
using ByteSource = std::function<std::size_t(char* destination, std::size_t capacity)>;

ReadOutcome read_lines(std::string_view name, const ByteSource& source, const EventVisitor& visit, ReadPath path) {
  HistoryStream stream{name, visit};
  // Data lives in [begin, end); SIMDJSON_PADDING bytes after the data are
  // always allocated, so every line can be parsed in place.
  std::vector<char> buffer(kChunkBytes + simdjson::SIMDJSON_PADDING);
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t scanned = 0;  // bytes after `begin` known to hold no newline
  bool at_end_of_input = false;
  bool read_anything = false;
  // Lines before this offset are read one at a time: the document stream
  // stopped early there, and trying it again line after line would rescan
  // the rest of the chunk each time.
  std::size_t one_at_a_time_until = 0;
  while (true) {
    if (path == ReadPath::kStreamed && begin >= one_at_a_time_until && begin < end) {
      const auto* last_newline = static_cast<const char*>(memrchr(buffer.data() + begin, '\n', end - begin));
      if (last_newline != nullptr) {
        const auto whole_lines_end = static_cast<std::size_t>(last_newline - buffer.data()) + 1;
        const StreamedLines streamed = stream_lines(stream, buffer.data() + begin, whole_lines_end - begin);
        if (streamed.stop) {
          stream.explain_first_line(std::string_view{buffer.data(), end});
          return stream.finish(false);
        }
        begin += streamed.consumed;
        scanned = 0;
        if (begin < whole_lines_end) one_at_a_time_until = whole_lines_end;
      }
    }
    const char* newline =
        static_cast<const char*>(std::memchr(buffer.data() + begin + scanned, '\n', end - begin - scanned));
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(newline - (buffer.data() + begin));
      if (!stream.line(buffer.data() + begin, length, buffer.size() - begin, true)) {
        stream.explain_first_line(std::string_view{buffer.data(), end});
        return stream.finish(false);
      }
      begin += length + 1;
      scanned = 0;
      continue;
    }
    scanned = end - begin;
    if (at_end_of_input) {
      if (begin < end) {
        stream.line(buffer.data() + begin, end - begin, buffer.size() - begin, false);
        stream.explain_first_line(std::string_view{buffer.data(), end});
      }
      return stream.finish(!read_anything);
    }
    // Keep the unfinished line, moved to the front, and read more after it.
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    one_at_a_time_until -= std::min(one_at_a_time_until, begin);
    begin = 0;
    const std::size_t data_capacity = buffer.size() - simdjson::SIMDJSON_PADDING;
    if (data_capacity - end < kChunkBytes / 2) {
      if (end >= kLineBytesMax) {
        stream.fail_unfinished_line(
            fmt::format("expected one event per line, got a line longer than {} MiB", kLineBytesMax >> 20));
        return stream.finish(false);
      }
      buffer.resize(buffer.size() * 2);
    }
    const std::size_t bytes = source(buffer.data() + end, buffer.size() - simdjson::SIMDJSON_PADDING - end);
    read_anything = read_anything || bytes > 0;
    at_end_of_input = bytes == 0;
    end += bytes;
  }
}

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

}  // namespace

std::string HistoryError::message() const {
  // `what` may quote the history's own text: escaped for the terminal, as one line.
  if (line <= 0) {
    return text::terminal_escaped(fmt::format("{}: {}", file, what));
  }
  return text::terminal_escaped(fmt::format("{}:{}: {}", file, line, what));
}

ReadOutcome read_history_file(const std::string& path, const EventVisitor& visit) {
  const std::unique_ptr<std::FILE, FileCloser> file{std::fopen(path.c_str(), "rb")};
  if (!file) {
    ReadOutcome outcome;
    outcome.error = HistoryError{path, 0, fmt::format("cannot open the history: {}", std::strerror(errno))};
    return outcome;
  }
  bool read_failed = false;
  int read_errno = 0;
  ReadOutcome outcome = read_lines(
      path,
      [&](char* destination, std::size_t capacity) {
        const std::size_t bytes = std::fread(destination, 1, capacity, file.get());
        if (std::ferror(file.get()) != 0 && !read_failed) {
          read_failed = true;
          read_errno = errno;
        }
        return bytes;
      },
      visit, ReadPath::kStreamed);
  if (read_failed) {
    // A read error (e.g. the path is a directory) explains more than what
    // the bytes before it looked like.
    outcome.error = HistoryError{path, 0, fmt::format("cannot read the history: {}", std::strerror(read_errno))};
  }
  return outcome;
}

ReadOutcome read_history_text(std::string_view text, std::string_view name, const EventVisitor& visit,
                              ReadPath path) {
  std::size_t offset = 0;
  return read_lines(
      name,
      [&](char* destination, std::size_t capacity) {
        const std::size_t bytes = std::min(capacity, text.size() - offset);
        std::memcpy(destination, text.data() + offset, bytes);
        offset += bytes;
        return bytes;
      },
      visit, path);
}

LineReader::LineReader() : decoder_{std::make_unique<LineDecoder>()} {}
LineReader::~LineReader() = default;
LineReader::LineReader(LineReader&& other) noexcept = default;
LineReader& LineReader::operator=(LineReader&& other) noexcept = default;

std::optional<std::string> LineReader::read(std::string_view line) {
  padded_.resize(line.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded_.data(), line.data(), line.size());
  if (Problem problem = decoder_->decode(padded_.data(), line.size(), padded_.size())) {
    return std::move(problem->what);
  }
  return std::nullopt;
}

const Event& LineReader::event() const { return decoder_->event(); }

}  // namespace locksim::checker
