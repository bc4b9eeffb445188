#include "checker/event.h"

#include <cstdint>

#include <fmt/format.h>

#include "text/json_string.h"
#include "vocabulary/field_name.h"
#include "vocabulary/same_bytes.h"

namespace locksim::checker {
namespace {

// `name` == `Known`, for a `name` already known to have Known's length.
template <const auto& Known>
bool is(std::string_view name) {
  return vocabulary::same_bytes<sizeof(Known) - 1>(name.data(), Known);
}

}  // namespace

EventField event_field_from_name(std::string_view name) {
  using namespace vocabulary::field;
  // By length and bytes, not by a chain of string compares: this runs for
  // every field of every line.
  static_assert(sizeof(kIndex) == 2 && sizeof(kTime) == 2 && sizeof(kEvent) == 3 && sizeof(kBy) == 3);
  switch (name.size()) {
    case 1:
      return name[0] == kIndex[0] ? EventField::kIndex : name[0] == kTime[0] ? EventField::kTime : EventField::kUnknown;
    case 2:
      return is<kEvent>(name) ? EventField::kEvent : is<kBy>(name) ? EventField::kBy : EventField::kUnknown;
    case 3:
      return is<kKey>(name) ? EventField::kKey : is<kJob>(name) ? EventField::kJob : EventField::kUnknown;
    case 4:
      return is<kProc>(name) ? EventField::kProcess : is<kLock>(name) ? EventField::kLock : EventField::kUnknown;
    case 5:
      return is<kOwner>(name)   ? EventField::kOwner
             : is<kToken>(name) ? EventField::kToken
             : is<kValue>(name) ? EventField::kValue
             : is<kFinal>(name) ? EventField::kFinal
                                : EventField::kUnknown;
    case 6:
      return is<kWriter>(name)   ? EventField::kWriter
             : is<kReason>(name) ? EventField::kReason
             : is<kReader>(name) ? EventField::kReader
                                 : EventField::kUnknown;
    case 7:
      return is<kService>(name) ? EventField::kService : EventField::kUnknown;
    case 8:
      return is<kLeaseNs>(name)    ? EventField::kLeaseNs
             : is<kWorkload>(name) ? EventField::kWorkload
                                   : EventField::kUnknown;
    case 10:
      return is<kRequestId>(name) ? EventField::kRequestId : EventField::kUnknown;
    case 14:
      return is<kStuckAfterNs>(name) ? EventField::kStuckAfterNs : EventField::kUnknown;
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
  constexpr Required kLock{vocabulary::field::kLock, "the lock's name, a string"};
  constexpr Required kOwner{vocabulary::field::kOwner, "the worker the lease belongs to, a string"};
  constexpr Required kBy{vocabulary::field::kBy, "who asked for the release, a string"};
  constexpr Required kKey{vocabulary::field::kKey, "the storage key, a string"};
  constexpr Required kWriter{vocabulary::field::kWriter, "the worker whose write it was, a string"};
  constexpr Required kReader{vocabulary::field::kReader, "the worker whose read it was, a string"};
  constexpr Required kReason{vocabulary::field::kReason, "why storage rejected the write, a string"};
  constexpr Required kJob{vocabulary::field::kJob, "the job the effect is for, a string or an integer"};
  constexpr Required kEffectReason{vocabulary::field::kReason, "why the service dropped the effect, a string"};
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
