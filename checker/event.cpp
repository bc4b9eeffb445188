#include "checker/event.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

namespace locksim::checker {
namespace {

using NamedKind = std::pair<std::string_view, EventKind>;

// One entry per kind, sorted by name (kept sorted so the list reads like the spec's index).
constexpr std::array kNamedKinds = {
    NamedKind{"acquire.fail", EventKind::kAcquireFail},
    NamedKind{"acquire.give_up", EventKind::kAcquireGiveUp},
    NamedKind{"acquire.invoke", EventKind::kAcquireInvoke},
    NamedKind{"acquire.ok", EventKind::kAcquireOk},
    NamedKind{"crash", EventKind::kCrash},
    NamedKind{"effect.accept", EventKind::kEffectAccept},
    NamedKind{"effect.fail", EventKind::kEffectFail},
    NamedKind{"effect.invoke", EventKind::kEffectInvoke},
    NamedKind{"effect.ok", EventKind::kEffectOk},
    NamedKind{"effect.reject", EventKind::kEffectReject},
    NamedKind{"fault.begin", EventKind::kFaultBegin},
    NamedKind{"fault.end", EventKind::kFaultEnd},
    NamedKind{"hold.begin", EventKind::kHoldBegin},
    NamedKind{"hold.end", EventKind::kHoldEnd},
    NamedKind{"lease.adopt", EventKind::kLeaseAdopt},
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

// `name` == `known`, for a `name` already known to have the same length.
template <std::size_t Size>
bool equals(std::string_view name, const char (&known)[Size]) {
  return std::memcmp(name.data(), known, Size - 1) == 0;
}

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
  // By length, then bytes compared with a size known at compile time (a
  // few integer compares): this runs once per line of every history.
  switch (name.size()) {
    case 5:
      if (equals(name, "crash")) return EventKind::kCrash;
      break;
    case 7:
      if (equals(name, "read.ok")) return EventKind::kReadOk;
      if (equals(name, "restart")) return EventKind::kRestart;
      if (equals(name, "run.end")) return EventKind::kRunEnd;
      break;
    case 8:
      if (equals(name, "hold.end")) return EventKind::kHoldEnd;
      if (equals(name, "renew.ok")) return EventKind::kRenewOk;
      if (equals(name, "write.ok")) return EventKind::kWriteOk;
      break;
    case 9:
      if (equals(name, "effect.ok")) return EventKind::kEffectOk;
      if (equals(name, "fault.end")) return EventKind::kFaultEnd;
      if (equals(name, "run.begin")) return EventKind::kRunBegin;
      break;
    case 10:
      if (equals(name, "acquire.ok")) return EventKind::kAcquireOk;
      if (equals(name, "hold.begin")) return EventKind::kHoldBegin;
      if (equals(name, "lease.lost")) return EventKind::kLeaseLost;
      if (equals(name, "release.ok")) return EventKind::kReleaseOk;
      if (equals(name, "renew.fail")) return EventKind::kRenewFail;
      if (equals(name, "write.fail")) return EventKind::kWriteFail;
      break;
    case 11:
      if (equals(name, "effect.fail")) return EventKind::kEffectFail;
      if (equals(name, "fault.begin")) return EventKind::kFaultBegin;
      if (equals(name, "lease.adopt")) return EventKind::kLeaseAdopt;
      if (equals(name, "lease.grant")) return EventKind::kLeaseGrant;
      if (equals(name, "lease.renew")) return EventKind::kLeaseRenew;
      if (equals(name, "read.accept")) return EventKind::kReadAccept;
      if (equals(name, "read.invoke")) return EventKind::kReadInvoke;
      if (equals(name, "read.reject")) return EventKind::kReadReject;
      break;
    case 12:
      if (equals(name, "acquire.fail")) return EventKind::kAcquireFail;
      if (equals(name, "lease.expire")) return EventKind::kLeaseExpire;
      if (equals(name, "release.fail")) return EventKind::kReleaseFail;
      if (equals(name, "renew.invoke")) return EventKind::kRenewInvoke;
      if (equals(name, "write.accept")) return EventKind::kWriteAccept;
      if (equals(name, "write.invoke")) return EventKind::kWriteInvoke;
      if (equals(name, "write.reject")) return EventKind::kWriteReject;
      break;
    case 13:
      if (equals(name, "effect.accept")) return EventKind::kEffectAccept;
      if (equals(name, "effect.invoke")) return EventKind::kEffectInvoke;
      if (equals(name, "effect.reject")) return EventKind::kEffectReject;
      if (equals(name, "lease.release")) return EventKind::kLeaseRelease;
      break;
    case 14:
      if (equals(name, "acquire.invoke")) return EventKind::kAcquireInvoke;
      if (equals(name, "release.invoke")) return EventKind::kReleaseInvoke;
      break;
    case 15:
      if (equals(name, "acquire.give_up")) return EventKind::kAcquireGiveUp;
      if (equals(name, "replica.promote")) return EventKind::kReplicaPromote;
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace locksim::checker
