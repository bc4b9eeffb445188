#pragma once
// stale_write (docs/history-format.md): storage accepts a write *out of lock order* —
// before this write.accept, storage had already served (accepted a read or a
// write from) a later holder of the writer's lock. A write accepted after the
// writer's lease was superseded but before any later holder touched storage
// is a *late write*: it lands in lock order (the next holder reads what it
// wrote), so it is counted, not a violation.
//
// Two modes, both computed in one pass; finish() picks one:
// - white-box (the history has lease.grant events): every gain of a lock
//   (LeaseTracker's QuorumChange kGained: a grant for a single instance,
//   reaching the quorum for Redlock) and every re-gain (kRegained: the owner,
//   still holding by an older lease's promise, won the lock anew with another
//   token) gets the next *epoch* of that lock, in history order. A worker's
//   epoch is that of its most recent gain, except for a read.accept or
//   write.accept that carries the token of one of its last
//   kGainsMatchedByToken gains: that gain's (a write sent under an earlier
//   holding of the same worker and delivered late is judged by the holding
//   that sent it). Each serve — read.accept by `reader`, write.accept by
//   `writer` — raises the lock's served high-water epoch to the server's
//   epoch. A write.accept by W
//   is stale iff the high-water before it exceeds W's epoch; late iff not
//   stale but the lock was gained (by another owner) after W's gain.
//   Token values are only matched, never ordered: opaque string tokens work alike.
//   A history with no read.accept / read.reject at all (a real one may lack
//   them) counts the readers' read.ok as the serve instead, at its own place:
//   both are tracked, and the caller picks (ReadServes).
// - black-box (no lease.grant: a real system's client-side history): "later"
//   is a higher token in a worker's acquire.ok, "served" a read.ok / write.ok
//   that completed before the judged write's write.invoke. That is sound —
//   the serve happened before the write was even sent, under any
//   interleaving. Judged: write.accept when the history has storage events,
//   else the writer's write.ok (both tracked; the caller picks, Judged).
//   Needs integer tokens. Late: another worker's acquire.ok carried a higher
//   token earlier, without the stale condition.
//
// Decisions: a serve, read or write, belongs to the lock its worker gained
// (acquired) most recently — reads and writes do not name a lock; a worker
// that never gained (acquired) one is ignored, as server and as writer.
// read.reject / write.reject are no serve. At equal true times history order
// decides. Black-box, a write with no write.invoke before it is judged at the
// write.accept itself (a completion before the accept was served before it,
// which is as sound), and a write.ok with none is not judged.
//
// Memory: one entry per lock and per worker (a worker's: its last 8 gains).

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/event.h"
#include "checker/lease_tracker.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/token.h"
#include "checker/violation.h"

namespace locksim::checker {

// How many of a worker's latest gains a token-carrying read or write is
// matched against (white-box). A write delivered later than that many newer
// gains of its own worker is judged by the newest.
inline constexpr std::size_t kGainsMatchedByToken = 8;

class StaleWriteCheck {
 public:
  // White-box: which reads count as storage serving a worker.
  enum class ReadServes : std::uint8_t { kReadAccept, kReadOk };
  // Black-box: which event is the judged write.
  enum class Judged : std::uint8_t { kWriteAccept, kWriteOk };

  struct Findings {
    std::vector<Violation> violations;
    std::int64_t late_writes = 0;
    // The history index of each late write's judged event (write.accept, or
    // black-box without storage events the write.ok), ascending: reports
    // draw them; the count alone cannot say which write was late.
    std::vector<std::int64_t> late_write_events;

    void add_late(std::int64_t write_index);
    // The stale writes of one holding (the writer's gain or acquire.ok event)
    // are one incident: holding event -> the incident.
    std::map<std::int64_t, std::int64_t> incident_by_holding;

    void add_stale(Violation violation, std::int64_t holding_index);
  };

  // Redlock: each instance counts its own tokens, so a write's token (the
  // highest of its round) may equal a token of an earlier gain by chance; no
  // serve is then matched by token, only by the worker's latest gain.
  void set_counter_per_instance(bool per_instance) { match_tokens_ = !per_instance; }

  void observe_change(const QuorumChange& change);
  // `event` carries its name ids from `names` (HistoryChecker interns them).
  void observe(const Event& event, const NameIds& names);

  [[nodiscard]] Findings& white_box(ReadServes serves) { return white_box_[static_cast<std::size_t>(serves)]; }
  [[nodiscard]] Findings& black_box(Judged judged) { return black_box_[static_cast<std::size_t>(judged)]; }

 private:
  // A worker's most recent gain (white-box) or acquire.ok (black-box).
  struct Standing {
    NameId lock = kNoName;
    std::int64_t epoch = 0;  // white-box: the gain's epoch; black-box: unused
    Token token;
    std::int64_t event_index = -1;
  };
  // The serve that set a lock's high-water mark.
  struct Serve {
    std::int64_t epoch = 0;  // white-box epoch, black-box token; 0 = none yet
    NameId server = kNoName;
    const char* what = "";  // "a read" / "a write"
    std::int64_t event_index = -1;
    std::int64_t time_ns = 0;
    std::int64_t gain_index = -1;  // the event where the server gained (acquired) the lock
    Token token;
  };
  // A worker's last few gains (white-box), newest last.
  struct RecentGains {
    static constexpr std::size_t kKept = kGainsMatchedByToken;
    std::array<Standing, kKept> ring;
    std::size_t count = 0;  // gains seen

    void add(Standing standing);
    // The newest gain granted with `token`, else the newest gain.
    [[nodiscard]] const Standing& for_token(const Token& token) const;
  };
  struct WhiteBoxLock {
    std::int64_t gains = 0;  // the latest epoch
    std::array<Serve, 2> served;  // by ReadServes
  };
  // The two highest acquire.ok tokens of distinct owners on a lock, so that
  // "the highest token of anyone but W" is O(1).
  struct TopTwo {
    std::optional<std::pair<NameId, std::int64_t>> first;
    std::optional<std::pair<NameId, std::int64_t>> second;
    void offer(NameId owner, std::int64_t token);
    [[nodiscard]] std::optional<std::int64_t> best_other_than(NameId owner) const;
  };
  struct BlackBoxLock {
    TopTwo top;
    Serve served;
  };
  // Black-box: what a worker's last write.invoke saw.
  struct InvokedWrite {
    NameId lock = kNoName;
    std::optional<std::int64_t> token;
    // The write's key and value, for a write.ok, which names neither. Assigned,
    // not formatted: this runs for every write and reuses the strings' memory.
    std::string key;
    std::string value_json;
    Serve served_before;
  };

  void serve_white_box(NameId server, const Event& event, const char* what, ReadServes track);
  void judge_white_box(const Event& write, const NameIds& names);
  void serve_black_box(NameId server, const Event& event, const char* what);
  void invoke_black_box(const Event& invoke);
  void judge_black_box(NameId writer, const Event& write, Judged judged, const NameIds& names);

  ById<WhiteBoxLock> white_box_locks_;   // lock ->
  ById<RecentGains> gained_by_worker_;   // worker ->
  bool match_tokens_ = true;
  ById<BlackBoxLock> black_box_locks_;   // lock ->
  ById<Standing> acquired_by_worker_;    // worker ->
  ById<InvokedWrite> invoked_by_worker_; // worker ->
  std::array<Findings, 2> white_box_;
  std::array<Findings, 2> black_box_;
};

}  // namespace locksim::checker
