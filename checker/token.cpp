#include "checker/token.h"

#include <fmt/format.h>

namespace locksim::checker {

Token Token::of(const Event& event) { return Token{event.token, std::string{event.token_text}}; }

bool Token::matches(const Event& event) const {
  if (!known() || (!event.token && event.token_text.empty())) {
    return true;
  }
  return number ? event.token == number : event.token_text == text;
}

std::string token_suffix(const Token& token) {
  if (token.number) {
    return fmt::format(" (token {})", *token.number);
  }
  return token.text.empty() ? std::string{} : fmt::format(" (token {})", token.text);
}

}  // namespace locksim::checker
