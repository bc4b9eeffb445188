#include "checker/stale_write_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace locksim::checker {
namespace {

// "qty=6": the key and, when the history has it, the value written.
std::string written(std::string_view key, std::string_view value_json) {
  if (value_json.empty()) {
    return std::string{key};
  }
  return fmt::format("{}={}", key, value_json);
}

std::string written(const Event& write) { return written(write.key, write.value_json); }

constexpr const char* kRead = "a read";
constexpr const char* kWrite = "a write";

}  // namespace

void StaleWriteCheck::TopTwo::offer(NameId owner, std::int64_t token) {
  if (first && first->first == owner) {
    first->second = std::max(first->second, token);
    return;
  }
  if (!first || token > first->second) {
    second = std::move(first);
    first = std::pair{owner, token};
    return;
  }
  if (!second || token > second->second) {
    second = std::pair{owner, token};
  }
}

std::optional<std::int64_t> StaleWriteCheck::TopTwo::best_other_than(NameId owner) const {
  const auto& best = first && first->first != owner ? first : second;
  return best ? std::optional{best->second} : std::nullopt;
}

void StaleWriteCheck::RecentGains::add(Standing standing) {
  ring[count % kKept] = std::move(standing);
  ++count;
}

const StaleWriteCheck::Standing& StaleWriteCheck::RecentGains::for_token(const Token& token) const {
  const std::size_t newest = (count - 1) % kKept;
  if (token.known()) {
    for (std::size_t back = 0; back < std::min(count, kKept); ++back) {
      const Standing& gain = ring[(newest + kKept - back) % kKept];
      if (gain.token == token) return gain;
    }
  }
  return ring[newest];
}

void StaleWriteCheck::observe_change(const QuorumChange& change) {
  if (change.direction == QuorumChange::Direction::kLost) {
    return;
  }
  WhiteBoxLock& lock = white_box_locks_[change.lock];
  ++lock.gains;
  gained_by_worker_[change.owner].add(Standing{change.lock, lock.gains, change.token, change.event_index});
}

void StaleWriteCheck::observe(const Event& event, const NameIds& names) {
  switch (event.kind) {
    case EventKind::kAcquireOk: {
      if (event.token) {
        black_box_locks_[event.lock_id].top.offer(event.process_id, *event.token);
      }
      acquired_by_worker_[event.process_id] = Standing{event.lock_id, 0, Token::of(event), event.index};
      break;
    }
    case EventKind::kReadAccept: serve_white_box(event.reader_id, event, kRead, ReadServes::kReadAccept); break;
    case EventKind::kReadOk:
      serve_white_box(event.process_id, event, kRead, ReadServes::kReadOk);
      serve_black_box(event.process_id, event, kRead);
      break;
    case EventKind::kWriteInvoke: invoke_black_box(event); break;
    case EventKind::kWriteAccept:
      judge_white_box(event, names);
      serve_white_box(event.writer_id, event, kWrite, ReadServes::kReadAccept);
      serve_white_box(event.writer_id, event, kWrite, ReadServes::kReadOk);
      judge_black_box(event.writer_id, event, Judged::kWriteAccept, names);
      break;
    case EventKind::kWriteOk:
      judge_black_box(event.process_id, event, Judged::kWriteOk, names);
      serve_black_box(event.process_id, event, kWrite);
      break;
    default: break;
  }
}

void StaleWriteCheck::Findings::add_stale(Violation violation, std::int64_t holding_index) {
  violation.incident = incident_by_holding.try_emplace(holding_index, violation.incident).first->second;
  violations.push_back(std::move(violation));
}

void StaleWriteCheck::Findings::add_late(std::int64_t write_index) {
  ++late_writes;
  late_write_events.push_back(write_index);
}

void StaleWriteCheck::serve_white_box(NameId server, const Event& event, const char* what, ReadServes track) {
  const RecentGains* gains = gained_by_worker_.find(server);
  if (gains == nullptr) {
    return;
  }
  const Standing* gained = &gains->for_token(match_tokens_ ? Token::of(event) : Token{});
  Serve& served = white_box_locks_[gained->lock].served[static_cast<std::size_t>(track)];
  if (gained->epoch > served.epoch) {
    served = Serve{gained->epoch, server, what, event.index, event.time_ns, gained->event_index, gained->token};
  }
}

