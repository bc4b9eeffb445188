#include "verify/landing.h"

#include <algorithm>

namespace locksim::verify {

Landings landings_ahead(const std::vector<ChoicePoint>& points, const std::vector<StorageAccess>& accesses,
                        std::size_t from) {
  Landings ahead;
  for (std::size_t position = from; position < points.size(); ++position) {
    const ChoicePoint& point = points[position];
    if (!point.to_storage) continue;
    // Accesses are recorded in time order: the first after the draw by someone else.
    auto next = std::upper_bound(accesses.begin(), accesses.end(), point.at,
                                 [](sim::Time at, const StorageAccess& access) { return at < access.at; });
    next = std::find_if(next, accesses.end(),
                        [&](const StorageAccess& access) { return access.worker != point.to_storage->sender; });
    if (next != accesses.end()) ahead.emplace(position, Landing{next->at - point.at, next->worker});
  }
  return ahead;
}

std::uint32_t domain_size(const std::vector<ChoicePoint>& points, std::size_t position, const Landings& ahead,
                          const DomainOptions& options) {
  const ChoicePoint& point = points[position];
  const auto landing = ahead.find(position);
  if (!point.to_storage || landing == ahead.end()) return point.domain_size;
  // A delay has no lease to race: its domain is the distribution's and the landing's.
  return static_cast<std::uint32_t>(
      duration_domain(point.to_storage->distribution, std::nullopt, options, landing->second).size());
}

}  // namespace locksim::verify
