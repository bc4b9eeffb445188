#pragma once
// Runs the real `locksim` binary (LOCKSIM_BINARY) as a user would, for the
// tests that check exit codes, messages and files written.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/scratch_directory.h"
#include "tests/text_files.h"

namespace locksim::cli_test {

struct Result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line as it is (stdout and stderr together).
inline Result run_shell(const std::string& command_line) {
  const std::string command = command_line + " 2>&1";
  Result result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (const std::size_t read = fread(buffer, 1, sizeof buffer, pipe)) result.output.append(buffer, read);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

inline Result run_locksim(const std::string& arguments) { return run_shell(std::string{LOCKSIM_BINARY} + " " + arguments); }

// The summary table of `run`'s output: its lines up to the first blank line
// (the legend, the incident lines and the failures follow it).
inline std::string table_of(const std::string& output) { return output.substr(0, output.find("\n\n")); }

// A path in this test process's scratch directory (removed when the process ends).
inline std::string scratch(const std::string& name) { return (test_support::scratch_directory() / name).string(); }

using test_support::read_text;

}  // namespace locksim::cli_test
