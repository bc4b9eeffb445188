#include "checker/history_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

namespace locksim::checker {
namespace {

namespace ondemand = simdjson::ondemand;

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

std::string_view type_name(ondemand::json_type type) {
  switch (type) {
    case ondemand::json_type::array: return "an array";
    case ondemand::json_type::object: return "an object";
    case ondemand::json_type::number: return "a number";
    case ondemand::json_type::string: return "a string";
    case ondemand::json_type::boolean: return "a boolean";
    case ondemand::json_type::null: return "null";
  }
  return "an unknown JSON value";
}

std::string_view trim_trailing_space(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

Problem wrong_type(std::string_view field, std::string_view expected, std::string_view got) {
  return invalid(fmt::format("expected field `{}` to be {}, got {}", field, expected, got));
}

// The type of `value`, or the JSON error that prevents knowing it.
Problem type_of(ondemand::value& value, ondemand::json_type& type) {
  if (const auto error = value.type().get(type)) {
    return not_json(error);
  }
  return std::nullopt;
}

// Reads an integer field; `null` leaves `out` empty. The common case (an
// integer) costs one call; the type is looked at only to explain a failure.
Problem read_integer(ondemand::value value, std::string_view field, std::optional<std::int64_t>& out) {
  std::int64_t number = 0;
  if (!value.get_int64().get(number)) {
    out = number;
    return std::nullopt;
  }
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::null) {
    out.reset();
    return std::nullopt;
  }
  if (type != ondemand::json_type::number) {
    return wrong_type(field, "an integer", type_name(type));
  }
  return wrong_type(field, "an integer", "a number with a fraction or beyond 64 bits");
}

// Reads a string field; `null` leaves `out` empty.
Problem read_text(ondemand::value value, std::string_view field, std::string_view& out) {
  if (!value.get_string().get(out)) {
    return std::nullopt;
  }
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::null) {
    out = {};
    return std::nullopt;
  }
  if (type != ondemand::json_type::string) {
    return wrong_type(field, "a string", type_name(type));
  }
  // A string simdjson could not unescape (e.g. a bad \u escape).
  return not_json(value.get_string().error());
}

// Reads a field that names something and may be a string or an integer
// (`job`, `request_id`): integers keep their JSON text.
Problem read_name(ondemand::value value, std::string_view field, std::string_view& out) {
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::number) {
    std::int64_t number = 0;
    if (value.get_int64().get(number)) {
      return wrong_type(field, "a string or an integer", "a number with a fraction or beyond 64 bits");
    }
    out = trim_trailing_space(value.raw_json_token());
    return std::nullopt;
  }
  if (type == ondemand::json_type::null) {
    out = {};
    return std::nullopt;
  }
  if (type != ondemand::json_type::string) {
    return wrong_type(field, "a string or an integer", type_name(type));
  }
  if (const auto error = value.get_string().get(out)) {
    return not_json(error);
  }
  return std::nullopt;
}

// The key that starts at `raw` (just after its opening quote) when it has no
// escapes, without copying it; a null view when it has (or runs past `end`).
// Every field of every line goes through here, so unescaping only the rare
// escaped key keeps simdjson's string copy off the common path.
std::string_view raw_key(const char* raw, const char* end) {
  for (const char* character = raw; character < end; ++character) {
    if (*character == '"') {
      return std::string_view{raw, static_cast<std::size_t>(character - raw)};
    }
    if (*character == '\\') {
      break;
    }
  }
  return {};
}

// A required field: its name and, for the message, what it holds.
struct Required {
  std::string_view field;
  std::string_view meaning;
};

Problem missing(const Required& required, EventKind kind) {
  return invalid(fmt::format("expected field `{}` ({}) in a {} event", required.field, required.meaning,
                             event_kind_name(kind)));
}

// Decodes one line into an Event, reusing the parser and its buffers.
class LineDecoder {
 public:
  // Decodes the `length` bytes at `data`; `capacity` bytes from `data` are
  // readable (simdjson reads up to SIMDJSON_PADDING bytes past the end).
  Problem decode(const char* data, std::size_t length, std::size_t capacity);

