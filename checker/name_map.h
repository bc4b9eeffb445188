#pragma once
// NameMap: the checks' state per name (a lock, a worker, a job), looked up
// by the event's string_view without making a string, in one hash and one
// compare instead of a tree walk of string compares — these lookups are
// most of a check's time per event.
//
// It cannot be iterated in its own order: that is the hash's, and no order of
// it may reach a verdict (determinism). sorted_names() walks it in name
// order, for the rare event that touches every name (a crash); a check that
// walks its names often keeps a std::map for that.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace locksim::checker {

template <class Value>
class NameMap {
 public:
  [[nodiscard]] Value* find(std::string_view name) {
    const auto found = values_.find(name);
    return found == values_.end() ? nullptr : &found->second;
  }
  [[nodiscard]] const Value* find(std::string_view name) const {
    const auto found = values_.find(name);
    return found == values_.end() ? nullptr : &found->second;
  }
  // The value for `name`, default-made if it has none yet.
  Value& operator[](std::string_view name) {
    auto found = values_.find(name);
    if (found == values_.end()) {
      found = values_.emplace(std::string{name}, Value{}).first;
    }
    return found->second;
  }

  // Every name, in name order.
  [[nodiscard]] std::vector<std::string> sorted_names() const {
    std::vector<std::string> names;
    names.reserve(values_.size());
    for (const auto& [name, value] : values_) names.push_back(name);
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  // Names are short ("worker-3", "orders"): hashed and compared 8 bytes at a
  // time, inline, rather than by the library's out-of-line byte functions.
  static std::uint64_t word_at(const char* bytes) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, sizeof word);
    return word;
  }
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const {
      std::uint64_t hash = name.size() * 0x9E3779B97F4A7C15;
      std::size_t at = 0;
      for (; at + 8 <= name.size(); at += 8) {
        hash = (hash ^ word_at(name.data() + at)) * 0xFF51AFD7ED558CCD;
      }
      std::uint64_t tail = 0;
      for (std::size_t shift = 0; at < name.size(); ++at, shift += 8) {
        tail |= std::uint64_t{static_cast<unsigned char>(name[at])} << shift;
      }
      hash = (hash ^ tail) * 0xC4CEB9FE1A85EC53;
      return static_cast<std::size_t>(hash ^ (hash >> 29));
    }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view left, std::string_view right) const {
      if (left.size() != right.size()) return false;
      std::size_t at = 0;
      for (; at + 8 <= left.size(); at += 8) {
        if (word_at(left.data() + at) != word_at(right.data() + at)) return false;
      }
      for (; at < left.size(); ++at) {
        if (left[at] != right[at]) return false;
      }
      return true;
    }
  };
  std::unordered_map<std::string, Value, Hash, Equal> values_;
};

}  // namespace locksim::checker
