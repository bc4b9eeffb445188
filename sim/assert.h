#pragma once
// LOCKSIM_ASSERT: a check for a bug in locksim itself. It stays on in release
// builds (as FoundationDB's ASSERT does): a simulator that keeps running after
// its own invariant broke would produce histories nobody can trust.

#include <cstdio>
#include <cstdlib>

namespace locksim::detail {
[[noreturn]] inline void assertion_failed(const char* condition, const char* message, const char* file,
                                          int line) {
  std::fprintf(stderr, "locksim: internal error: %s:%d: assertion `%s` failed: %s\n", file, line, condition,
               message);
  std::abort();
}
}  // namespace locksim::detail

#define LOCKSIM_ASSERT(condition, message)                                          \
  do {                                                                              \
    if (!(condition)) [[unlikely]] {                                                \
      ::locksim::detail::assertion_failed(#condition, message, __FILE__, __LINE__); \
    }                                                                               \
  } while (false)
