#pragma once
// NameMap: the checks' state per name (a lock, a worker, a job), looked up
// by the event's string_view without making a string, in one hash and one
// compare instead of a tree walk of string compares — these lookups are
// most of a check's time per event.
//
// It cannot be iterated: its order is the hash's, and no order of it may
// reach a verdict (determinism). A check that walks its names in order
// keeps a std::map for that.

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

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

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::unordered_map<std::string, Value, Hash, std::equal_to<>> values_;
};

}  // namespace locksim::checker
