// libFuzzer target: `locksim check` on one history — the reader, every check,
// and both outputs (the terminal text and the JSON document). Bad input must
// come back as a HistoryError; anything else (a crash, a sanitizer report, an
// exception, a hang) is a bug. Seeds: tests/data/histories and
// tests/data/bad-histories (scripts/fuzz.sh).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checker/history_checker.h"
#include "checker/verdict_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text{reinterpret_cast<const char*>(data), size};
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
