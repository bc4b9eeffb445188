#pragma once
// Where a message to storage is critical: landing just before or just after
// another worker's next storage access — the late write of a holder whose
// lease ran out, against the first write of the next. That access lies ahead
// of the draw, so it is read from a run already made: the run with the same
// choices up to the draw and none after it, which is the run the search
// deviates from (the parent of its children) and the run replay makes first.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "verify/choice_domain.h"
#include "verify/scripted_chooser.h"

namespace locksim::verify {

// For each delay to storage at or after position `from` of a run: how long
// after its draw another worker's next storage access came, and whose.
[[nodiscard]] Landings landings_ahead(const std::vector<ChoicePoint>& points,
                                      const std::vector<StorageAccess>& accesses, std::size_t from);

// The size of the domain at `position` once its landing (if `ahead` has one) is known.
[[nodiscard]] std::uint32_t domain_size(const std::vector<ChoicePoint>& points, std::size_t position,
                                        const Landings& ahead, const DomainOptions& options);

}  // namespace locksim::verify
