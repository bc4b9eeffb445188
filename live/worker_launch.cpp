#include "live/worker_launch.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "live/redis_client.h"

extern char** environ;

namespace locksim::live {

std::string command_text(const std::vector<std::string>& command) {
  return nlohmann::json(command).dump();  // as the scenario file writes it
}

void signal_worker(pid_t pid, int signal) {
  if (pid > 0) ::kill(-pid, signal);  // never -1 (every process) or 0 (our own group)
}

LaunchedWorker launch_worker(const WorkerLaunch& launch, const std::string& worker) {
  // Everything exec needs is built before the fork: the child only calls
  // async-signal-safe functions.
  std::vector<char*> argv;
  for (const std::string& word : launch.command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** variable = environ; *variable != nullptr; ++variable) envp.push_back(*variable);
  for (const std::string& variable : launch.environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);

  int output[2];
  int input[2];
  int exec_status[2];  // the child writes errno here when exec fails; close-on-exec closes it when exec works
  if (::pipe2(output, O_CLOEXEC) != 0 || ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, input) != 0 ||
      ::pipe2(exec_status, O_CLOEXEC) != 0) {
    throw LiveError(fmt::format("cannot make a pipe for {}", worker));
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw LiveError(fmt::format("cannot fork {}", worker));
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(output[1], STDOUT_FILENO);
    ::dup2(input[1], STDIN_FILENO);
    int error = 0;
    if (!launch.directory.empty() && ::chdir(launch.directory.c_str()) != 0) {
      error = errno;
    } else {
      ::execvpe(argv[0], argv.data(), envp.data());
      error = errno;
    }
    [[maybe_unused]] const ssize_t written = ::write(exec_status[1], &error, sizeof error);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first, the group exists before any signal
  ::close(output[1]);
  ::close(input[1]);
  ::close(exec_status[1]);
  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_status[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  ::close(exec_status[0]);
  if (got > 0) {
    ::close(output[0]);
    ::close(input[0]);
    ::waitpid(pid, nullptr, 0);
    throw LiveError(fmt::format("{}: cannot start {}{}: {}", worker, command_text(launch.command),
                                launch.directory.empty() ? "" : fmt::format(" in {}", launch.directory),
                                std::strerror(error)));
  }
  return LaunchedWorker{pid, output[0], input[0]};
}

bool send_line(int input, const std::string& line) {
  const std::string text = line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t wrote = ::send(input, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    sent += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace locksim::live
