#include "checker/event.h"

#include <algorithm>
#include <array>
#include <utility>

namespace locksim::checker {
namespace {

using NamedKind = std::pair<std::string_view, EventKind>;

// Sorted by name, so that a lookup is a binary search.
constexpr std::array kNamedKinds = {
    NamedKind{"acquire.fail", EventKind::kAcquireFail},
    NamedKind{"acquire.invoke", EventKind::kAcquireInvoke},
    NamedKind{"acquire.ok", EventKind::kAcquireOk},
    NamedKind{"crash", EventKind::kCrash},
    NamedKind{"fault.begin", EventKind::kFaultBegin},
    NamedKind{"fault.end", EventKind::kFaultEnd},
    NamedKind{"hold.begin", EventKind::kHoldBegin},
    NamedKind{"hold.end", EventKind::kHoldEnd},
    NamedKind{"lease.expire", EventKind::kLeaseExpire},
    NamedKind{"lease.grant", EventKind::kLeaseGrant},
    NamedKind{"lease.lost", EventKind::kLeaseLost},
    NamedKind{"lease.release", EventKind::kLeaseRelease},
    NamedKind{"lease.renew", EventKind::kLeaseRenew},
    NamedKind{"read.accept", EventKind::kReadAccept},
    NamedKind{"read.invoke", EventKind::kReadInvoke},
    NamedKind{"read.ok", EventKind::kReadOk},
    NamedKind{"read.reject", EventKind::kReadReject},
    NamedKind{"release.fail", EventKind::kReleaseFail},
    NamedKind{"release.invoke", EventKind::kReleaseInvoke},
    NamedKind{"release.ok", EventKind::kReleaseOk},
    NamedKind{"renew.fail", EventKind::kRenewFail},
    NamedKind{"renew.invoke", EventKind::kRenewInvoke},
    NamedKind{"renew.ok", EventKind::kRenewOk},
    NamedKind{"replica.promote", EventKind::kReplicaPromote},
    NamedKind{"restart", EventKind::kRestart},
    NamedKind{"run.begin", EventKind::kRunBegin},
    NamedKind{"run.end", EventKind::kRunEnd},
    NamedKind{"write.accept", EventKind::kWriteAccept},
    NamedKind{"write.fail", EventKind::kWriteFail},
    NamedKind{"write.invoke", EventKind::kWriteInvoke},
    NamedKind{"write.ok", EventKind::kWriteOk},
    NamedKind{"write.reject", EventKind::kWriteReject},
};

static_assert(std::is_sorted(kNamedKinds.begin(), kNamedKinds.end(),
                             [](const NamedKind& left, const NamedKind& right) { return left.first < right.first; }));
static_assert(kNamedKinds.size() == static_cast<std::size_t>(EventKind::kFaultEnd) + 1, "every kind has a name");

}  // namespace

std::string_view event_kind_name(EventKind kind) {
  for (const auto& [name, named_kind] : kNamedKinds) {
    if (named_kind == kind) {
      return name;
    }
  }
  return "?";
}

std::optional<EventKind> event_kind_from_name(std::string_view name) {
  const auto found = std::lower_bound(kNamedKinds.begin(), kNamedKinds.end(), name,
                                      [](const NamedKind& entry, std::string_view wanted) { return entry.first < wanted; });
  if (found == kNamedKinds.end() || found->first != name) {
    return std::nullopt;
  }
  return found->second;
}

}  // namespace locksim::checker
