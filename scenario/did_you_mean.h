#pragma once
// "Did you mean" for near misses: unknown scenario keys, node names, JSON
// pointers given to `locksim explain`. One edit distance for all of them.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::scenario {

// Levenshtein distance: insertions, deletions and substitutions of one byte.
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `wrong` if it is a near miss (fewer than
// `max_distance` edits; the first of equals wins), else "".
[[nodiscard]] std::string nearest_candidate(std::string_view wrong, const std::vector<std::string>& candidates,
                                            std::size_t max_distance = 3);

}  // namespace locksim::scenario
