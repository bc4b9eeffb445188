#pragma once
// token_order: fencing tokens that do not strictly increase from one holder
// to the next — the same token handed to two owners, or a token lower than
// one already handed out. Storage that fences on such tokens accepts a stale
// write or turns a current holder away; the check finds the cause even when
// the history has no storage events to show the consequence (stale_write).
//
// Two views, each used when the history has its events:
// - white-box, from `lease.grant`: per token counter (one per logical
//   service — a primary and the replica that takes over share one — and one
//   per instance for Redlock, whose instances count independently), each
//   grant's token must be higher than every token the counter granted before;
//   the same token again to the same owner is a re-grant, no violation.
//   The violations of one counter while it runs below its highest token are
//   one incident (a counter that restarted at 1 is one thing gone wrong).
// - black-box, from `acquire.ok`: a token is never granted to two owners, and
//   an acquisition whose `acquire.invoke` came after another owner's
//   `acquire.ok` (real-time order) carries a higher token than that one. Two
//   acquisitions that overlap in real time may complete in either order. A
//   client's acquisition already found white-box (the same lock, owner and
//   token) is not reported again. Each violation is its own incident.
// Opaque string tokens compare for equality only: reuse by another owner.
//
// Memory: per counter its highest token; per lock one entry per distinct
// token granted (to find reuse) and per worker its open acquisition.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "checker/event.h"
#include "checker/by_id.h"
#include "checker/name_ids.h"
#include "checker/token.h"
#include "checker/violation.h"

namespace locksim::checker {

class TokenOrderCheck {
 public:
  // Redlock: one counter per instance. Set before the first lease.grant.
  void set_counter_per_instance(bool per_instance) { counter_per_instance_ = per_instance; }

  // `event` carries its name ids from `names` (HistoryChecker interns them).
  void observe(const Event& event, const NameIds& names, std::vector<Violation>& violations);

 private:
  // What a token was first granted as: to whom, by which event.
  struct Grant {
    NameId owner = kNoName;
    std::int64_t event_index = -1;
    std::int64_t time_ns = 0;
    NameId by = kNoName;  // white-box: the granting instance
  };
  // A token counter's highest grant so far, and its incident while it runs below it.
  struct Counter {
    std::optional<std::int64_t> highest;
    Grant highest_grant;
    std::map<std::string, Grant, std::less<>> texts;  // opaque tokens granted
    std::optional<std::int64_t> incident;
  };
  // The two highest tokens completed on a lock by distinct owners: the
  // highest any owner other than a given one got.
  struct Completed {
    std::int64_t token = 0;
    Grant grant;
  };
  struct LockAcquisitions {
    std::optional<Completed> highest;
    std::optional<Completed> highest_other_owner;  // of an owner other than `highest`'s
    std::map<std::int64_t, Grant> numbers;          // every integer token completed, by token
    std::map<std::string, Grant, std::less<>> texts;
  };
  // A worker's open acquisition: the highest token other owners had completed when it was invoked.
  struct Invocation {
    std::optional<Completed> highest_before;
  };

  void observe_grant(const Event& event, const NameIds& names, std::vector<Violation>& violations);
  void observe_invoke(const Event& event);
  void observe_acquired(const Event& event, const NameIds& names, std::vector<Violation>& violations);
  [[nodiscard]] static std::optional<Completed> highest_not_of(const LockAcquisitions& lock, NameId owner);
  // The counter that granted `grant`'s token on its lock.
  Counter& counter_of(const Event& grant);

  bool counter_per_instance_ = false;
  // Looked up on every grant, acquire.invoke and acquire.ok; never iterated.
  ById<Counter> service_counters_;            // lock -> (one counter per service)
  ById<ById<Counter>> instance_counters_;     // instance -> lock -> (one per instance)
  ById<LockAcquisitions> acquisitions_;       // lock ->
  ById<ById<Invocation>> open_;               // worker -> lock ->
  std::set<std::tuple<std::string, std::string, std::string>> found_white_box_;   // (lock, owner, token)
};

}  // namespace locksim::checker
