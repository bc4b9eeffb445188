#include "history_recorder.h"

#include <cstring>
#include <iterator>

#include "assert.h"

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

// Folds a line into the running hash eight bytes at a time; the length goes
// in too, so moving a byte across a line boundary changes the hash.
std::uint64_t hash_line(std::uint64_t hash, std::string_view line) {
  std::size_t position = 0;
  for (; position + 8 <= line.size(); position += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, line.data() + position, 8);
    hash = mix(hash, word);
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, line.data() + position, line.size() - position);
  hash = mix(hash, tail);
  return mix(hash, line.size());
}

}  // namespace

void append_json_string(fmt::memory_buffer& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"': out.append(std::string_view{"\\\""}); break;
      case '\\': out.append(std::string_view{"\\\\"}); break;
      case '\n': out.append(std::string_view{"\\n"}); break;
      case '\r': out.append(std::string_view{"\\r"}); break;
      case '\t': out.append(std::string_view{"\\t"}); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void HistoryRecorder::record(Time t, std::string_view proc, std::string_view event,
                             std::span<const Field> fields) {
  LOCKSIM_ASSERT(t >= last_time_, "history events must be recorded in true-time order");
  last_time_ = t;
  line_.clear();
  fmt::format_to(std::back_inserter(line_), "{{\"i\":{},\"t\":{},\"proc\":", events_recorded_, t.ns());
  append_json_string(line_, proc);
  line_.append(std::string_view{",\"ev\":"});
  append_json_string(line_, event);
  for (const Field& field : fields) {
    line_.push_back(',');
    append_json_string(line_, field.key);
    line_.push_back(':');
    std::visit(Overloaded{
                   [this](std::int64_t number) { fmt::format_to(std::back_inserter(line_), "{}", number); },
                   [this](bool flag) { line_.append(flag ? std::string_view{"true"} : std::string_view{"false"}); },
                   [this](std::string_view text) { append_json_string(line_, text); },
                   [this](RawJson json) { line_.append(json.text); },
               },
               field.value);
  }
  line_.push_back('}');
  const std::string_view line{line_.data(), line_.size()};
  hash_ = hash_line(hash_, line);
  ++events_recorded_;
  if (sink_) {
    sink_(line);
  }
}

}  // namespace locksim::sim
