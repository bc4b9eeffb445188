#include "checker/streamed_line_decoder.h"

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

#include "checker/history_reader.h"

namespace locksim::checker {
namespace {

namespace ondemand = simdjson::ondemand;

// How deep an unknown field is read here; a deeper one is left to the DOM
// parse, which has its own depth limit and message (and no recursion of ours
// may follow a hostile line's nesting down the stack).
constexpr int kDeepestUnknownValue = 32;

// The field's value when it is a JSON string; false for anything else. A
// string without escapes (almost every one) is its bytes in the input, so it
// is viewed there rather than copied out by the library.
bool read_text(ondemand::value& value, std::string_view& out) {
  const std::string_view token = value.raw_json_token();  // the string with its quotes, and blanks after it
  if (token.empty() || token.front() != '"') return false;
  const std::size_t closing_quote = token.find_last_of('"');
  if (closing_quote == 0 || token.substr(1, closing_quote - 1).find('\\') != std::string_view::npos) {
    return !value.get_string().get(out);
  }
  ondemand::raw_json_string consumed;
  if (value.get_raw_json_string().get(consumed)) return false;
  out = token.substr(1, closing_quote - 1);
  return true;
}

// A field's key, viewed in the input when it has no escapes (every key the
// contract names), otherwise unescaped by the library.
bool read_key(ondemand::field& field, std::string_view& out) {
  const char* const begin = field.key().raw();
  const char* end = begin;
  while (*end != '"' && *end != '\\') ++end;  // stage 1 found the closing quote
  if (*end == '\\') return !field.unescaped_key().get(out);
  out = std::string_view{begin, static_cast<std::size_t>(end - begin)};
  return true;
}

// The field's value when it is an integer that fits 64 signed bits; false for
// anything else (a fraction, an exponent, beyond 64 bits, not a number).
bool read_integer(ondemand::value& value, std::int64_t& out) { return !value.get_int64().get(out); }

bool is_duration(std::int64_t number) { return number >= 0 && number <= kLongestTimeNs; }

// Reads a field that names something and may be a string or an integer
// (`job`, `request_id`): integers are written as text into `storage`.
bool read_name(ondemand::value& value, std::string_view& out, std::string& storage) {
  ondemand::json_type type{};
  if (value.type().get(type)) return false;
  if (type == ondemand::json_type::string) return read_text(value, out);
  std::int64_t number = 0;
  if (type != ondemand::json_type::number || !read_integer(value, number)) return false;
  storage = fmt::format("{}", number);
  out = storage;
  return true;
}

// Reads a value the checks ignore to its last byte, so that a line is
// accepted only if all of it is JSON (On-Demand validates only what is read).
bool read_all_of(ondemand::value& value, int depth) {
  if (depth > kDeepestUnknownValue) return false;
  ondemand::json_type type{};
  if (value.type().get(type)) return false;
  switch (type) {
    case ondemand::json_type::object: {
      ondemand::object object;
      if (value.get_object().get(object)) return false;
      for (auto field : object) {
        std::string_view key;
        ondemand::value inner;
        if (field.error() || !read_key(field.value_unsafe(), key) || field.value().get(inner) ||
            !read_all_of(inner, depth + 1)) {
          return false;
        }
      }
      return true;
    }
    case ondemand::json_type::array: {
      ondemand::array array;
      if (value.get_array().get(array)) return false;
      for (auto element : array) {
        ondemand::value inner;
        if (element.get(inner) || !read_all_of(inner, depth + 1)) return false;
      }
      return true;
    }
    case ondemand::json_type::string: {
      std::string_view text;
      return read_text(value, text);
    }
    case ondemand::json_type::number: {
      ondemand::number number;
      return !value.get_number().get(number);
    }
    case ondemand::json_type::boolean: {
      bool flag = false;
      return !value.get_bool().get(flag);
    }
    case ondemand::json_type::null: {
      bool is_null = false;
      return !value.is_null().get(is_null) && is_null;
    }
  }
  return false;
}

// Calls `read(key, value)` for each field of the object `value`; false when
// `value` is not an object or a field could not be read.
template <class ReadField>
bool for_each_field(ondemand::value& value, ReadField read) {
  ondemand::object object;
  if (value.get_object().get(object)) return false;
  for (auto field : object) {
    std::string_view key;
    ondemand::value inner;
    if (field.error() || !read_key(field.value_unsafe(), key) || field.value().get(inner) || !read(key, inner)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool StreamedLineDecoder::decode(ondemand::document_reference line) {
  event_ = Event{};
  final_values_.clear();
  has_index_ = has_time_ = false;
  event_name_ = {};
  ondemand::object object;
  if (line.get_object().get(object)) return false;
  for (auto field : object) {
    std::string_view key;
    ondemand::value value;
    if (field.error() || !read_key(field.value_unsafe(), key) || field.value().get(value)) return false;
    if (!decode_field(event_field_from_name(key), value)) return false;
  }
  event_.final_values = final_values_;
  return has_required_fields();
}

bool StreamedLineDecoder::decode_field(EventField field, ondemand::value& value) {
  switch (field) {
    case EventField::kIndex: return has_index_ = read_integer(value, event_.index);
    case EventField::kTime: return has_time_ = read_integer(value, event_.time_ns);
    case EventField::kProcess: return read_text(value, event_.process);
    case EventField::kEvent: return read_text(value, event_name_);
    case EventField::kLock: return read_text(value, event_.lock);
    case EventField::kOwner: return read_text(value, event_.owner);
    case EventField::kBy: return read_text(value, event_.by);
    case EventField::kToken: return decode_token(value);
    case EventField::kLeaseNs: {
      std::int64_t lease_ns = 0;
      if (!read_integer(value, lease_ns) || !is_duration(lease_ns)) return false;
      event_.lease_ns = lease_ns;
      return true;
    }
    case EventField::kReason: return read_text(value, event_.reason);
    case EventField::kKey: return read_text(value, event_.key);
    case EventField::kWriter: return read_text(value, event_.writer);
    case EventField::kReader: return read_text(value, event_.reader);
    case EventField::kJob: return read_name(value, event_.job, job_text_);
    case EventField::kRequestId: return read_name(value, event_.request_id, request_id_text_);
    case EventField::kValue: return decode_value(value);
    case EventField::kService: return decode_service(value);
    case EventField::kWorkload: return decode_workload(value);
    case EventField::kStuckAfterNs: {
      std::int64_t stuck_after_ns = 0;
      if (!read_integer(value, stuck_after_ns) || !is_duration(stuck_after_ns)) return false;
      event_.stuck_after_ns = stuck_after_ns;
      return true;
    }
    case EventField::kFinal: return decode_final(value);
    case EventField::kUnknown: break;
  }
  return read_all_of(value, 1);
}

// `token` is an integer, or an opaque string lock id (never empty).
bool StreamedLineDecoder::decode_token(ondemand::value& value) {
  ondemand::json_type type{};
  if (value.type().get(type)) return false;
  if (type == ondemand::json_type::string) {
    return read_text(value, event_.token_text) && !event_.token_text.empty();
  }
  std::int64_t token = 0;
  if (type != ondemand::json_type::number || !read_integer(value, token)) return false;
  event_.token = token;
  return true;
}

// An integer or a string `value` (what the recorders write); any other is
// left to the DOM decoder, which keeps its minified text.
bool StreamedLineDecoder::decode_value(ondemand::value& value) {
  ondemand::json_type type{};
  if (value.type().get(type)) return false;
  if (type == ondemand::json_type::number) {
    std::int64_t number = 0;
    if (!read_integer(value, number)) return false;
    event_.value_integer = number;
    value_text_ = fmt::format("{}", number);
  } else if (type == ondemand::json_type::string) {
    std::string_view text;
    if (!read_text(value, text)) return false;
    value_text_ = json_string_literal(text);
  } else {
    return false;
  }
  event_.value_json = value_text_;
  return true;
}

bool StreamedLineDecoder::decode_service(ondemand::value& value) {
  const bool read = for_each_field(value, [&](std::string_view key, ondemand::value& inner) {
    std::int64_t number = 0;
    if (key == "kind") return read_text(inner, event_.service_kind);
    if (key == "instances") return read_integer(inner, number) && (event_.service_instances = number, true);
    if (key == "quorum") return read_integer(inner, number) && (event_.service_quorum = number, true);
    return read_all_of(inner, 2);
  });
  return read && (!event_.service_quorum || *event_.service_quorum >= 1);
}

bool StreamedLineDecoder::decode_workload(ondemand::value& value) {
  ondemand::json_type type{};
  if (value.type().get(type)) return false;
  if (type == ondemand::json_type::string) return read_text(value, event_.workload_kind);
  return for_each_field(value, [&](std::string_view key, ondemand::value& inner) {
    return key == "kind" ? read_text(inner, event_.workload_kind) : read_all_of(inner, 2);
  });
}

bool StreamedLineDecoder::decode_final(ondemand::value& value) {
  event_.has_final = true;
  return for_each_field(value, [&](std::string_view key, ondemand::value& inner) {
    FinalValue entry{key, std::nullopt};
    ondemand::number_type number_type{};
    if (!inner.get_number_type().get(number_type) && number_type == ondemand::number_type::signed_integer) {
      std::int64_t number = 0;
      if (!read_integer(inner, number)) return false;
      entry.integer = number;
    } else if (!read_all_of(inner, 2)) {
      return false;
    }
    final_values_.push_back(entry);
    return true;
  });
}

bool StreamedLineDecoder::has_required_fields() {
  if (!has_index_ || !has_time_ || event_.process.empty() || event_name_.empty()) return false;
  const auto kind = event_kind_from_name(event_name_);
  if (!kind) return false;
  event_.kind = *kind;
  return !missing_required_field(event_);
}

}  // namespace locksim::checker
