#include "checker/stale_write_check.h"

#include <fmt/format.h>

namespace locksim::checker {
namespace {

// "qty=6": the key and, when the history has it, the value written.
std::string written(const Event& write) {
  if (write.value_json.empty()) {
    return std::string{write.key};
  }
  return fmt::format("{}={}", write.key, write.value_json);
}

template <class Map>
void assign(Map& map, std::string_view key, typename Map::mapped_type value) {
  const auto found = map.find(key);
  if (found == map.end()) {
    map.emplace(std::string{key}, std::move(value));
  } else {
    found->second = std::move(value);
  }
}

}  // namespace

void StaleWriteCheck::TopTwo::offer(Acquisition acquisition) {
  if (!acquisition.token) {
    return;
  }
  const auto higher = [](const std::optional<Acquisition>& held, std::int64_t token) {
    return !held || token > *held->token;
  };
  if (first && first->owner == acquisition.owner) {
    if (higher(first, *acquisition.token)) {
      first = std::move(acquisition);
    }
    return;
  }
  if (higher(first, *acquisition.token)) {
    second = std::move(first);
    first = std::move(acquisition);
    return;
  }
  if (higher(second, *acquisition.token)) {
    second = std::move(acquisition);
  }
}

const std::optional<StaleWriteCheck::Acquisition>& StaleWriteCheck::TopTwo::best_other_than(
    std::string_view owner) const {
  return first && first->owner != owner ? first : second;
}

void StaleWriteCheck::observe_change(const QuorumChange& change) {
  if (change.direction != QuorumChange::Direction::kGained) {
    return;
  }
  assign(latest_gain_by_lock_, change.lock, Acquisition{change.owner, change.event_index, change.time_ns, change.token});
  assign(gained_lock_by_writer_, change.owner, WriterLock{change.lock, change.token});
}

void StaleWriteCheck::observe(const Event& event) {
  if (event.kind == EventKind::kAcquireOk) {
    top_tokens_by_lock_[std::string{event.lock}].offer(
        Acquisition{std::string{event.process}, event.index, event.time_ns, event.token});
    assign(acquired_lock_by_writer_, event.process, WriterLock{std::string{event.lock}, event.token});
    return;
  }
  if (event.kind == EventKind::kWriteAccept) {
    judge_white_box(event);
    judge_black_box(event);
  }
}

void StaleWriteCheck::judge_white_box(const Event& write) {
  const auto writer_lock = gained_lock_by_writer_.find(write.writer);
  if (writer_lock == gained_lock_by_writer_.end()) {
    return;
  }
  const auto latest = latest_gain_by_lock_.find(writer_lock->second.lock);
  if (latest == latest_gain_by_lock_.end() || latest->second.owner == write.writer) {
    return;
  }
  const Acquisition& newer = latest->second;
  const auto token = write.token ? write.token : writer_lock->second.token;
  white_box_violations_.push_back(make_violation(
      ViolationKind::kStaleWrite, {newer.event_index, write.index}, write.time_ns, write.index,
      fmt::format("storage accepted {} from {}{} after {} was granted lock {}{} at {}", written(write), write.writer,
                  token_suffix(token), newer.owner, writer_lock->second.lock, token_suffix(newer.token),
                  format_seconds(newer.time_ns))));
}

void StaleWriteCheck::judge_black_box(const Event& write) {
  const auto writer_lock = acquired_lock_by_writer_.find(write.writer);
  if (writer_lock == acquired_lock_by_writer_.end()) {
    return;
  }
  const auto token = write.token ? write.token : writer_lock->second.token;
  const auto top = top_tokens_by_lock_.find(writer_lock->second.lock);
  if (!token || top == top_tokens_by_lock_.end()) {
    return;
  }
  const auto& newer = top->second.best_other_than(write.writer);
  if (!newer || *newer->token <= *token) {
    return;
  }
  black_box_violations_.push_back(make_violation(
      ViolationKind::kStaleWrite, {newer->event_index, write.index}, write.time_ns, write.index,
      fmt::format("storage accepted {} from {}{} after {} acquired lock {}{} at {}", written(write), write.writer,
                  token_suffix(token), newer->owner, writer_lock->second.lock, token_suffix(newer->token),
                  format_seconds(newer->time_ns))));
}

}  // namespace locksim::checker
