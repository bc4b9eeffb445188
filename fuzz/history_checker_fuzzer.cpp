// libFuzzer target: `locksim check` on one history — the reader, every check,
// and both outputs (the terminal text and the JSON document). Bad input must
// come back as a HistoryError; anything else (a crash, a sanitizer report, an
// exception, a hang) is a bug. The reader's streamed path must also read
// the input exactly as its one-line reference does (the same events and the same
// outcome), or the fuzzer stops. Seeds: tests/data/histories and
// tests/data/bad-histories (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "checker/history_checker.h"
#include "checker/verdict_report.h"

namespace {

// What reading `text` by `path` gives, as one text: each event's line
// number, time, process, kind and token, then the outcome.
std::string read_by(std::string_view text, locksim::checker::ReadPath path) {
  std::string seen;
  const locksim::checker::ReadOutcome outcome = locksim::checker::read_history_text(
      text, "fuzz.jsonl",
      [&](const locksim::checker::Event& event) {
        seen += std::to_string(event.index) + " " + std::to_string(event.time_ns) + " " + std::string{event.process} +
                " " + std::string{locksim::checker::event_kind_name(event.kind)} + " " +
                std::to_string(event.token.value_or(-1)) + std::string{event.token_text} + std::string{event.lock} +
                std::string{event.value_json} + "\n";
      },
      path);
  seen += std::to_string(outcome.summary.events) + (outcome.error ? outcome.error->message() : "ok");
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
  if (read_by(text, locksim::checker::ReadPath::kStreamed) !=
      read_by(text, locksim::checker::ReadPath::kOneLineAtATime)) {
    std::abort();  // the streamed path read it differently from its reference
  }
  const locksim::checker::CheckOutcome outcome =
      locksim::checker::check_history_text(text, "fuzz.jsonl", locksim::checker::CheckOptions{});
  if (outcome.error) {
    (void)outcome.error->message();
    return 0;
  }
  (void)locksim::checker::verdict_text(outcome.verdict, 5);
  (void)locksim::checker::verdicts_json({outcome.verdict});
  return 0;
}
