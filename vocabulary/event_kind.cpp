#include "vocabulary/event_kind.h"

#include "vocabulary/same_bytes.h"

namespace locksim::vocabulary {
namespace {

// `name` == `known`, for a `name` already known to have the same length.
template <std::size_t Size>
bool equals(std::string_view name, const char (&known)[Size]) {
  return same_bytes<Size - 1>(name.data(), known);
}

}  // namespace

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

}  // namespace locksim::vocabulary
