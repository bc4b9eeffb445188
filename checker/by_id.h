#pragma once
// ById<Value>: a check's state per name, indexed by the name's interned id
// (checker/name_ids.h) — a vector slot instead of a hash lookup on every
// event. Like a map it knows which ids it holds (find() is nullptr for an id
// never stored), since the checks tell "never seen" from "seen, zero".
//
// Its own order is id order (first seen), which no verdict may show:
// ids_in_name_order() walks it in name order, for the rare event that
// touches every name.

#include <cassert>
#include <optional>
#include <vector>

#include "checker/name_ids.h"

namespace locksim::checker {

template <class Value>
class ById {
 public:
  [[nodiscard]] Value* find(NameId id) { return id < slots_.size() && slots_[id] ? &*slots_[id] : nullptr; }
  [[nodiscard]] const Value* find(NameId id) const {
    return id < slots_.size() && slots_[id] ? &*slots_[id] : nullptr;
  }
  // The value for `id` (never kNoName), default-made if it has none yet.
  Value& operator[](NameId id) {
    assert(id != kNoName);
    if (id >= slots_.size()) {
      slots_.resize(static_cast<std::size_t>(id) + 1);
    }
    std::optional<Value>& slot = slots_[id];
    if (!slot) {
      // Value{} rather than emplace(): clang decides once, inside the
      // enclosing class, that a nested struct with member initializers is
      // not default-constructible, and keeps that answer.
      slot.emplace(Value{});
    }
    return *slot;
  }

  // Every id with a value, in name order.
  [[nodiscard]] std::vector<NameId> ids_in_name_order(const NameIds& names) const {
    std::vector<NameId> ids;
    for (std::size_t id = 0; id < slots_.size(); ++id) {
      if (slots_[id]) ids.push_back(static_cast<NameId>(id));
    }
    names.sort_by_name(ids);
    return ids;
  }

 private:
  std::vector<std::optional<Value>> slots_;
};

}  // namespace locksim::checker
