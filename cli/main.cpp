// The `locksim` binary: parses the command line with CLI11 and dispatches to
// one command file per subcommand (docs/cli.md).

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "command.h"
#include "locksim/version.h"
#include "runner/scenario_run.h"
#include "stderr_lines.h"

int main(int argc, char** argv) {
  using locksim::cli::ExitCode;

  CLI::App app{"locksim: deterministic simulation of lease-based distributed locks"};
  app.set_version_flag("--version", std::string{"locksim "} + locksim::kVersion);
  app.require_subcommand(1);

  ExitCode exit_code = ExitCode::kOk;
  // Each command file registers itself here (one line per command).
  locksim::cli::add_demo_command(app, exit_code);
  locksim::cli::add_check_command(app, exit_code);
  locksim::cli::add_run_command(app, exit_code);
  locksim::cli::add_replay_command(app, exit_code);
  locksim::cli::add_list_command(app, exit_code);
  locksim::cli::add_merge_command(app, exit_code);
  locksim::cli::add_explain_command(app, exit_code);
  locksim::cli::add_explore_command(app, exit_code);
  locksim::cli::add_verify_command(app, exit_code);
  locksim::cli::add_advise_command(app, exit_code);
  locksim::cli::add_sweep_command(app, exit_code);
  locksim::cli::add_report_command(app, exit_code);
  locksim::cli::add_live_command(app, exit_code);

  if (argc > 0) locksim::runner::set_replay_program(argv[0]);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForVersion& version) {
    return app.exit(version);
  } catch (const CLI::ParseError& error) {
    // CLI11 has its own exit codes; the contract says bad usage is 2.
    app.exit(error);
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const locksim::cli::BadInput& error) {
    locksim::cli::print_to_stderr("locksim: {}\n", error.what());
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const locksim::cli::Interrupted& interrupted) {
    locksim::cli::print_to_stderr("locksim: {}\n", interrupted.what());
    return 128 + interrupted.signal;
  } catch (const std::exception& error) {
    locksim::cli::print_to_stderr("locksim: internal error: {}\n", error.what());
    return static_cast<int>(ExitCode::kInternalError);
  }
  return static_cast<int>(exit_code);
}
