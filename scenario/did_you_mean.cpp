#include "scenario/did_you_mean.h"

#include <algorithm>

namespace locksim::scenario {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string nearest_candidate(std::string_view wrong, const std::vector<std::string>& candidates,
                              std::size_t max_distance) {
  std::string best;
  std::size_t best_distance = max_distance;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(wrong, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace locksim::scenario
