#pragma once
// NameIds: every name a history's events carry (workers, locks, instances —
// one id space for all roles, so a worker is the same id as `proc`, `owner`
// or `writer`) interned once per event to a small dense id, 0, 1, 2, … in
// first-seen order. The checks then keep their state in vectors indexed by id
// (checker/by_id.h) instead of hashing the same name again in every check:
// those lookups were a fifth of the checker's time.
//
// An id's number says only when its name was first seen, which depends on
// the history alone: deterministic. Yet no id order may reach a verdict where
// the code promises name order; sort_by_name() restores it, for the rare walk
// over every name (a crash).

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace locksim::checker {

using NameId = std::uint32_t;
// An empty field (the line does not carry it): no name, no id.
inline constexpr NameId kNoName = std::numeric_limits<NameId>::max();

class NameIds {
 public:
  // The id of `name`, made if new; kNoName for "".
  [[nodiscard]] NameId intern(std::string_view name);
  // The text of `id` ("" for kNoName); valid as long as this table.
  [[nodiscard]] std::string_view name(NameId id) const {
    return id == kNoName ? std::string_view{} : std::string_view{*names_[id]};
  }
  // Sorts `ids` by their names, for a walk whose order reaches a verdict.
  void sort_by_name(std::vector<NameId>& ids) const;

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
    std::size_t operator()(std::string_view name) const;
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(std::string_view left, std::string_view right) const;
  };

  std::unordered_map<std::string, NameId, Hash, Equal> ids_;
  // By id: the keys of ids_, whose nodes never move (a rehash relinks them).
  std::vector<const std::string*> names_;
};

}  // namespace locksim::checker
