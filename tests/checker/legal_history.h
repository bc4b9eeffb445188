#pragma once
// Test helper: legal histories for the property tests. From a list of
// choices (which rapidcheck generates and shrinks) it writes a history of one
// lock on one instance where workers take turns: acquire, hold, write / renew /
// read / watch another worker fail to acquire, then release, let the lease
// expire, or crash. Reads are fenced: storage records each (read.accept).
// Mutual exclusion holds by construction: each turn ends,
// and its lease ends, before the next grant. Every event the mutators need is
// labelled ("grant-3", "hold-begin-3", "hold-end-3", "end-3", "write-3-1"...).

#include <string>
#include <vector>

#include "history_builder.h"

namespace locksim::checker::testing {

enum class Workload { kCounter, kBilling };

struct Turn {
  std::string owner;
  std::int64_t token = 0;
  bool released = false;  // ended with lease.release (not expiry or crash)
  int writes = 0;
};

struct LegalHistory {
  HistoryBuilder history;
  std::vector<Turn> turns;
  std::vector<std::string> workers;
  std::int64_t accepted_writes = 0;
};

inline constexpr std::int64_t kLeaseNs = 1'000'000'000;

inline std::string label(const char* what, std::size_t turn) { return std::string{what} + "-" + std::to_string(turn); }

inline LegalHistory legal_history(int worker_count, const std::vector<int>& choices, Workload workload) {
  std::size_t next_choice = 0;
  const auto choose = [&](int bound) {
    const int choice = choices.empty() ? 0 : choices[next_choice++ % choices.size()];
    return bound <= 1 ? 0 : choice % bound;
  };
  LegalHistory legal;
  for (int worker = 1; worker <= worker_count; ++worker) {
    legal.workers.push_back("worker-" + std::to_string(worker));
  }
  HistoryBuilder& history = legal.history;
  const Fields lock{{"lock", "L"}};
  std::int64_t t = 0;
  history.add(t, "run", "run.begin",
              Fields{{"scenario", "property"},
                     {"seed", 1},
                     {"fencing", true},
                     {"workload", {{"kind", workload == Workload::kCounter ? "counter" : "billing"}}}});
  const std::size_t turns = 1 + std::min<std::size_t>(choices.size() / 6, 40);
  std::int64_t counter = 0;
  for (std::size_t turn = 0; turn < turns; ++turn) {
    Turn current;
    const int owner_position = choose(worker_count);
    current.owner = legal.workers[static_cast<std::size_t>(owner_position)];
    current.token = static_cast<std::int64_t>(turn) + 1;
    const std::string& owner = current.owner;
    const Fields lease{{"lock", "L"}, {"owner", owner}, {"token", current.token}, {"lease_ns", kLeaseNs}};
    const Fields held{{"lock", "L"}, {"token", current.token}};

    t += ms(1 + choose(50));
    history.add(t, owner, "acquire.invoke", lock);
    t += ms(1);
    history.add(t, "redis-0", "lease.grant", lease, label("grant", turn));
    std::int64_t lease_end = t + kLeaseNs;
    t += ms(1);
    history.add(t, owner, "acquire.ok", Fields{{"lock", "L"}, {"token", current.token}, {"lease_ns", kLeaseNs}});
    history.add(t, owner, "hold.begin", held, label("hold-begin", turn));

    const int actions = choose(4);
    for (int action = 0; action < actions; ++action) {
      t += ms(1 + choose(100));
      switch (choose(4)) {
        case 0: {
          history.add(t, owner, "read.invoke", Fields{{"key", "counter"}});
          history.add(t, "storage", "read.accept",
                      Fields{{"key", "counter"}, {"reader", owner}, {"token", current.token}});
          history.add(t, owner, "read.ok", Fields{{"key", "counter"}, {"value", counter}});
          Fields write{{"key", "counter"}, {"value", counter + 1}, {"token", current.token}};
          if (workload == Workload::kBilling) {
            write["job"] = "job-" + std::to_string(legal.accepted_writes);
          }
          history.add(t, owner, "write.invoke", write);
          Fields accepted = write;
          accepted["writer"] = owner;
          t += ms(1);
          history.add(t, "storage", "write.accept", accepted,
                      label("write", turn) + "-" + std::to_string(current.writes));
          history.add(t, owner, "write.ok");
          ++counter;
          ++legal.accepted_writes;
          ++current.writes;
          break;
        }
        case 1:
          history.add(t, owner, "renew.invoke", lock);
          history.add(t, "redis-0", "lease.renew", lease);
          lease_end = t + kLeaseNs;
          history.add(t, owner, "renew.ok", Fields{{"token", current.token}, {"lease_ns", kLeaseNs}});
          break;
        case 2: {
          if (worker_count < 2) {
            break;
          }
          const auto other = legal.workers[static_cast<std::size_t>((owner_position + 1 + choose(worker_count - 1)) %
                                                                    worker_count)];
          history.add(t, other, "acquire.invoke", lock);
          history.add(t, other, "acquire.fail", Fields{{"lock", "L"}, {"reason", "held"}});
          break;
        }
        default:
          history.add(t, owner, "read.invoke", Fields{{"key", "counter"}});
          history.add(t, "storage", "read.accept",
                      Fields{{"key", "counter"}, {"reader", owner}, {"token", current.token}});
          history.add(t, owner, "read.ok", Fields{{"key", "counter"}, {"value", counter}});
          break;
      }
    }

    t += ms(1);
    switch (choose(3)) {
      case 0:
        history.add(t, owner, "hold.end", Fields{{"lock", "L"}, {"token", current.token}, {"reason", "released"}},
                    label("hold-end", turn));
        history.add(t, owner, "release.invoke", held);
        t += ms(1);
        history.add(t, "redis-0", "lease.release",
                    Fields{{"lock", "L"}, {"owner", owner}, {"token", current.token}, {"by", owner}}, label("end", turn));
        history.add(t, owner, "release.ok");
        current.released = true;
        break;
      case 1:
        history.add(t, owner, "hold.end", Fields{{"lock", "L"}, {"token", current.token}, {"reason", "expired"}},
                    label("hold-end", turn));
        t = lease_end;
        history.add(t, "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", owner}, {"token", current.token}},
                    label("end", turn));
        break;
      default:
        history.add(t, owner, "crash", Fields::object(), label("hold-end", turn));
        t = lease_end;
        history.add(t, "redis-0", "lease.expire", Fields{{"lock", "L"}, {"owner", owner}, {"token", current.token}},
                    label("end", turn));
        t += ms(1);
        history.add(t, owner, "restart");
        break;
    }
    legal.turns.push_back(current);
  }
  t += ms(10);
  history.add(t, "run", "run.end", Fields{{"final", {{"counter", counter}}}}, "run-end");
  return legal;
}

}  // namespace locksim::checker::testing
