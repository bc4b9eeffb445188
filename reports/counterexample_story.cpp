#include "reports/counterexample_story.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <optional>

#include "checker/history_line.h"
#include "sim/duration_text.h"
#include "vocabulary/event_kind.h"
#include "vocabulary/fault_kind.h"
#include "vocabulary/field_name.h"

namespace locksim::reports {

using vocabulary::EventKind;
using vocabulary::FaultKind;
namespace field = vocabulary::field;

namespace {

using checker::HistoryLine;

// Stories longer than this keep their last lines, the ones nearest the violation.
constexpr std::size_t kLongestStory = 14;

std::string text_at(const HistoryLine& event, const char* name) {
  const checker::HistoryField* found = event.field(name);
  return found == nullptr ? std::string{"?"} : found->text;
}

std::string nanos_field(const HistoryLine& event, const char* name) {
  const std::optional<std::int64_t> nanos = event.integer(name);
  return nanos ? sim::format_duration(sim::Duration::nanoseconds(*nanos)) : std::string{"?"};
}

std::string token_note(const HistoryLine& event) {
  return event.field(field::kToken) != nullptr ? fmt::format(" (token {})", text_at(event, field::kToken)) : std::string{};
}

std::string target_of(const HistoryLine& event) {
  return event.field(field::kTarget) != nullptr ? text_at(event, field::kTarget) : std::string{"the network"};
}

std::string fault_begins(const HistoryLine& event) {
  const std::string kind = text_at(event, field::kKind);
  const std::string target = target_of(event);
  const std::optional<FaultKind> known = vocabulary::fault_kind_from_name(kind);
  switch (known.value_or(FaultKind::kMemoryPressure)) {
    case FaultKind::kPause:
      return fmt::format("{} freezes for {}", target, nanos_field(event, field::kForNs));
    case FaultKind::kCrash:
      return fmt::format("{} crashes", target);
    case FaultKind::kPowerLoss:
      return fmt::format("{} loses power", target);
    case FaultKind::kClockJump:
      return fmt::format("{}'s wall clock jumps by {}", target, nanos_field(event, field::kByNs));
    case FaultKind::kPartition:
      return fmt::format("the network splits {} for {}", text_at(event, field::kBetween),
                         nanos_field(event, field::kForNs));
    case FaultKind::kFailover:
      if (text_at(event, field::kPrimary) == vocabulary::kFailoverPrimaryPartition) {
        return fmt::format("split brain: the network splits {} for {}; Sentinel will promote the replica",
                           text_at(event, field::kBetween), nanos_field(event, field::kForNs));
      }
      return fmt::format("the primary {} crashes; Sentinel will promote the replica", target);
    case FaultKind::kDelaySpike:
      return fmt::format("messages of {} take {} longer for {}", target, nanos_field(event, field::kExtraNs),
                         nanos_field(event, field::kForNs));
    case FaultKind::kMemoryPressure: {
      const std::string keys = text_at(event, field::kEvict);
      const std::string evict = fmt::format("{} must free room for {} {} by its maxmemory policy", target, keys,
                                            keys == "1" ? "key" : "keys");
      if (event.integer(field::kForNs).value_or(0) == 0) return evict;
      return fmt::format("{}; what it cannot free keeps it full for {}", evict, nanos_field(event, field::kForNs));
    }
    default:
      return fmt::format("fault {} hits {}", kind, target);
  }
}

std::string fault_ends(const HistoryLine& event) {
  const std::string kind = text_at(event, field::kKind);
  if (vocabulary::fault_kind_from_name(kind) == FaultKind::kPause) return fmt::format("{} wakes up", target_of(event));
  return fmt::format("{} on {} ends", kind, target_of(event));
}

// The last accepted write of each key, to say what a write overwrote.
using LastWrites = std::map<std::string, std::string>;

std::string overwrite_note(const HistoryLine& event, LastWrites& last_writes) {
  const std::string key = text_at(event, field::kKey);
  const std::string now =
      fmt::format("{}={} from {}", key, text_at(event, field::kValue), text_at(event, field::kWriter));
  const auto previous = last_writes.find(key);
  std::string note = previous == last_writes.end() ? std::string{} : fmt::format(", overwriting {}", previous->second);
  last_writes[key] = now;
  return note;
}

std::string acquired(const HistoryLine& event, const std::string& proc) {
  if (event.field(field::kValidityNs) != nullptr) {
    // Redlock: the TTL asked for, and what was left of it when the round ended.
    return fmt::format("{} acquires {}{}, lease {}, valid {}", proc, text_at(event, field::kLock), token_note(event),
                       nanos_field(event, field::kLeaseNs), nanos_field(event, field::kValidityNs));
  }
  return fmt::format("{} acquires {}{}, lease {}", proc, text_at(event, field::kLock), token_note(event),
                     nanos_field(event, field::kLeaseNs));
}

std::string phrase(const HistoryLine& event, EventKind kind, LastWrites& last_writes) {
  const std::string& proc = event.proc;
  const auto of = [&event](const char* name) { return text_at(event, name); };
  switch (kind) {
    case EventKind::kAcquireOk:
      return acquired(event, proc);
    case EventKind::kFaultBegin:
      return fault_begins(event);
    case EventKind::kFaultEnd:
      return fault_ends(event);
    case EventKind::kLeaseGrant:
      return fmt::format("{} grants {} to {}{}", proc, of(field::kLock), of(field::kOwner), token_note(event));
    case EventKind::kLeaseExpire:
      return fmt::format("{}: {}'s lease{} expires", proc, of(field::kOwner), token_note(event));
    case EventKind::kLeaseLost:
      return fmt::format("{}: {}'s lease{} is lost ({})", proc, of(field::kOwner), token_note(event),
                         of(field::kReason));
    case EventKind::kRunEnd:
      return "the run ends";
    case EventKind::kReplicaPromote:
      return fmt::format("{} is promoted to primary", proc);
    case EventKind::kHoldBegin:
      return fmt::format("{} starts acting as the holder{}", proc, token_note(event));
    case EventKind::kHoldEnd:
      return fmt::format("{} stops acting as the holder ({})", proc, of(field::kReason));
    case EventKind::kReadOk:
      return fmt::format("{} reads {} = {}", proc, of(field::kKey), of(field::kValue));
    case EventKind::kReadAccept:
      return fmt::format("storage serves {}'s read of {}{}", of(field::kReader), of(field::kKey), token_note(event));
    case EventKind::kWriteInvoke:
      return fmt::format("{} writes {}={}{}", proc, of(field::kKey), of(field::kValue), token_note(event));
    case EventKind::kWriteAccept:
      return fmt::format("storage accepts {}'s write {}={}{}{}", of(field::kWriter), of(field::kKey), of(field::kValue),
                         token_note(event), overwrite_note(event, last_writes));
    case EventKind::kWriteReject:
      return fmt::format("storage rejects {}'s write {}={}: {}", of(field::kWriter), of(field::kKey), of(field::kValue),
                         of(field::kReason));
    case EventKind::kEffectAccept:
      return fmt::format("{} carries out {} for {}", proc, of(field::kJob), of(field::kWriter));
    default:
      return fmt::format("{} {}", proc, vocabulary::event_kind_name(kind));
  }
}

// The harm the violation's last event does, in the story's words, so that a
// story ends with what went wrong ("a double charge"), not with a write.
std::string harm_note(const checker::Violation& violation, const HistoryLine& event) {
  switch (violation.kind) {
    case checker::ViolationKind::kDuplicateEffect:
      // Jobs and their effects are billing's: the customer's charge, in storage or at the payments API.
      return fmt::format(" — job {} a second time: a double charge", text_at(event, field::kJob));
    case checker::ViolationKind::kStaleWrite:
      return " — a stale write";
    default:
      return {};
  }
}

bool tells_the_story(EventKind kind) {
  switch (kind) {
    case EventKind::kLeaseGrant:
    case EventKind::kAcquireOk:
    case EventKind::kFaultBegin:
    case EventKind::kFaultEnd:
    case EventKind::kLeaseExpire:
    case EventKind::kLeaseLost:
    case EventKind::kReplicaPromote:
    case EventKind::kReadOk:
    case EventKind::kWriteAccept:
    case EventKind::kWriteReject:
    case EventKind::kEffectAccept:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string> counterexample_story(const std::vector<std::string>& history,
                                              const checker::Violation& violation) {
  struct Line {
    std::string text;
    bool essential;  // a fault, an acquisition, or the violation's evidence: kept when the story is cut
  };
  std::vector<Line> lines;
  LastWrites last_writes;
  for (const std::string& text : history) {
    const HistoryLine event = checker::read_history_line(text);
    if (!event.kind) continue;
    if (event.index > violation.detected_at) break;
    const bool evidence = std::binary_search(violation.events.begin(), violation.events.end(), event.index);
    if (!evidence && !tells_the_story(*event.kind)) continue;
    // Milliseconds read best in a story; the checker's line below keeps every digit.
    const double seconds = static_cast<double>(event.time_ns) / 1e9;
    const bool essential = evidence || vocabulary::emitter_of(*event.kind) == vocabulary::Emitter::kNemesis ||
                           *event.kind == EventKind::kAcquireOk;
    std::string told = phrase(event, *event.kind, last_writes);
    if (evidence && event.index == violation.events.back()) told += harm_note(violation, event);
    lines.push_back({fmt::format("{:>9.3f}s  {}", seconds, told), essential});
  }
  // Too long: leave out the earliest lines that are not essential, then, if
  // need be, the earliest of the rest.
  for (auto line = lines.begin(); lines.size() > kLongestStory && line != lines.end();) {
    line = line->essential ? line + 1 : lines.erase(line);
  }
  if (lines.size() > kLongestStory) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(kLongestStory));
  std::vector<std::string> told;
  for (Line& line : lines) told.push_back(std::move(line.text));
  told.push_back(violation.detail);
  return told;
}

}  // namespace locksim::reports
