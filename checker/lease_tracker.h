#pragma once
// LeaseTracker: which owners the lock service *promises* each lock to, at the
// current point of a history, following docs/history-format.md's definition:
//
//   A lease is promised from its `lease.grant` until the granting instance
//   ends it (`lease.expire`, by its own clock; extended by each `lease.renew`)
//   or `lease.release`. A `lease.lost` does not end the promise: it then runs
//   to the last grant or renewal plus `lease_ns`. A `lease.adopt` moves a
//   lease to the promoted replica that now promises it: the same lease, not a
//   new one, with its deadline restarted from the adopt. A `crash` of the
//   granting instance ends no promise either: each of its running leases is
//   promised until its last grant or renewal plus `lease_ns` (where it would
//   have expired), or until the instance, restarted, releases or expires it
//   earlier. A restart, a promotion elsewhere or nothing at all afterwards
//   changes nothing.
//
// For a service of several instances (Redlock) an owner holds the lock while
// at least `quorum` distinct instances promise it a lease; a single-instance
// service (including a primary with a replica that takes over) is quorum 1,
// where a promise from any instance counts. The tracker reports every moment
// an owner gains or loses that quorum, in true-time order, which is the sweep
// line the double_grant, stale_write and stuck_lock checks stand on.
//
// Decisions (see docs/checker.md):
// - Events at the same true time take effect in history order; a promise that
//   ends at time E (lease.lost + lease_ns) is over before any event at E.
// - lease.renew / lease.expire / lease.release / lease.lost name their lease by
//   (instance, lock, owner) and, when they carry one, `token` (compared for
//   equality only, so opaque string tokens work alike). A renew that
//   matches no running promise starts one (the instance does promise it); an
//   end that matches none is ignored (the history may begin mid-lease).
// - lease.adopt names its lease by (lock, owner, token) at *any* instance —
//   running there, or lost and still waiting for its end — and moves it to the
//   adopting instance (which tries itself first: an adopt there restarts its
//   deadline). The moved promise ends once, by an end event at the adopter or
//   its new deadline if lost there; end events at its former instance no longer
//   match it. An adopt that matches nothing begins a promise at the adopter
//   (a gain only if the owner had no quorum yet).
// - A re-gain: a lease.grant (or a lease.renew that begins a promise) giving
//   an owner that already holds the lock a token other than the one of its
//   latest gain, once the instances promising it that token reach the quorum,
//   is reported as kRegained. The owner won the lock anew while a promise of
//   its own older lease still runs (a lost lease waiting for its end, or one
//   its instance granted over): a new place in the lock order, though the
//   owner never stopped holding. A lease.adopt moves a lease, so it is none.
// - `lease_ns` absent or 0 means no expiry: a lost lease of that kind is
//   promised until the history ends.
//
// Memory: proportional to the promises running now (plus lost ones still
// waiting for their end time), and one entry per (instance, lock) and
// (lock, owner) pair seen. Time: O(log n) per event.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "checker/event.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/token.h"

namespace locksim::checker {

// An owner started or stopped holding a lock (a quorum of promises), or won
// it anew with another token while it held it (kRegained: it keeps holding).
struct QuorumChange {
  enum class Direction : std::uint8_t { kGained, kLost, kRegained };
  Direction direction = Direction::kGained;
  // Names by their ids in the HistoryChecker's NameIds.
  NameId lock = kNoName;
  NameId owner = kNoName;
  std::int64_t time_ns = 0;
  // The event that caused it; -1 when a lost lease's promise ran out between events.
  std::int64_t event_index = -1;
  NameId instance = kNoName;  // the instance whose event tipped it
  Token token;                // that event's token
};

// What the tracker knows about one owner's standing on one lock.
struct OwnerStanding {
  int instances_promising = 0;  // distinct instances with a running promise
  bool has_quorum = false;
  // Longest lease among its running promises; nullopt if one has no expiry.
  std::optional<std::int64_t> lease_ns_max;
  std::int64_t first_grant_index = -1;  // the grant that began its oldest running promise
  std::int64_t first_grant_time_ns = 0;
};

// The promise a lease.release / lease.expire / lease.lost event matched.
struct MatchedPromise {
  std::int64_t grant_index = -1;
  std::int64_t grant_time_ns = 0;
  Token token;
};

class LeaseTracker {
 public:
  // Requires quorum >= 1. Set before the first lease event (run.begin).
  void set_quorum(int quorum) { quorum_ = quorum; }
  [[nodiscard]] int quorum() const { return quorum_; }

  // Ends the lost leases whose promise runs out at or before `time_ns`.
  // Call before observe() for each event.
  void advance_to(std::int64_t time_ns, std::vector<QuorumChange>& changes);

  // Applies a lease.* event (others are ignored), appending quorum changes.
  // `event` carries its name ids from `names` (HistoryChecker interns them).
  void observe(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes);

  // The promise the last lease.release/expire/lost event ended, if it matched one.
  [[nodiscard]] const std::optional<MatchedPromise>& last_matched() const { return last_matched_; }

  // Calls `visit(owner, standing)` for every owner with a running promise on
  // `lock`, in owner-name order.
  void for_each_owner(NameId lock, const std::function<void(NameId owner, const OwnerStanding&)>& visit) const;

