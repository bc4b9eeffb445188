#pragma once
// EventKind: every `ev` of a history (docs/history-format.md), with its text
// and who emits it. The one list of event names: the simulator's models and
// live mode write them, the checker, the oracle, explore and the reports read
// them, and all name an event by this enum — a misspelled name does not
// compile. (LevelDB keeps its log record types the same way, in one header
// both the writer and the reader include.)

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim::vocabulary {

enum class EventKind : std::uint8_t {
  kRunBegin,
  kRunEnd,
  kAcquireInvoke,
  kAcquireOk,
  kAcquireFail,
  kRenewInvoke,
  kRenewOk,
  kRenewFail,
  kReleaseInvoke,
  kReleaseOk,
  kReleaseFail,
  kHoldBegin,
  kHoldEnd,
  kReadInvoke,
  kReadOk,
  kWriteInvoke,
  kWriteOk,
  kWriteFail,
  kCrash,
  kRestart,
  kLeaseGrant,
  kLeaseRenew,
  kLeaseExpire,
  kLeaseRelease,
  kLeaseLost,
  kLeaseAdopt,
  kReplicaPromote,
  kWriteAccept,
  kWriteReject,
  kReadAccept,
  kReadReject,
  kAcquireGiveUp,  // a worker gave the job up: acquire timeout or tries ran out
  kEffectInvoke,   // a worker calls an external effect (the payments API)
  kEffectOk,
  kEffectFail,
  kEffectAccept,  // the external service performed the effect (no token is checked)
  kEffectReject,  // the external service dropped a repeated idempotency key
  kFaultBegin,
  kFaultEnd,
};

// Who records an event: the sections of docs/history-format.md.
enum class Emitter : std::uint8_t {
  kRun,       // proc `run`
  kWorker,    // proc = the worker
  kService,   // proc = a lock service instance
  kNode,      // a worker or a service instance (crash, restart)
  kStorage,   // proc `storage`
  kExternal,  // proc = the external service (payments)
  kNemesis,   // proc `nemesis`
};

// What a worker event is to its call: a call's invocation and its completion
// share a call id in live mode's worker lines (live/worker_line.h).
enum class CallPart : std::uint8_t { kNone, kInvoke, kCompletion };

struct EventInfo {
  EventKind kind;
  std::string_view name;
  Emitter emitter;
  CallPart call;
};

// In the enum's order: entry k describes kind k.
inline constexpr std::array kEvents{
    EventInfo{EventKind::kRunBegin, "run.begin", Emitter::kRun, CallPart::kNone},
    EventInfo{EventKind::kRunEnd, "run.end", Emitter::kRun, CallPart::kNone},
    EventInfo{EventKind::kAcquireInvoke, "acquire.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kAcquireOk, "acquire.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kAcquireFail, "acquire.fail", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kRenewInvoke, "renew.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kRenewOk, "renew.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kRenewFail, "renew.fail", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kReleaseInvoke, "release.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kReleaseOk, "release.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kReleaseFail, "release.fail", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kHoldBegin, "hold.begin", Emitter::kWorker, CallPart::kNone},
    EventInfo{EventKind::kHoldEnd, "hold.end", Emitter::kWorker, CallPart::kNone},
    EventInfo{EventKind::kReadInvoke, "read.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kReadOk, "read.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kWriteInvoke, "write.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kWriteOk, "write.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kWriteFail, "write.fail", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kCrash, "crash", Emitter::kNode, CallPart::kNone},
    EventInfo{EventKind::kRestart, "restart", Emitter::kNode, CallPart::kNone},
    EventInfo{EventKind::kLeaseGrant, "lease.grant", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kLeaseRenew, "lease.renew", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kLeaseExpire, "lease.expire", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kLeaseRelease, "lease.release", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kLeaseLost, "lease.lost", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kLeaseAdopt, "lease.adopt", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kReplicaPromote, "replica.promote", Emitter::kService, CallPart::kNone},
    EventInfo{EventKind::kWriteAccept, "write.accept", Emitter::kStorage, CallPart::kNone},
    EventInfo{EventKind::kWriteReject, "write.reject", Emitter::kStorage, CallPart::kNone},
    EventInfo{EventKind::kReadAccept, "read.accept", Emitter::kStorage, CallPart::kNone},
    EventInfo{EventKind::kReadReject, "read.reject", Emitter::kStorage, CallPart::kNone},
    EventInfo{EventKind::kAcquireGiveUp, "acquire.give_up", Emitter::kWorker, CallPart::kNone},
    EventInfo{EventKind::kEffectInvoke, "effect.invoke", Emitter::kWorker, CallPart::kInvoke},
    EventInfo{EventKind::kEffectOk, "effect.ok", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kEffectFail, "effect.fail", Emitter::kWorker, CallPart::kCompletion},
    EventInfo{EventKind::kEffectAccept, "effect.accept", Emitter::kExternal, CallPart::kNone},
    EventInfo{EventKind::kEffectReject, "effect.reject", Emitter::kExternal, CallPart::kNone},
    EventInfo{EventKind::kFaultBegin, "fault.begin", Emitter::kNemesis, CallPart::kNone},
    EventInfo{EventKind::kFaultEnd, "fault.end", Emitter::kNemesis, CallPart::kNone},
};

inline constexpr std::size_t kEventKindCount = kEvents.size();

namespace event_kind_detail {
constexpr bool in_enum_order() {
  for (std::size_t at = 0; at < kEvents.size(); ++at) {
    if (static_cast<std::size_t>(kEvents[at].kind) != at) return false;
  }
  return static_cast<std::size_t>(EventKind::kFaultEnd) + 1 == kEvents.size();
}
static_assert(in_enum_order(), "kEvents lists every kind once, in the enum's order");
}  // namespace event_kind_detail

[[nodiscard]] constexpr const EventInfo& event_info(EventKind kind) { return kEvents[static_cast<std::size_t>(kind)]; }
// The `ev` text for `kind`, e.g. "lease.grant".
[[nodiscard]] constexpr std::string_view event_kind_name(EventKind kind) { return event_info(kind).name; }
[[nodiscard]] constexpr Emitter emitter_of(EventKind kind) { return event_info(kind).emitter; }
// The kind whose `ev` text is `name`; nullopt for a name the contract lacks.
// Fast: the history reader calls it for every line.
[[nodiscard]] std::optional<EventKind> event_kind_from_name(std::string_view name);

}  // namespace locksim::vocabulary
