#pragma once
// stale_write (spec/history.md): storage accepts a write whose writer's lease
// was already superseded — another owner was granted the lock before the
// write.accept.
//
// Two modes, both computed in one pass; finish() picks one:
// - white-box (the history has lease.grant events): "granted the lock" is an
//   owner gaining it in LeaseTracker (a grant for a single instance, reaching
//   the quorum for Redlock). A write by W is judged against the lock W gained
//   most recently; it is stale iff the lock's most recent gain, before the
//   write.accept, went to another owner.
// - black-box (no lease.grant: a real system's client-side history): a write
//   by W carries W's token (the write's `token`, else that of W's latest
//   acquire.ok); it is stale iff an acquire.ok of another worker on the lock
//   of W's latest acquire.ok carried a higher token earlier.
//
// Decisions: a write whose writer never gained (white-box) or acquired
// (black-box) any lock cannot be tied to a lock and is not judged. Which lock
// a write belongs to is the writer's most recently gained/acquired one: the
// history does not name the lock on writes. At equal true times history
// order decides: a grant recorded after the write.accept does not make it stale.
//
// Memory: one entry per lock and per writer.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/lease_tracker.h"
#include "checker/violation.h"

namespace locksim::checker {

class StaleWriteCheck {
 public:
  enum class Mode : std::uint8_t { kWhiteBox, kBlackBox };

  void observe_change(const QuorumChange& change);
  void observe(const Event& event);

  // The violations found in `mode`.
  [[nodiscard]] std::vector<Violation>& violations(Mode mode) {
    return mode == Mode::kWhiteBox ? white_box_violations_ : black_box_violations_;
  }

 private:
  struct Acquisition {
    std::string owner;
    std::int64_t event_index = -1;
    std::int64_t time_ns = 0;
    std::optional<std::int64_t> token;
  };
  // The two highest tokens of distinct owners, so that "the highest token of
  // anyone but W" is O(1).
  struct TopTwo {
    std::optional<Acquisition> first;
    std::optional<Acquisition> second;
    void offer(Acquisition acquisition);
    [[nodiscard]] const std::optional<Acquisition>& best_other_than(std::string_view owner) const;
  };
  struct WriterLock {
    std::string lock;
    std::optional<std::int64_t> token;
  };

  void judge_white_box(const Event& write);
  void judge_black_box(const Event& write);

  std::map<std::string, Acquisition, std::less<>> latest_gain_by_lock_;
  std::map<std::string, WriterLock, std::less<>> gained_lock_by_writer_;
  std::map<std::string, TopTwo, std::less<>> top_tokens_by_lock_;
  std::map<std::string, WriterLock, std::less<>> acquired_lock_by_writer_;
  std::vector<Violation> white_box_violations_;
  std::vector<Violation> black_box_violations_;
};

}  // namespace locksim::checker