  [[nodiscard]] const Event& event() const { return event_; }

 private:
  Problem decode_field(std::string_view name, ondemand::value value);
  Problem decode_value(ondemand::value value);
  Problem decode_service(ondemand::value value);
  Problem decode_workload(ondemand::value value);
  Problem decode_final(ondemand::value value);
  Problem require_fields();

  ondemand::parser parser_;
  Event event_;
  std::vector<FinalValue> final_values_;
  bool has_index_ = false;
  bool has_time_ = false;
  bool has_process_ = false;
  std::string_view event_name_;
};

Problem LineDecoder::decode(const char* data, std::size_t length, std::size_t capacity) {
  event_ = Event{};
  final_values_.clear();
  has_index_ = has_time_ = has_process_ = false;
  event_name_ = {};

  ondemand::document document;
  if (const auto error = parser_.iterate(data, length, capacity).get(document)) {
    return not_json(error);
  }
  ondemand::json_type type{};
  if (const auto error = document.type().get(type)) {
    return not_json(error);
  }
  if (type != ondemand::json_type::object) {
    return invalid(fmt::format("expected a JSON object (one event per line), got {}", type_name(type)));
  }
  ondemand::object object;
  if (const auto error = document.get_object().get(object)) {
    return not_json(error);
  }
  const char* line_end = data + length;
  for (auto field_result : object) {
    ondemand::field field;
    if (const auto error = std::move(field_result).get(field)) {
      return not_json(error);
    }
    std::string_view name = raw_key(field.key().raw(), line_end);
    if (name.data() == nullptr) {
      // The key has escapes: let simdjson unescape it.
      if (const auto error = field.unescaped_key().get(name)) {
        return not_json(error);
      }
    }
    if (auto problem = decode_field(name, field.value())) {
      return problem;
    }
  }
  // On-Demand stops at the object's closing brace; anything after it on the
  // line is a second value (or garbage), which JSON Lines does not allow.
  if (!document.current_location().error()) {
    return invalid("expected one JSON object per line, found more text after the object");
  }
  event_.final_values = final_values_;
  return require_fields();
}

// The fields the checks read. Found by length and bytes, not by a chain of
// string compares: this runs for every field of every line.
enum class FieldId : std::uint8_t {
  kUnknown, kIndex, kTime, kProcess, kEvent, kLock, kOwner, kBy, kToken, kLeaseNs, kReason, kKey, kWriter,
  kJob, kRequestId, kValue, kService, kWorkload, kStuckAfterNs, kFinal,
};

FieldId field_id(std::string_view name) {
  const auto is = [&](std::string_view known) { return std::memcmp(name.data(), known.data(), known.size()) == 0; };
  switch (name.size()) {
    case 1: return name[0] == 'i' ? FieldId::kIndex : name[0] == 't' ? FieldId::kTime : FieldId::kUnknown;
    case 2: return is("ev") ? FieldId::kEvent : is("by") ? FieldId::kBy : FieldId::kUnknown;
    case 3: return is("key") ? FieldId::kKey : is("job") ? FieldId::kJob : FieldId::kUnknown;
    case 4: return is("proc") ? FieldId::kProcess : is("lock") ? FieldId::kLock : FieldId::kUnknown;
    case 5:
      return is("owner")   ? FieldId::kOwner
             : is("token") ? FieldId::kToken
             : is("value") ? FieldId::kValue
             : is("final") ? FieldId::kFinal
                           : FieldId::kUnknown;
    case 6: return is("writer") ? FieldId::kWriter : is("reason") ? FieldId::kReason : FieldId::kUnknown;
    case 7: return is("service") ? FieldId::kService : FieldId::kUnknown;
    case 8: return is("lease_ns") ? FieldId::kLeaseNs : is("workload") ? FieldId::kWorkload : FieldId::kUnknown;
    case 10: return is("request_id") ? FieldId::kRequestId : FieldId::kUnknown;
    case 14: return is("stuck_after_ns") ? FieldId::kStuckAfterNs : FieldId::kUnknown;
    default: return FieldId::kUnknown;
  }
}

