#pragma once
// Test helper: writes small histories (docs/history-format.md) from code, numbering
// `i` itself, so each test states only the events that matter. Events can be
// labelled and inserted anywhere, and a label's index is looked up after all
// insertions (the mutators of the property tests rely on that).

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checker/history_checker.h"

namespace locksim::checker::testing {

using Fields = nlohmann::ordered_json;

constexpr std::int64_t ms(std::int64_t milliseconds) { return milliseconds * 1'000'000; }
constexpr std::int64_t seconds(std::int64_t whole_seconds) { return whole_seconds * 1'000'000'000; }

// The fields of a lease.grant of lock "L".
inline Fields lease(const char* owner, std::int64_t token, std::int64_t lease_ns = seconds(10)) {
  return Fields{{"lock", "L"}, {"owner", owner}, {"token", token}, {"lease_ns", lease_ns}};
}

struct EventSpec {
  std::int64_t time_ns = 0;
  std::string process;
  std::string event;
  Fields fields = Fields::object();
  std::string label;
};

class HistoryBuilder {
 public:
  // Appends an event; returns *this for chaining.
  HistoryBuilder& add(std::int64_t time_ns, std::string process, std::string event, Fields fields = Fields::object(),
                      std::string label = {}) {
    events_.push_back(EventSpec{time_ns, std::move(process), std::move(event), std::move(fields), std::move(label)});
    return *this;
  }

  // Inserts before position `position` (0 = first).
  void insert(std::size_t position, EventSpec event) {
    events_.insert(events_.begin() + static_cast<std::ptrdiff_t>(position), std::move(event));
  }

  [[nodiscard]] std::vector<EventSpec>& events() { return events_; }
  [[nodiscard]] const std::vector<EventSpec>& events() const { return events_; }

  // The `i` of the event labelled `label`, or -1.
  [[nodiscard]] std::int64_t index_of(const std::string& label) const {
    for (std::size_t position = 0; position < events_.size(); ++position) {
      if (events_[position].label == label) {
        return static_cast<std::int64_t>(position);
      }
    }
    return -1;
  }

  // The JSON Lines text, `i` numbered from 0.
  [[nodiscard]] std::string text() const {
    std::string text;
    for (std::size_t position = 0; position < events_.size(); ++position) {
      const EventSpec& spec = events_[position];
      Fields line{{"i", position}, {"t", spec.time_ns}, {"proc", spec.process}, {"ev", spec.event}};
      for (const auto& [name, value] : spec.fields.items()) {
        line[name] = value;
      }
      text += line.dump();
      text += '\n';
    }
    return text;
  }

 private:
  std::vector<EventSpec> events_;
};

// Checks `history`; fails the test if it is not valid input.
inline HistoryVerdict check(const HistoryBuilder& history, CheckOptions options = {}) {
  CheckOutcome outcome = check_history_text(history.text(), "test.jsonl", options);
  if (outcome.error) {
    ADD_FAILURE() << "unexpected bad input: " << outcome.error->message() << "\n" << history.text();
  }
  return std::move(outcome.verdict);
}

inline std::vector<Violation> violations_of(const HistoryVerdict& verdict, ViolationKind kind) {
  std::vector<Violation> found;
  for (const Violation& violation : verdict.violations) {
    if (violation.kind == kind) {
      found.push_back(violation);
    }
  }
  return found;
}

inline bool ran(const HistoryVerdict& verdict, ViolationKind kind) { return verdict.violation_count(kind).has_value(); }

}  // namespace locksim::checker::testing
