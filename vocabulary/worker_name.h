#pragma once
// Workers' `proc` names: worker-1 … worker-N, numbered from 1 in the order a
// system adds them (docs/history-format.md).

#include <charconv>
#include <string>
#include <string_view>

namespace locksim::vocabulary {

inline constexpr std::string_view kWorkerPrefix = "worker-";

[[nodiscard]] inline std::string worker_name(int number) { return std::string{kWorkerPrefix} + std::to_string(number); }

[[nodiscard]] inline bool is_worker(std::string_view proc) { return proc.starts_with(kWorkerPrefix); }

// worker-3 → 3; 0 for a name that is not a worker's.
[[nodiscard]] inline int worker_number(std::string_view proc) {
  if (!is_worker(proc)) return 0;
  const std::string_view digits = proc.substr(kWorkerPrefix.size());
  int number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  return error == std::errc{} && end == digits.data() + digits.size() ? number : 0;
}

}  // namespace locksim::vocabulary
