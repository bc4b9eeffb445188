#pragma once
// FifoQueue: a first-in-first-out queue over one vector that keeps its
// capacity. std::deque allocates and frees a block every few hundred
// push/pop pairs; a node's inbox sees millions of them in a long run, and the
// kernel promises not to allocate in the steady state.

#include <cstddef>
#include <vector>

#include "assert.h"

namespace locksim::sim {

template <class T>
class FifoQueue {
 public:
  void push_back(T value) { items_.push_back(std::move(value)); }

  // Requires !empty().
  T pop_front() {
    LOCKSIM_ASSERT(!empty(), "pop from an empty queue");
    T front = std::move(items_[head_++]);
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 64 && head_ * 2 >= items_.size()) {
      // Compact in place: amortised O(1), and the capacity stays.
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return front;
  }

  [[nodiscard]] bool empty() const { return head_ == items_.size(); }
  [[nodiscard]] std::size_t size() const { return items_.size() - head_; }
  [[nodiscard]] auto begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  [[nodiscard]] auto end() const { return items_.end(); }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace locksim::sim
