#include "sim/fifo_queue.h"

#include <deque>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace locksim::sim {
namespace {

TEST(FifoQueue, PopsInPushOrderAcrossCompaction) {
  FifoQueue<int> queue;
  int next_expected = 0;
  for (int value = 0; value < 1000; ++value) {
    queue.push_back(value);
    if (value % 3 == 0) {
      EXPECT_EQ(queue.pop_front(), next_expected++);
    }
  }
  while (!queue.empty()) {
    EXPECT_EQ(queue.pop_front(), next_expected++);
  }
  EXPECT_EQ(next_expected, 1000);
}

// Model-based: the same operations on std::deque give the same answers.
RC_GTEST_PROP(FifoQueue, BehavesLikeADeque, (std::vector<bool> pushes)) {
  FifoQueue<int> queue;
  std::deque<int> model;
  int next = 0;
  for (bool push : pushes) {
    if (push || model.empty()) {
      queue.push_back(next);
      model.push_back(next++);
    } else {
      RC_ASSERT(queue.pop_front() == model.front());
      model.pop_front();
    }
    RC_ASSERT(queue.size() == model.size());
  }
}

}  // namespace
}  // namespace locksim::sim
