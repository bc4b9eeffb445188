#include "checker/foreign_release_check.h"

#include <fmt/format.h>

namespace locksim::checker {

void ForeignReleaseCheck::observe(const Event& event, const std::optional<MatchedPromise>& released,
                                  std::vector<Violation>& violations) {
  if (event.kind != EventKind::kLeaseRelease || event.by == event.owner) {
    return;
  }
  const std::int64_t grant_index = released ? released->grant_index : -1;
  Token token = Token::of(event);
  if (!token.known() && released) {
    token = released->token;
  }
  const std::string granted = released ? fmt::format(", granted at {},", format_seconds(released->grant_time_ns)) : "";
  violations.push_back(make_violation(ViolationKind::kForeignRelease, {grant_index, event.index}, event.time_ns,
                                      event.index,
                                      fmt::format("{} deleted {}'s lease on lock {}{}{} at {}'s request", event.process,
                                                  event.owner, event.lock, token_suffix(token), granted, event.by)));
}

}  // namespace locksim::checker
