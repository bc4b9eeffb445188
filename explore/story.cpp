#include "explore/story.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/duration_text.h"

namespace locksim::explore {
namespace {

using nlohmann::json;

// Stories longer than this keep their last lines, the ones nearest the violation.
constexpr std::size_t kLongestStory = 14;

std::string text_of(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string field(const json& event, const char* name) {
  return event.contains(name) ? text_of(event[name]) : std::string{"?"};
}

std::string nanos_field(const json& event, const char* name) {
  if (!event.contains(name) || !event[name].is_number_integer()) return "?";
  return sim::format_duration(sim::Duration::nanoseconds(event[name].get<std::int64_t>()));
}

std::string token_note(const json& event) {
  return event.contains("token") ? fmt::format(" (token {})", text_of(event["token"])) : std::string{};
}

std::string fault_begins(const json& event) {
  const std::string kind = field(event, "kind");
  const std::string target = event.contains("target") ? text_of(event["target"]) : std::string{"the network"};
  if (kind == "pause") return fmt::format("{} freezes for {}", target, nanos_field(event, "for_ns"));
  if (kind == "crash" || kind == "power-loss") return fmt::format("{} {}", target, kind == "crash" ? "crashes" : "loses power");
  if (kind == "clock-jump") return fmt::format("{}'s wall clock jumps by {}", target, nanos_field(event, "by_ns"));
  if (kind == "partition") return fmt::format("the network splits {} for {}", field(event, "between"), nanos_field(event, "for_ns"));
  if (kind == "failover" && field(event, "primary") == "partition") {
    return fmt::format("split brain: the network splits {} for {}; Sentinel will promote the replica", field(event, "between"),
                       nanos_field(event, "for_ns"));
  }
  if (kind == "failover") return fmt::format("the primary {} crashes; Sentinel will promote the replica", target);
  if (kind == "delay-spike") {
    return fmt::format("messages of {} take {} longer for {}", target, nanos_field(event, "extra_ns"), nanos_field(event, "for_ns"));
  }
  return fmt::format("fault {} hits {}", kind, target);
}

std::string fault_ends(const json& event) {
  const std::string kind = field(event, "kind");
  const std::string target = event.contains("target") ? text_of(event["target"]) : std::string{"the network"};
  if (kind == "pause") return fmt::format("{} wakes up", target);
  return fmt::format("{} on {} ends", kind, target);
}

// The last accepted write of each key, to say what a write overwrote.
using LastWrites = std::map<std::string, std::string>;

std::string overwrite_note(const json& event, LastWrites& last_writes) {
  const std::string key = field(event, "key");
  const std::string now = fmt::format("{}={} from {}", key, field(event, "value"), field(event, "writer"));
  const auto previous = last_writes.find(key);
  std::string note = previous == last_writes.end() ? std::string{} : fmt::format(", overwriting {}", previous->second);
  last_writes[key] = now;
  return note;
}

std::string phrase(const json& event, LastWrites& last_writes) {
  const std::string ev = field(event, "ev");
  const std::string proc = field(event, "proc");
  if (ev == "acquire.ok") {
    if (event.contains("validity_ns")) {
      // Redlock: the TTL asked for, and what was left of it when the round ended.
      return fmt::format("{} acquires {}{}, lease {}, valid {}", proc, field(event, "lock"), token_note(event),
                         nanos_field(event, "lease_ns"), nanos_field(event, "validity_ns"));
    }
    return fmt::format("{} acquires {}{}, lease {}", proc, field(event, "lock"), token_note(event), nanos_field(event, "lease_ns"));
  }
  if (ev == "fault.begin") return fault_begins(event);
  if (ev == "fault.end") return fault_ends(event);
  if (ev == "lease.grant") return fmt::format("{} grants {} to {}{}", proc, field(event, "lock"), field(event, "owner"), token_note(event));
  if (ev == "lease.expire") return fmt::format("{}: {}'s lease{} expires", proc, field(event, "owner"), token_note(event));
  if (ev == "lease.lost") {
    return fmt::format("{}: {}'s lease{} is lost ({})", proc, field(event, "owner"), token_note(event), field(event, "reason"));
  }
  if (ev == "run.end") return "the run ends";
  if (ev == "replica.promote") return fmt::format("{} is promoted to primary", proc);
  if (ev == "hold.begin") return fmt::format("{} starts acting as the holder{}", proc, token_note(event));
  if (ev == "hold.end") return fmt::format("{} stops acting as the holder ({})", proc, field(event, "reason"));
  if (ev == "read.ok") return fmt::format("{} reads {} = {}", proc, field(event, "key"), field(event, "value"));
  if (ev == "read.accept") return fmt::format("storage serves {}'s read of {}{}", field(event, "reader"), field(event, "key"), token_note(event));
  if (ev == "write.invoke") return fmt::format("{} writes {}={}{}", proc, field(event, "key"), field(event, "value"), token_note(event));
  if (ev == "write.accept") {
    return fmt::format("storage accepts {}'s write {}={}{}{}", field(event, "writer"), field(event, "key"), field(event, "value"),
                       token_note(event), overwrite_note(event, last_writes));
  }
  if (ev == "write.reject") {
    return fmt::format("storage rejects {}'s write {}={}: {}", field(event, "writer"), field(event, "key"), field(event, "value"),
                       field(event, "reason"));
  }
  if (ev == "effect.accept") return fmt::format("{} carries out {} for {}", proc, field(event, "job"), field(event, "writer"));
  return fmt::format("{} {}", proc, ev);
}

bool tells_the_story(const json& event) {
  static const std::set<std::string> kEvents{"lease.grant", "acquire.ok", "fault.begin", "fault.end", "lease.expire", "lease.lost",
                                             "replica.promote", "read.ok",    "write.accept", "write.reject", "effect.accept"};
  return kEvents.contains(field(event, "ev"));
}

}  // namespace

std::vector<std::string> story(const std::vector<std::string>& history, const checker::Violation& violation) {
  struct Line {
    std::string text;
    bool essential;  // a fault, an acquisition, or the violation's evidence: kept when the story is cut
  };
  std::vector<Line> lines;
  LastWrites last_writes;
  for (const std::string& line : history) {
    const json event = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains("i") || !event.contains("t")) continue;
    const std::int64_t index = event["i"].get<std::int64_t>();
    if (index > violation.detected_at) break;
    const bool evidence = std::binary_search(violation.events.begin(), violation.events.end(), index);
    if (!evidence && !tells_the_story(event)) continue;
    const std::string ev = field(event, "ev");
    // Milliseconds read best in a story; the checker's line below keeps every digit.
    const double seconds = static_cast<double>(event["t"].get<std::int64_t>()) / 1e9;
    lines.push_back({fmt::format("{:>9.3f}s  {}", seconds, phrase(event, last_writes)),
                     evidence || ev.starts_with("fault.") || ev == "acquire.ok"});
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

}  // namespace locksim::explore