void StaleWriteCheck::judge_white_box(const Event& write, const NameIds& names) {
  const RecentGains* gains = gained_by_worker_.find(write.writer_id);
  if (gains == nullptr) {
    return;
  }
  Token token = Token::of(write);
  const Standing* gained = &gains->for_token(match_tokens_ ? token : Token{});
  const WhiteBoxLock& lock = *white_box_locks_.find(gained->lock);
  if (!token.known()) {
    token = gained->token;
  }
  for (const ReadServes track : {ReadServes::kReadAccept, ReadServes::kReadOk}) {
    Findings& findings = white_box(track);
    const Serve& later = lock.served[static_cast<std::size_t>(track)];
    if (later.epoch > gained->epoch) {
      findings.add_stale(
          make_violation(ViolationKind::kStaleWrite, {later.gain_index, later.event_index, write.index}, write.time_ns,
                         write.index,
                         fmt::format("storage accepted {} from {}{} after it had served {} by {} at {}, who was "
                                     "granted lock {} later{}",
                                     written(write), write.writer, token_suffix(token), later.what,
                                     names.name(later.server), format_seconds(later.time_ns),
                                     names.name(gained->lock), token_suffix(later.token))),
          gained->event_index);
    } else if (lock.gains > gained->epoch) {
      findings.add_late(write.index);
    }
  }
}

void StaleWriteCheck::serve_black_box(NameId server, const Event& event, const char* what) {
  const Standing* acquired = acquired_by_worker_.find(server);
  if (acquired == nullptr || !acquired->token.number) {
    return;
  }
  Serve& served = black_box_locks_[acquired->lock].served;
  if (*acquired->token.number > served.epoch || served.event_index < 0) {
    served = Serve{*acquired->token.number, server, what, event.index, event.time_ns, acquired->event_index,
                   acquired->token};
  }
}

void StaleWriteCheck::invoke_black_box(const Event& invoke) {
  const Standing* acquired = acquired_by_worker_.find(invoke.process_id);
  if (acquired == nullptr) {
    return;
  }
  InvokedWrite& invoked = invoked_by_worker_[invoke.process_id];
  invoked.lock = acquired->lock;
  invoked.token = invoke.token ? invoke.token : acquired->token.number;
  invoked.key = invoke.key;
  invoked.value_json = invoke.value_json;
  const BlackBoxLock* lock = black_box_locks_.find(acquired->lock);
  invoked.served_before = lock == nullptr ? Serve{} : lock->served;
}

void StaleWriteCheck::judge_black_box(NameId writer, const Event& write, Judged judged, const NameIds& names) {
  const Standing* acquired = acquired_by_worker_.find(writer);
  if (acquired == nullptr) {
    return;
  }
  const BlackBoxLock* lock = black_box_locks_.find(acquired->lock);
  const InvokedWrite* invoked = invoked_by_worker_.find(writer);
  if (lock == nullptr || (invoked == nullptr && judged == Judged::kWriteOk)) {
    return;
  }
  // Without a write.invoke, a write.accept is judged at itself: a read.ok or
  // write.ok before it was served before it too.
  const Serve& later = invoked != nullptr ? invoked->served_before : lock->served;
  std::optional<std::int64_t> token = write.token;
  if (!token) {
    token = invoked != nullptr ? invoked->token : acquired->token.number;
  }
  if (!token) {
    return;
  }
  Findings& findings = black_box(judged);
  if (later.event_index >= 0 && later.epoch > *token) {
    findings.add_stale(make_violation(
        ViolationKind::kStaleWrite, {later.gain_index, later.event_index, write.index}, write.time_ns, write.index,
        fmt::format("{} {} from {}{} after {} by {} had completed at {}, who acquired lock {} later{}",
                    judged == Judged::kWriteAccept ? "storage accepted" : "storage acknowledged",
                    judged == Judged::kWriteAccept || invoked == nullptr ? written(write)
                                                                         : written(invoked->key, invoked->value_json),
                    names.name(writer), token_suffix(Token{token, {}}), later.what, names.name(later.server),
                    format_seconds(later.time_ns), names.name(acquired->lock), token_suffix(later.token))),
        acquired->event_index);
    return;
  }
  const auto highest_other = lock->top.best_other_than(writer);
  if (highest_other && *highest_other > *token) {
    findings.add_late(write.index);
  }
}

}  // namespace locksim::checker
