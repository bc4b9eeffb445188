#pragma once
// How a subcommand plugs into the `locksim` binary: each command file offers
// one `add_*_command` that registers its CLI11 subcommand and, when the
// subcommand runs, stores its exit code in the shared slot.

#include <CLI/CLI.hpp>

#include "exit_code.h"

namespace locksim::cli {

// Thrown by a command for bad user input (a malformed file, an impossible flag
// combination). main() prints the message and exits with ExitCode::kBadInput.
struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown when SIGINT or SIGTERM ended a command after it cleaned up (live
// mode). main() prints the message and exits 128 + the signal, as a shell
// reports a process the signal ended.
struct Interrupted : std::runtime_error {
  Interrupted(const std::string& message, int by) : std::runtime_error{message}, signal{by} {}
  int signal;
};


void add_demo_command(CLI::App& app, ExitCode& exit_code);
void add_check_command(CLI::App& app, ExitCode& exit_code);
void add_run_command(CLI::App& app, ExitCode& exit_code);
void add_replay_command(CLI::App& app, ExitCode& exit_code);
void add_list_command(CLI::App& app, ExitCode& exit_code);
void add_merge_command(CLI::App& app, ExitCode& exit_code);
void add_explain_command(CLI::App& app, ExitCode& exit_code);
void add_explore_command(CLI::App& app, ExitCode& exit_code);
void add_verify_command(CLI::App& app, ExitCode& exit_code);
void add_advise_command(CLI::App& app, ExitCode& exit_code);
void add_sweep_command(CLI::App& app, ExitCode& exit_code);
void add_report_command(CLI::App& app, ExitCode& exit_code);
void add_live_command(CLI::App& app, ExitCode& exit_code);

}  // namespace locksim::cli
