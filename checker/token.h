#pragma once
// Token: a lease's token as the checks keep it (docs/history-format.md). Usually an
// integer fencing token, which grows with each grant and so has an order; a
// recorded real history may carry an opaque string lock id (a UUID) instead,
// which supports equality only. Empty when the event carried no token.
//
// The reader guarantees one history uses one kind (all integers or all
// strings), so two known tokens of different kinds never meet.

#include <cstdint>
#include <optional>
#include <string>

#include "checker/event.h"

namespace locksim::checker {

struct Token {
  std::optional<std::int64_t> number;  // an integer token
  std::string text;                    // an opaque string token; empty for an integer one

  // The token `event` carries (its `token`, integer or string).
  [[nodiscard]] static Token of(const Event& event);
  [[nodiscard]] bool known() const { return number.has_value() || !text.empty(); }
  // Whether an event naming `event`'s token may mean this one: equal, or
  // either side carries none.
  [[nodiscard]] bool matches(const Event& event) const;

  friend bool operator==(const Token&, const Token&) = default;
};

// " (token 4)" / " (token 3f2c…)" for a known token, "" otherwise:
// explanations name tokens only when the history has them (Redlock and
// fencing-off runs may not).
[[nodiscard]] std::string token_suffix(const Token& token);

}  // namespace locksim::checker
