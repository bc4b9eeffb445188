#pragma once
// The history reader: streams a history (docs/history-format.md, JSON Lines) through
// simdjson's DOM parser (which validates each whole line) and hands each line
// to a visitor as a checker::Event. The whole lines of each chunk go through
// one simdjson document stream (stage 1 once per chunk, not once per line); a
// line the stream cannot take as a lone object on its line is parsed on its
// own, and every message comes from that one-line path. It never holds more
// than one buffered chunk of the file (the chunk grows only for a single line
// longer than it), so memory does not grow with the history. (Why DOM and not
// On-Demand, measured: docs/checker.md.)
//
// What it promises:
// - Every line it hands over is a JSON object with integer `i` (0, 1, 2, … in
//   order), integer `t` (nanoseconds, never decreasing), string `proc` and a
//   known `ev`, plus the fields the checks rely on for that `ev`:
//     acquire.ok, acquire.fail, hold.begin, hold.end: `lock`
//     lease.grant, lease.renew, lease.expire, lease.lost, lease.adopt: `lock`, `owner`
//     lease.release: `lock`, `owner`, `by`
//     write.accept: `key`, `writer`;  write.reject: `key`, `writer`, `reason`
//     read.accept, read.reject: `key`, `reader`
//   Optional fields, when present, must have the right type (`token` an
//   integer or a non-empty string, `lease_ns` ≥ 0, `value_integer`… see
//   checker/event.h). Unknown fields are ignored. A `null` field counts as absent.
// - A history's tokens are all integers or all strings (opaque lock ids); a
//   token of the other kind is bad input, naming the first token's line.
// - Anything else stops the read with "file:line: what was expected".
// - A last line with no newline that is not valid JSON is what a recorder that
//   crashed mid-write leaves behind: the read ends there without an error and
//   says so in ReadSummary::cut_off_line. Any other invalid line is an error.
//
// - `t`, `lease_ns` and `stuck_after_ns` are at most kLongestTimeNs (10^18 ns,
//   about 31.7 years), so that a time plus a lease plus a threshold — the sums
//   every check makes — never leaves 64 bits. A line is at most 64 MiB.
//
// It is deterministic and single-threaded; one reader parses one file.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/event.h"

namespace locksim::checker {

// The largest time or duration a history may hold, in nanoseconds.
inline constexpr std::int64_t kLongestTimeNs = 1'000'000'000'000'000'000;

// Why a history could not be read, and where.
struct HistoryError {
  std::string file;
  std::int64_t line = 0;  // 1-based; 0 when the file itself could not be read
  std::string what;       // what was expected, in the user's words

  // "file:line: what" (or "file: what" when there is no line).
  [[nodiscard]] std::string message() const;
};

struct ReadSummary {
  std::int64_t events = 0;  // lines handed to the visitor
  bool has_run_begin = false;
  bool has_run_end = false;
  // Set iff the last line was cut off mid-write: its 1-based line number.
  std::optional<std::int64_t> cut_off_line;
};

struct ReadOutcome {
  std::optional<HistoryError> error;  // set iff the history is bad input
  ReadSummary summary;                // what was read before the end or the error
};

using EventVisitor = std::function<void(const Event&)>;

// How lines are parsed. kStreamed is the reader: a document stream per
// chunk, with the one-line parse for what it cannot take. kOneLineAtATime
// parses every line on its own: the same outcome, byte for byte, more
// slowly — the reference the streamed path is tested against
// (tests/checker/read_path_test.cpp, fuzz/history_checker_fuzzer.cpp).
enum class ReadPath : std::uint8_t { kStreamed, kOneLineAtATime };

// Reads the history file at `path`, calling `visit` for each event in order.
[[nodiscard]] ReadOutcome read_history_file(const std::string& path, const EventVisitor& visit);

// Reads `text` as if it were the contents of a file called `name`.
[[nodiscard]] ReadOutcome read_history_text(std::string_view text, std::string_view name, const EventVisitor& visit,
                                            ReadPath path = ReadPath::kStreamed);

class LineDecoder;

// Reads single lines as the reader does — the same decoding, the same
// messages — but without the rules that span lines (`i` in sequence, `t`
// never decreasing, one kind of token, a cut-off last line): for a producer
// that holds its events in another form and needs the reader's view of a few
// of them (the runner's typed-event adapter, runner/event_adapter.h).
class LineReader {
 public:
  LineReader();
  ~LineReader();
  LineReader(LineReader&& other) noexcept;
  LineReader& operator=(LineReader&& other) noexcept;

  // Reads `line` (one JSON object, without its newline). Returns what was
  // expected when it is bad input; otherwise nullopt, and event() holds the
  // line's event until the next read().
  [[nodiscard]] std::optional<std::string> read(std::string_view line);
  [[nodiscard]] const Event& event() const;

 private:
  std::unique_ptr<LineDecoder> decoder_;
  std::vector<char> padded_;  // the line with simdjson's padding after it
};

}  // namespace locksim::checker