Problem at_least_zero(std::string_view field, const std::optional<std::int64_t>& number) {
  if (number && *number < 0) {
    return invalid(fmt::format("expected field `{}` to be >= 0, got {}", field, *number));
  }
  return std::nullopt;
}

Problem LineDecoder::decode_field(std::string_view name, ondemand::value value) {
  switch (field_id(name)) {
    case FieldId::kIndex: {
      std::optional<std::int64_t> index;
      Problem problem = read_integer(value, name, index);
      has_index_ = index.has_value();
      event_.index = index.value_or(0);
      return problem;
    }
    case FieldId::kTime: {
      std::optional<std::int64_t> time;
      Problem problem = read_integer(value, name, time);
      has_time_ = time.has_value();
      event_.time_ns = time.value_or(0);
      return problem;
    }
    case FieldId::kProcess: {
      Problem problem = read_text(value, name, event_.process);
      has_process_ = !event_.process.empty();
      return problem;
    }
    case FieldId::kEvent: return read_text(value, name, event_name_);
    case FieldId::kLock: return read_text(value, name, event_.lock);
    case FieldId::kOwner: return read_text(value, name, event_.owner);
    case FieldId::kBy: return read_text(value, name, event_.by);
    case FieldId::kToken: return read_integer(value, name, event_.token);
    case FieldId::kLeaseNs: {
      Problem problem = read_integer(value, name, event_.lease_ns);
      return problem ? problem : at_least_zero(name, event_.lease_ns);
    }
    case FieldId::kReason: return read_text(value, name, event_.reason);
    case FieldId::kKey: return read_text(value, name, event_.key);
    case FieldId::kWriter: return read_text(value, name, event_.writer);
    case FieldId::kJob: return read_name(value, name, event_.job);
    case FieldId::kRequestId: return read_name(value, name, event_.request_id);
    case FieldId::kValue: return decode_value(value);
    case FieldId::kService: return decode_service(value);
    case FieldId::kWorkload: return decode_workload(value);
    case FieldId::kStuckAfterNs: {
      Problem problem = read_integer(value, name, event_.stuck_after_ns);
      return problem ? problem : at_least_zero(name, event_.stuck_after_ns);
    }
    case FieldId::kFinal: return decode_final(value);
    case FieldId::kUnknown: break;
  }
  return std::nullopt;  // unknown fields are allowed: the contract adds fields freely
}

// `value` may be anything; the checks need its text (for explanations) and,
// for the counter workload, whether it is an integer.
Problem LineDecoder::decode_value(ondemand::value value) {
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::array) {
    ondemand::array array;
    if (const auto error = value.get_array().get(array)) {
      return not_json(error);
    }
    if (const auto error = array.raw_json().get(event_.value_json)) {
      return not_json(error);
    }
    return std::nullopt;
  }
  if (type == ondemand::json_type::object) {
    ondemand::object object;
    if (const auto error = value.get_object().get(object)) {
      return not_json(error);
    }
    if (const auto error = object.raw_json().get(event_.value_json)) {
      return not_json(error);
    }
    return std::nullopt;
  }
  event_.value_json = trim_trailing_space(value.raw_json_token());
  if (type == ondemand::json_type::number) {
    std::int64_t number = 0;
    if (!value.get_int64().get(number)) {
      event_.value_integer = number;
    }
  }
  return std::nullopt;
}

