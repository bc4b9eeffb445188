#include "history_recorder.h"

#include <cstring>
#include <iterator>

#include "assert.h"
#include "text/json_string.h"

namespace locksim::sim {
namespace {

template <class... Lambdas>
struct Overloaded : Lambdas... {
  using Lambdas::operator()...;
};
// C++20 deduces an aggregate's template arguments, but clang 14 does not
// implement that (P1816): the guide keeps both compilers building it.
template <class... Lambdas>
Overloaded(Lambdas...) -> Overloaded<Lambdas...>;

std::uint64_t mix(std::uint64_t hash, std::uint64_t word) {
  hash ^= word;
  hash *= 0x9E3779B97F4A7C15ULL;
  return hash ^ (hash >> 29);
}

// The `count` (< 8) bytes at `bytes` as one little-endian word, the rest
// zero: what a memcpy of them into a zeroed word gives on x86, without a
// call to memcpy for a length known only at run time (that call was a third
// of hashing a record). Two overlapping loads place each byte at its own
// position, so OR-ing them is exact.
std::uint64_t last_bytes(const char* bytes, std::size_t count) {
  const auto byte_at = [bytes](std::size_t index) {
    return std::uint64_t{static_cast<unsigned char>(bytes[index])} << (8 * index);
  };
  if (count >= 4) {
    std::uint32_t low = 0;
    std::uint32_t high = 0;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + count - 4, 4);
    return std::uint64_t{low} | (std::uint64_t{high} << (8 * (count - 4)));
  }
  if (count == 0) return 0;
  return byte_at(0) | byte_at(count / 2) | byte_at(count - 1);
}

// Folds the whole 8-byte words of `text` into `hash`; returns where the
// last, partial word (0 to 7 bytes) begins.
std::size_t fold_whole_words(std::uint64_t& hash, std::string_view text) {
  std::size_t position = 0;
  for (; position + 8 <= text.size(); position += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data() + position, 8);
    hash = mix(hash, word);
  }
  return position;
}

// Folds a line (or any string) into the running hash eight bytes at a time;
// the length goes in too, so moving a byte across a boundary changes the hash.
std::uint64_t hash_line(std::uint64_t hash, std::string_view line) {
  const std::size_t position = fold_whole_words(hash, line);
  hash = mix(hash, last_bytes(line.data() + position, line.size() - position));
  return mix(hash, line.size());
}

// Folds one string of a record: like hash_line, but with the length in the
// last word's top byte when it fits there (shorter than 256 bytes: every
// name and key, and all but a long raw JSON value), which saves a
// multiplication per string, and a record has a dozen strings. The last
// word holds at most seven bytes of text, so its top byte is free.
std::uint64_t hash_record_text(std::uint64_t hash, std::string_view text) {
  constexpr std::size_t kLengthInTopByte = 256;
  if (text.size() >= kLengthInTopByte) {
    return hash_line(hash, text);
  }
  const std::size_t position = fold_whole_words(hash, text);
  const std::uint64_t last = last_bytes(text.data() + position, text.size() - position);
  return mix(hash, last | (std::uint64_t{text.size()} << 56));
}

// The canonical serialisation the record hash folds in (history_recorder.h):
// each part of the line in the line's order, each string with its length and
// each field value with its type, so no two different records fold alike.
std::uint64_t hash_record(std::uint64_t hash, std::uint64_t index, Time t, std::string_view proc, EventKind event,
                          std::span<const Field> fields) {
  hash = mix(hash, index);
  hash = mix(hash, static_cast<std::uint64_t>(t.ns()));
  hash = hash_record_text(hash, proc);
  hash = hash_record_text(hash, vocabulary::event_kind_name(event));
  for (const Field& field : fields) {
    hash = hash_record_text(hash, field.key);
    hash = mix(hash, field.value.index());  // the type: integer, bool, string, raw JSON
    std::visit(Overloaded{
                   [&hash](std::int64_t number) { hash = mix(hash, static_cast<std::uint64_t>(number)); },
                   [&hash](bool flag) { hash = mix(hash, flag ? 1 : 0); },
                   [&hash](std::string_view text) { hash = hash_record_text(hash, text); },
                   [&hash](RawJson json) { hash = hash_record_text(hash, json.text); },
               },
               field.value);
  }
  return mix(hash, fields.size());
}

}  // namespace

void format_history_line(fmt::memory_buffer& out, std::uint64_t index, Time t, std::string_view proc, EventKind event,
                         std::span<const Field> fields) {
  fmt::format_to(std::back_inserter(out), "{{\"i\":{},\"t\":{},\"proc\":", index, t.ns());
  text::append_json_string(out, proc);
  out.append(std::string_view{",\"ev\":"});
  text::append_json_string(out, vocabulary::event_kind_name(event));
  for (const Field& field : fields) {
    out.push_back(',');
    text::append_json_string(out, field.key);
    out.push_back(':');
    std::visit(Overloaded{
                   [&out](std::int64_t number) { fmt::format_to(std::back_inserter(out), "{}", number); },
                   [&out](bool flag) { out.append(flag ? std::string_view{"true"} : std::string_view{"false"}); },
                   [&out](std::string_view text) { text::append_json_string(out, text); },
                   [&out](RawJson json) { out.append(json.text); },
               },
               field.value);
  }
  out.push_back('}');
}

void HistoryRecorder::record(Time t, std::string_view proc, EventKind event, std::span<const Field> fields) {
  LOCKSIM_ASSERT(t >= last_time_, "history events must be recorded in true-time order");
  last_time_ = t;
  hash_ = hash_record(hash_, events_recorded_, t, proc, event, fields);
  if (sink_) {
    line_.clear();
    format_history_line(line_, events_recorded_, t, proc, event, fields);
    const std::string_view line{line_.data(), line_.size()};
    text_hash_ = hash_line(text_hash_, line);
    sink_(line);
  }
  ++events_recorded_;
}

}  // namespace locksim::sim
