#pragma once
// The process exit codes of every `locksim` command (spec/cli.md).

namespace locksim::cli {

enum class ExitCode : int {
  kOk = 0,                 // every expectation held (check: no violation)
  kExpectationFailed = 1,  // an expectation failed (check: a violation was found)
  kBadInput = 2,           // bad usage or bad input; the message says what and where
  kInternalError = 3,      // a bug, or a determinism self-check found two differing runs
};

}  // namespace locksim::cli