Problem LineDecoder::decode_service(ondemand::value value) {
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::null) {
    return std::nullopt;
  }
  if (type != ondemand::json_type::object) {
    return wrong_type("service", "an object {kind, instances, quorum}", type_name(type));
  }
  ondemand::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (auto field_result : object) {
    ondemand::field field;
    std::string_view name;
    if (const auto error = std::move(field_result).get(field)) {
      return not_json(error);
    }
    if (const auto error = field.unescaped_key().get(name)) {
      return not_json(error);
    }
    Problem problem;
    if (name == "kind") {
      problem = read_text(field.value(), "service.kind", event_.service_kind);
    } else if (name == "instances") {
      problem = read_integer(field.value(), "service.instances", event_.service_instances);
    } else if (name == "quorum") {
      problem = read_integer(field.value(), "service.quorum", event_.service_quorum);
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

Problem LineDecoder::decode_workload(ondemand::value value) {
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::string || type == ondemand::json_type::null) {
    return read_text(value, "workload", event_.workload_kind);
  }
  if (type != ondemand::json_type::object) {
    return wrong_type("workload", "a string or an object with `kind`", type_name(type));
  }
  ondemand::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (auto field_result : object) {
    ondemand::field field;
    std::string_view name;
    if (const auto error = std::move(field_result).get(field)) {
      return not_json(error);
    }
    if (const auto error = field.unescaped_key().get(name)) {
      return not_json(error);
    }
    if (name == "kind") {
      if (auto problem = read_text(field.value(), "workload.kind", event_.workload_kind)) {
        return problem;
      }
    }
  }
  return std::nullopt;
}

Problem LineDecoder::decode_final(ondemand::value value) {
  ondemand::json_type type{};
  if (auto problem = type_of(value, type)) {
    return problem;
  }
  if (type == ondemand::json_type::null) {
    return std::nullopt;
  }
  if (type != ondemand::json_type::object) {
    return wrong_type("final", "an object of storage key to value", type_name(type));
  }
  ondemand::object object;
  if (const auto error = value.get_object().get(object)) {
    return not_json(error);
  }
  for (auto field_result : object) {
    ondemand::field field;
    FinalValue entry;
    if (const auto error = std::move(field_result).get(field)) {
      return not_json(error);
    }
    if (const auto error = field.unescaped_key().get(entry.key)) {
      return not_json(error);
    }
    ondemand::value entry_value = field.value();
    ondemand::json_type entry_type{};
    if (auto problem = type_of(entry_value, entry_type)) {
      return problem;
    }
    std::int64_t number = 0;
    if (entry_type == ondemand::json_type::number && !entry_value.get_int64().get(number)) {
      entry.integer = number;
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
    return invalid(fmt::format("expected a known `ev` (see spec/history.md), got \"{}\"", event_name_));
  }
  event_.kind = *kind;

  constexpr Required kLock{"lock", "the lock's name, a string"};
  constexpr Required kOwner{"owner", "the worker the lease belongs to, a string"};
  constexpr Required kBy{"by", "who asked for the release, a string"};
  constexpr Required kKey{"key", "the storage key, a string"};
  constexpr Required kWriter{"writer", "the worker whose write it was, a string"};
  constexpr Required kReason{"reason", "why storage rejected the write, a string"};
  switch (*kind) {
    case EventKind::kAcquireOk:
    case EventKind::kAcquireFail:
    case EventKind::kHoldBegin:
    case EventKind::kHoldEnd:
      if (event_.lock.empty()) return missing(kLock, *kind);
      break;
    case EventKind::kLeaseGrant:
    case EventKind::kLeaseRenew:
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseLost:
    case EventKind::kLeaseRelease:
      if (event_.lock.empty()) return missing(kLock, *kind);
      if (event_.owner.empty()) return missing(kOwner, *kind);
      if (*kind == EventKind::kLeaseRelease && event_.by.empty()) return missing(kBy, *kind);
      break;
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject:
      if (event_.key.empty()) return missing(kKey, *kind);
      if (event_.writer.empty()) return missing(kWriter, *kind);
      if (*kind == EventKind::kWriteReject && event_.reason.empty()) return missing(kReason, *kind);
      break;
    default:
      break;
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
  void fail(std::int64_t line, std::string what) { outcome_.error = HistoryError{name_, line, std::move(what)}; }
  // Fails on the line that has not been handed over yet (it is being buffered).
  void fail_unfinished_line(std::string what) { fail(line_number_ + 1, std::move(what)); }
  ReadOutcome finish(bool file_was_empty);

 private:
  std::string name_;
  const EventVisitor& visit_;
  LineDecoder decoder_;
  ReadOutcome outcome_;
  std::int64_t line_number_ = 0;
  std::int64_t previous_time_ns_ = 0;
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
  if (auto problem = decoder_.decode(data, length, capacity)) {
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
  if (event.time_ns < previous_time_ns_) {
    fail(line_number_, expected_index == 0
                           ? fmt::format("expected `t` >= 0 (nanoseconds since the run began), got {}", event.time_ns)
                           : fmt::format("expected `t` >= {} (the previous event's time: true time never goes "
                                         "backwards), got {}",
                                         previous_time_ns_, event.time_ns));
    return false;
  }
  previous_time_ns_ = event.time_ns;
  ++outcome_.summary.events;
  outcome_.summary.has_run_begin = outcome_.summary.has_run_begin || event.kind == EventKind::kRunBegin;
  outcome_.summary.has_run_end = outcome_.summary.has_run_end || event.kind == EventKind::kRunEnd;
  visit_(event);
  return true;
}

ReadOutcome HistoryStream::finish(bool file_was_empty) {
  if (file_was_empty && !outcome_.error) {
    fail(1, "expected a history (one JSON object per line), got an empty file");
  }
  return std::move(outcome_);
}

// Reads bytes into `destination`, returning how many (0 at the end).
using ByteSource = std::function<std::size_t(char* destination, std::size_t capacity)>;

ReadOutcome read_lines(std::string_view name, const ByteSource& source, const EventVisitor& visit) {
  HistoryStream stream{name, visit};
  // Data lives in [begin, end); SIMDJSON_PADDING bytes after the data are
  // always allocated, so every line can be parsed in place.
  std::vector<char> buffer(kChunkBytes + simdjson::SIMDJSON_PADDING);
  std::size_t begin = 0;
  std::size_t end = 0;
  std::size_t scanned = 0;  // bytes after `begin` known to hold no newline
  bool at_end_of_input = false;
  bool read_anything = false;
  while (true) {
    const char* newline =
        static_cast<const char*>(std::memchr(buffer.data() + begin + scanned, '\n', end - begin - scanned));
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(newline - (buffer.data() + begin));
      if (!stream.line(buffer.data() + begin, length, buffer.size() - begin, true)) {
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
      }
      return stream.finish(!read_anything);
    }
    // Keep the unfinished line, moved to the front, and read more after it.
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
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
  if (line <= 0) {
    return fmt::format("{}: {}", file, what);
  }
  return fmt::format("{}:{}: {}", file, line, what);
}

ReadOutcome read_history_file(const std::string& path, const EventVisitor& visit) {
  const std::unique_ptr<std::FILE, FileCloser> file{std::fopen(path.c_str(), "rb")};
  if (!file) {
    ReadOutcome outcome;
    outcome.error = HistoryError{path, 0, fmt::format("cannot open the history: {}", std::strerror(errno))};
    return outcome;
  }
  bool read_failed = false;
  ReadOutcome outcome = read_lines(
      path,
      [&](char* destination, std::size_t capacity) {
        const std::size_t bytes = std::fread(destination, 1, capacity, file.get());
        read_failed = read_failed || std::ferror(file.get()) != 0;
        return bytes;
      },
      visit);
  if (read_failed && !outcome.error) {
    outcome.error = HistoryError{path, 0, fmt::format("cannot read the history: {}", std::strerror(errno))};
  }
  return outcome;
}

ReadOutcome read_history_text(std::string_view text, std::string_view name, const EventVisitor& visit) {
  std::size_t offset = 0;
  return read_lines(
      name,
      [&](char* destination, std::size_t capacity) {
        const std::size_t bytes = std::min(capacity, text.size() - offset);
        std::memcpy(destination, text.data() + offset, bytes);
        offset += bytes;
        return bytes;
      },
      visit);
}

}  // namespace locksim::checker
