#include "sim/frame_pool.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "sim/task.h"

namespace locksim::sim::detail {
namespace {

TEST(FramePool, AFreedFrameIsHandedToTheNextFrameOfItsSizeClass) {
  FramePool pool;
  void* first = pool.allocate(100);
  pool.free(first, 100);
  // 100 and 120 bytes are both in the 128-byte class.
  EXPECT_EQ(pool.allocate(120), first);
  pool.free(first, 120);
}

TEST(FramePool, FramesOfAnotherSizeClassAreNotReused) {
  FramePool pool;
  void* small = pool.allocate(64);
  pool.free(small, 64);
  void* larger = pool.allocate(65);
  EXPECT_NE(larger, small);
  pool.free(larger, 65);
}

TEST(FramePool, ASteadyLoadAllocatesNothingNewAfterItsFirstRound) {
  FramePool pool;
  constexpr std::size_t kFrames = 50;
  std::vector<void*> first_round;
  for (std::size_t index = 0; index < kFrames; ++index) first_round.push_back(pool.allocate(200 + index % 3));
  for (void* frame : first_round) pool.free(frame, 200);
  const std::set<void*> known(first_round.begin(), first_round.end());
  std::vector<void*> second_round;
  for (std::size_t index = 0; index < kFrames; ++index) second_round.push_back(pool.allocate(256));
  EXPECT_TRUE(std::all_of(second_round.begin(), second_round.end(), [&known](void* frame) { return known.contains(frame); }));
  for (void* frame : second_round) pool.free(frame, 256);
}

TEST(FramePool, FramesBeyondTheLargestClassStillWork) {
  FramePool pool;
  constexpr std::size_t kLarge = FramePool::kClasses * FramePool::kClassBytes + 1;
  auto* frame = static_cast<std::byte*>(pool.allocate(kLarge));
  frame[0] = std::byte{1};
  frame[kLarge - 1] = std::byte{2};
  pool.free(frame, kLarge);
}

#if defined(__SANITIZE_ADDRESS__)
#define LOCKSIM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCKSIM_TEST_ASAN 1
#endif
#endif

#ifdef LOCKSIM_TEST_ASAN
// A use of a destroyed coroutine's frame must still be reported under ASan.
TEST(FramePool, AFreeFrameIsPoisonedUnderAddressSanitizer) {
  FramePool pool;
  auto* frame = static_cast<char*>(pool.allocate(300));
  EXPECT_EQ(__asan_region_is_poisoned(frame, 300), nullptr);
  pool.free(frame, 300);
  EXPECT_NE(__asan_region_is_poisoned(frame, 300), nullptr);
  EXPECT_EQ(pool.allocate(300), frame);
  EXPECT_EQ(__asan_region_is_poisoned(frame, 300), nullptr);
  pool.free(frame, 300);
}
#endif

Task<int> answer() { co_return 42; }

TEST(FramePool, TaskFramesComeFromTheThreadsPool) {
  void* frame = nullptr;
  {
    Task<int> task = answer();
    Task<int>::Handle handle = task.release();
    frame = handle.address();
    handle.destroy();
  }
  // The coroutine frame just freed is the next one of its size.
  Task<int> again = answer();
  Task<int>::Handle handle = again.release();
  EXPECT_EQ(handle.address(), frame);
  handle.destroy();
}

}  // namespace
}  // namespace locksim::sim::detail
