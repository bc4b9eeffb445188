#pragma once
// FramePool: where Task coroutine frames are allocated.
//
// Every call of a coroutine (a model's acquire, set, ask_primary, …)
// allocates its frame, and a run makes several such calls per event: with
// malloc, allocating and freeing frames was a tenth of a simulated event's
// time. Frames come in a few sizes (one per coroutine function), so the pool
// keeps a free list per 64-byte size class and hands a freed frame to the
// next call of that size, without malloc. A frame larger than the largest
// class goes to operator new.
//
// The lists are per thread (seeds run on several threads, each simulation on
// one) and only grow to the most frames a thread had alive at once, so a
// long sweep's memory stays flat. They hold no state a run can observe: a
// frame's address never decides anything (nothing orders by address).
//
// Under AddressSanitizer a frame on a free list is poisoned, so using a
// destroyed coroutine's frame is still reported, as it is with malloc.

#include <array>
#include <cstddef>
#include <new>

#include <sanitizer/asan_interface.h>

namespace locksim::sim::detail {

class FramePool {
 public:
  static constexpr std::size_t kClassBytes = 64;
  static constexpr std::size_t kClasses = 64;  // pooled frames up to 63 · 64 bytes

  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool();

  void* allocate(std::size_t bytes) {
    const std::size_t size_class = class_of(bytes);
    if (size_class >= kClasses) {
      return ::operator new(bytes);
    }
    FreeFrame* frame = free_[size_class];
    if (frame == nullptr) {
      return ::operator new(class_bytes(size_class));
    }
    ASAN_UNPOISON_MEMORY_REGION(frame, class_bytes(size_class));
    free_[size_class] = frame->next;
    return frame;
  }

  void free(void* memory, std::size_t bytes) noexcept {
    const std::size_t size_class = class_of(bytes);
    if (size_class >= kClasses) {
      ::operator delete(memory);
      return;
    }
    auto* frame = ::new (memory) FreeFrame{free_[size_class]};
    free_[size_class] = frame;
    ASAN_POISON_MEMORY_REGION(frame, class_bytes(size_class));
  }

  // This thread's pool.
  static FramePool& local() {
    thread_local FramePool pool;
    return pool;
  }

 private:
  struct FreeFrame {
    FreeFrame* next;
  };

  static std::size_t class_of(std::size_t bytes) { return (bytes + kClassBytes - 1) / kClassBytes; }
  static std::size_t class_bytes(std::size_t size_class) { return size_class * kClassBytes; }

  std::array<FreeFrame*, kClasses> free_{};
};

inline FramePool::~FramePool() {
  for (std::size_t size_class = 0; size_class < kClasses; ++size_class) {
    while (FreeFrame* frame = free_[size_class]) {
      ASAN_UNPOISON_MEMORY_REGION(frame, class_bytes(size_class));
      free_[size_class] = frame->next;
      ::operator delete(frame);
    }
  }
}

}  // namespace locksim::sim::detail
