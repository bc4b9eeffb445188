#include "live/redis_server.h"

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "live/etcd_cluster.h"
#include "live/redis_client.h"

namespace locksim::live {

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw LiveError("cannot open a socket to find a free port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw LiveError("cannot find a free port on 127.0.0.1");
  }
  const int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

std::vector<std::string> remove_left_behind_directories() {
  std::vector<std::string> removed;
  std::error_code error;
  const std::filesystem::path temporary = std::filesystem::temp_directory_path(error);
  if (error) return removed;
  for (const auto& entry : std::filesystem::directory_iterator{temporary, error}) {
    const std::string name = entry.path().filename().string();
    // A redis-server's directory, or an etcd cluster's (etcd_cluster.h).
    const std::string wanted = name.starts_with(kDirectoryPrefix) ? kDirectoryPrefix : kEtcdDirectoryPrefix;
    if (!name.starts_with(wanted)) continue;
    // "<pid>-XXXXXX"; a name of another form (an older locksim's) is left alone.
    const std::string rest = name.substr(wanted.size());
    const std::size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || rest.find_first_not_of("0123456789") != dash) continue;
    const long pid = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(entry.path(), ignored) > 0 && !ignored) removed.push_back(entry.path().string());
  }
  std::ranges::sort(removed);
  return removed;
}

std::string make_server_directory(const char* prefix, const char* server) {
  std::error_code no_temporary;
  const std::filesystem::path temporary = std::filesystem::temp_directory_path(no_temporary);
  if (no_temporary) throw LiveError(fmt::format("cannot find a temporary directory for {} ($TMPDIR, else /tmp)", server));
  std::string pattern = (temporary / fmt::format("{}{}-XXXXXX", prefix, ::getpid())).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw LiveError(fmt::format("cannot make a directory for {}", server));
  return pattern;
}

RedisServer::RedisServer(ServerPersistence persistence, RedisServerOptions options)
    : persistence_{persistence}, options_{std::move(options)}, directory_{make_server_directory(kDirectoryPrefix, "redis-server")} {
  // A port taken between the probe and the start makes redis-server exit: try another.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_loopback_port();
    if (launch()) return;
  }
  stop();
  throw LiveError("redis-server did not start on 127.0.0.1");
}

bool RedisServer::launch() {
  const bool append_only = persistence_ != ServerPersistence::kNone;
  const bool sentinel = !options_.sentinel_configuration.empty();
  std::vector<std::string> arguments = {
      "redis-server", "--port", std::to_string(port_), "--bind", host_, "--protected-mode", "yes",
      "--save", "", "--appendonly", append_only ? "yes" : "no",
      "--appendfsync", persistence_ == ServerPersistence::kAlways ? "always" : "everysec",
      "--dir", directory_, "--logfile", directory_ + "/redis.log", "--daemonize", "no"};
  if (sentinel) {
    // Sentinel needs a file of its own, which it rewrites (written afresh
    // at each start: a Sentinel of live mode's is never restarted).
    const std::string file = directory_ + "/sentinel.conf";
    std::ofstream{file} << fmt::format("port {}\nbind {}\ndir {}\nlogfile {}/sentinel.log\n{}", port_, host_,
                                       directory_, directory_, options_.sentinel_configuration);
    arguments = {"redis-sentinel", file};
  }
  arguments.insert(arguments.end(), options_.extra_arguments.begin(), options_.extra_arguments.end());
  const pid_t parent = ::getpid();
  const bool parent_is_main_thread = ::gettid() == parent;
  pid_ = ::fork();
  if (pid_ < 0) throw LiveError("cannot fork for redis-server");
  if (pid_ == 0) {
    // Should locksim die without stopping it (a crash, SIGKILL), the server
    // dies too. Only for a server started by the main thread: the signal
    // comes when the forking *thread* ends (a restart runs on a thread of its own).
    if (parent_is_main_thread) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // it died before the line above
    std::vector<char*> argv;
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    ::execvp(arguments.front().c_str(), argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        stop();
        throw LiveError(fmt::format("{} is not installed (bash scripts/install-deps.sh installs it)", arguments.front()));
      }
      return false;
    }
    try {
      RedisClient client{host_, port_, 200};
      if (client.command({"PING"}).text == "PONG") return true;
    } catch (const LiveError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  stop();
  throw LiveError(fmt::format("redis-server did not answer on 127.0.0.1:{} within 5 s", port_));
}

void RedisServer::crash() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void RedisServer::restart() {
  if (pid_ > 0) return;
  // Its port was ours a moment ago; if someone took it, the restart fails loudly.
  if (!launch()) throw LiveError(fmt::format("redis-server could not restart on 127.0.0.1:{}: the port is taken", port_));
}

void RedisServer::freeze() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
  frozen_ = pid_ > 0;
}

void RedisServer::thaw() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
  frozen_ = false;
}

RedisServer::~RedisServer() { stop(); }

void RedisServer::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);  // a frozen server cannot act on SIGTERM
    ::kill(pid_, SIGTERM);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (::waitpid(pid_, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
    directory_.clear();
  }
}

}  // namespace locksim::live
