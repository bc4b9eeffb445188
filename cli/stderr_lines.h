#pragma once
// Warnings and errors go to stderr after everything already printed to
// stdout. Piped, stdout is buffered and stderr is not, so in a CI log that
// merges the two (2>&1) a message would otherwise land inside the table.

#include <cstdio>
#include <utility>

#include <fmt/format.h>

namespace locksim::cli {

template <class... Args>
void print_to_stderr(fmt::format_string<Args...> format, Args&&... args) {
  std::fflush(stdout);
  fmt::print(stderr, format, std::forward<Args>(args)...);
}

}  // namespace locksim::cli