 private:
  struct Promise {
    NameId owner = kNoName;
    Token token;
    std::int64_t grant_index = 0;
    std::int64_t grant_time_ns = 0;
    std::int64_t last_renewal_ns = 0;     // the last grant or renewal
    std::optional<std::int64_t> lease_ns; // nullopt: no expiry
  };
  // A lost lease waiting for its promise to run out.
  struct PendingEnd {
    std::int64_t end_ns = 0;
    std::uint64_t sequence = 0;  // FIFO among equal end times: deterministic
    NameId instance = kNoName;
    NameId lock = kNoName;
    NameId owner = kNoName;
    Token token;
    std::optional<std::int64_t> lease_ns;  // the lost promise's lease, kept for a lease.adopt
    std::int64_t grant_index = 0;
    std::int64_t grant_time_ns = 0;
    bool while_down = false;  // its instance crashed (rather than forgot it): it may still end it
    bool operator>(const PendingEnd& other) const {
      return end_ns != other.end_ns ? end_ns > other.end_ns : sequence > other.sequence;
    }
  };
  struct InstancePromises {
    NameId instance = kNoName;
    int count = 0;  // running promises, > 0
  };
  // An owner's standing on a lock. Kept once made (with no instances when
  // nothing is promised to it), so that a lock's owners are not re-made for
  // every lease: memory is one per (lock, owner) pair seen.
  struct OwnerPromises {
    std::vector<InstancePromises> promises_by_instance;  // the instances with running promises (few)
    bool has_quorum = false;
    Token gained_token;  // the token of its latest gain or re-gain, while it holds
  };
  struct OwnersOfLock {
    ById<OwnerPromises> by_owner;
    std::vector<NameId> in_name_order;  // by_owner's ids: how for_each_owner() walks them
  };

  // `may_regain`: false for an adopt that matched nothing (it names an existing lease).
  void begin_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes,
                     bool may_regain = true);
  // Makes `owner`'s standing on `lock` if it has none, in name order among the lock's owners.
  void note_owner(NameId lock, NameId owner, const NameIds& names);
  // Reports a re-gain if `event` (a promise just begun) makes one.
  void regain_if_new_token(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes);
  // Distinct instances promising `owner` `token` on `lock`, running or lost and pending.
  [[nodiscard]] int instances_promising(NameId lock, NameId owner, const Token& token, const NameIds& names) const;
  void renew_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes);
  void end_promise(const Event& event, std::vector<QuorumChange>& changes);
  void lose_promise(const Event& event, std::vector<QuorumChange>& changes);
  // A crash of `event.process`: its running promises wait for their deadlines.
  void crash_instance(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes);
  // Moves the running promise at `position` of (instance, lock) to the pending
  // ends (still counted until its deadline); `while_down`: its instance crashed.
  void pend_promise(NameId instance, NameId lock, std::size_t position, const Event& cause, bool while_down,
                    std::vector<QuorumChange>& changes);
  // Ends now the pending promise of a crashed instance that `event` (a
  // lease.expire or lease.release at it, restarted) names; false if none.
  bool end_pending_of_crashed(const Event& event, std::vector<QuorumChange>& changes);
  // Runs again the pending promise of a crashed instance that `event` (a
  // lease.renew at it, restarted with the lease) names; false if none.
  bool revive_pending_of_crashed(const Event& event);
  // The pending promise of a crashed instance that `event` names, in pending_by_sequence_.
  std::map<std::uint64_t, PendingEnd>::iterator find_pending_of_crashed(const Event& event);
  void adopt_promise(const Event& event, const NameIds& names, std::vector<QuorumChange>& changes);
  struct AdoptedPromise {
    NameId instance = kNoName;  // where it was promised until the adopt
    Promise promise;
  };
  // Takes the promise a lease.adopt names away from another instance (running
  // there, or lost and pending), still counted there; nullopt if none.
  std::optional<AdoptedPromise> take_adopted(const Event& event, const NameIds& names);
  // Adds (+1) or removes (-1) one promise of `owner` by `instance` on `lock`.
  // An owner gains its first promise on a lock only after note_owner().
  void count(NameId instance, NameId lock, NameId owner, int delta, const QuorumChange& cause,
             std::vector<QuorumChange>& changes);
  std::vector<Promise>* promises_at(NameId instance, NameId lock);
  std::vector<Promise>& promises_at_or_new(NameId instance, NameId lock);
  // The running promise an event names, or nullptr.
  Promise* find_promise(std::vector<Promise>& promises, const Event& event);
  // The promise an ending event (expire, release, lost) refers to, remembered
  // as last_matched(); nullptr (and nothing remembered) if none.
  Promise* match_ending_promise(const Event& event);
  // Removes the promise at `position`, dropping containers that become empty.
  void erase_promise(NameId instance, NameId lock, std::size_t position);

  int quorum_ = 1;
  // Running promises: instance -> lock -> promises (usually one; more when an
  // instance grants a lock it still promises — its own double grant, H9).
  // Lost leases leave this map for pending_ends_. A list that empties stays
  // for the next lease (one per (instance, lock) pair seen).
  // (A lease.adopt walks the instances in name order: it takes the first it finds.)
  ById<ById<std::vector<Promise>>> promises_;
  ById<OwnersOfLock> owners_by_lock_;
  std::priority_queue<PendingEnd, std::vector<PendingEnd>, std::greater<>> pending_ends_;
  std::uint64_t next_sequence_ = 0;
  // The lost promises still pending, by sequence: what a lease.adopt
  // searches. One a lease.adopt took is gone from here, and advance_to()
  // skips its entry in pending_ends_.
  std::map<std::uint64_t, PendingEnd> pending_by_sequence_;
  std::optional<MatchedPromise> last_matched_;
};

}  // namespace locksim::checker
