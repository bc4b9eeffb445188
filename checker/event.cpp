#include "checker/event.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "checker/same_bytes.h"
#include "text/json_string.h"

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
  return same_bytes<Size - 1>(name.data(), known);
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

EventField event_field_from_name(std::string_view name) {
  // By length and bytes, not by a chain of string compares: this runs for
  // every field of every line.
  const auto is = [&](const auto& known) { return equals(name, known); };
  switch (name.size()) {
    case 1: return name[0] == 'i' ? EventField::kIndex : name[0] == 't' ? EventField::kTime : EventField::kUnknown;
    case 2: return is("ev") ? EventField::kEvent : is("by") ? EventField::kBy : EventField::kUnknown;
    case 3: return is("key") ? EventField::kKey : is("job") ? EventField::kJob : EventField::kUnknown;
    case 4: return is("proc") ? EventField::kProcess : is("lock") ? EventField::kLock : EventField::kUnknown;
    case 5:
      return is("owner")   ? EventField::kOwner
             : is("token") ? EventField::kToken
             : is("value") ? EventField::kValue
             : is("final") ? EventField::kFinal
                           : EventField::kUnknown;
    case 6:
      return is("writer")   ? EventField::kWriter
             : is("reason") ? EventField::kReason
             : is("reader") ? EventField::kReader
                            : EventField::kUnknown;
    case 7: return is("service") ? EventField::kService : EventField::kUnknown;
    case 8: return is("lease_ns") ? EventField::kLeaseNs : is("workload") ? EventField::kWorkload : EventField::kUnknown;
    case 10: return is("request_id") ? EventField::kRequestId : EventField::kUnknown;
    case 14: return is("stuck_after_ns") ? EventField::kStuckAfterNs : EventField::kUnknown;
    default: return EventField::kUnknown;
  }
}

namespace {

// A required field: its name and, for the message, what it holds.
struct Required {
  std::string_view field;
  std::string_view meaning;
};

std::string missing(const Required& required, EventKind kind) {
  return fmt::format("expected field `{}` ({}) in a {} event", required.field, required.meaning,
                     event_kind_name(kind));
}

}  // namespace

std::optional<std::string> missing_required_field(const Event& event) {
  constexpr Required kLock{"lock", "the lock's name, a string"};
  constexpr Required kOwner{"owner", "the worker the lease belongs to, a string"};
  constexpr Required kBy{"by", "who asked for the release, a string"};
  constexpr Required kKey{"key", "the storage key, a string"};
  constexpr Required kWriter{"writer", "the worker whose write it was, a string"};
  constexpr Required kReader{"reader", "the worker whose read it was, a string"};
  constexpr Required kReason{"reason", "why storage rejected the write, a string"};
  constexpr Required kJob{"job", "the job the effect is for, a string or an integer"};
  constexpr Required kEffectReason{"reason", "why the service dropped the effect, a string"};
  const EventKind kind = event.kind;
  switch (kind) {
    case EventKind::kAcquireOk:
    case EventKind::kAcquireFail:
    case EventKind::kAcquireGiveUp:
    case EventKind::kHoldBegin:
    case EventKind::kHoldEnd:
      if (event.lock.empty()) return missing(kLock, kind);
      break;
    case EventKind::kLeaseGrant:
    case EventKind::kLeaseRenew:
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseLost:
    case EventKind::kLeaseAdopt:
    case EventKind::kLeaseRelease:
      if (event.lock.empty()) return missing(kLock, kind);
      if (event.owner.empty()) return missing(kOwner, kind);
      if (kind == EventKind::kLeaseRelease && event.by.empty()) return missing(kBy, kind);
      break;
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject:
      if (event.key.empty()) return missing(kKey, kind);
      if (event.writer.empty()) return missing(kWriter, kind);
      if (kind == EventKind::kWriteReject && event.reason.empty()) return missing(kReason, kind);
      break;
    case EventKind::kReadAccept:
    case EventKind::kReadReject:
      if (event.key.empty()) return missing(kKey, kind);
      if (event.reader.empty()) return missing(kReader, kind);
      break;
    case EventKind::kEffectAccept:
    case EventKind::kEffectReject:
      if (event.job.empty()) return missing(kJob, kind);
      if (event.writer.empty()) return missing(kWriter, kind);
      if (kind == EventKind::kEffectReject && event.reason.empty()) return missing(kEffectReason, kind);
      break;
    default:
      break;
  }
  return std::nullopt;
}

std::string json_string_literal(std::string_view value) {
  fmt::memory_buffer out;
  text::append_json_string(out, value);
  return fmt::to_string(out);
}

}  // namespace locksim::checker
