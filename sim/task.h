#pragma once
// Task<T>: the coroutine type of simulated processes and everything they call.
//
// A Task is lazy (nothing runs until it is awaited or spawned) and owns its
// frame: destroying a Task destroys the coroutine and, through the temporaries
// suspended inside it, every Task it is awaiting. That is how a crash tears
// down a node's call stacks in one step. Awaiting a Task transfers control
// symmetrically (no stack growth), and an exception thrown inside propagates
// to the awaiter; from a process's root task it reaches Simulation::run().
//
// Habits (from FoundationDB's and SimCpp20's coroutine code): take parameters
// by value (a reference may dangle once the caller's frame moves on), and do
// not co_await inside a catch block.
//
// GCC 12 miscompiles a braced aggregate temporary inside a co_await
// expression (`co_await f(Command{a, b})`): the temporary is copied bitwise,
// so a std::string in it ends up pointing into the old copy (ASan reports a
// bad free). Build such a value in a named local first and std::move it in;
// the sanitizer test run catches a slip.

#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>

#include "assert.h"
#include "frame_pool.h"

namespace locksim::sim {

// Called when a process's root task finishes, so its owner can reap the frame.
struct TaskExitHook {
  void (*notify)(void* owner, std::uint64_t ticket) = nullptr;
  void* owner = nullptr;
  std::uint64_t ticket = 0;
};

namespace detail {

struct TaskPromiseBase {
  // Frames come from this thread's pool, not malloc (frame_pool.h).
  static void* operator new(std::size_t bytes) { return FramePool::local().allocate(bytes); }
  static void operator delete(void* frame, std::size_t bytes) noexcept { FramePool::local().free(frame, bytes); }

  std::coroutine_handle<> continuation;  // the awaiting coroutine; empty for a root task
  std::exception_ptr exception;
  TaskExitHook exit_hook;  // root tasks only

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class Promise>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> finished) noexcept {
      TaskPromiseBase& promise = finished.promise();
      if (promise.continuation) {
        return promise.continuation;
      }
      if (promise.exit_hook.notify != nullptr) {
        promise.exit_hook.notify(promise.exit_hook.owner, promise.exit_hook.ticket);
      }
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  template <class U>
  void return_value(U&& result) {
    value.emplace(std::forward<U>(result));
  }
  T take_result() {
    if (exception) std::rethrow_exception(exception);
    LOCKSIM_ASSERT(value.has_value(), "task finished without a value");
    return std::move(*value);
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  void return_void() noexcept {}
  void take_result() {
    if (exception) std::rethrow_exception(exception);
  }
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Task {
 public:
  struct promise_type : detail::TaskPromise<T> {
    Task get_return_object() { return Task{std::coroutine_handle<promise_type>::from_promise(*this)}; }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task(Task&& other) noexcept : handle_{std::exchange(other.handle_, {})} {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { destroy(); }

  struct Awaiter {
    Handle handle;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
      handle.promise().continuation = awaiting;
      return handle;
    }
    T await_resume() { return handle.promise().take_result(); }
  };
  Awaiter operator co_await() && {
    LOCKSIM_ASSERT(handle_, "awaiting an empty task");
    return Awaiter{handle_};
  }

  // Gives up ownership of the frame (the Simulation takes it for a process).
  Handle release() { return std::exchange(handle_, {}); }

 private:
  explicit Task(Handle handle) : handle_{handle} {}
  void destroy() {
    if (handle_) {
      handle_.destroy();
      handle_ = {};
    }
  }
  Handle handle_;
};

}  // namespace locksim::sim
