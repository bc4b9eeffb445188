#include "live/etcd_cluster.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "live/etcd_gateway.h"
#include "live/redis_client.h"
#include "live/redis_server.h"

namespace locksim::live {

namespace {

constexpr char kHost[] = "127.0.0.1";
// What a member's process exits with when `etcd` could not be executed (as a shell does).
constexpr int kNotInstalledExitCode = 127;
// How often the wait for a leader asks the members again.
constexpr std::chrono::milliseconds kPollInterval{20};
// How long one status question may take while waiting for a leader.
constexpr std::chrono::milliseconds kStatusTimeout{300};
constexpr int kStartAttempts = 3;
constexpr std::size_t kLogLinesQuoted = 8;

std::string url(int port) { return fmt::format("http://{}:{}", kHost, port); }

// The last lines of a member's log, for an error message: etcd says there why it stopped.
std::string log_tail(const std::string& path) {
  std::ifstream file{path};
  std::deque<std::string> lines;
  for (std::string line; std::getline(file, line);) {
    lines.push_back(line);
    if (lines.size() > kLogLinesQuoted) lines.pop_front();
  }
  if (lines.empty()) return "(its log is empty)";
  std::string tail;
  for (const std::string& line : lines) tail += "\n  " + line;
  return tail;
}

bool log_says_port_taken(const std::string& path) {
  std::ifstream file{path};
  for (std::string line; std::getline(file, line);) {
    if (line.find("address already in use") != std::string::npos) return true;
  }
  return false;
}

// `count` distinct ports on 127.0.0.1 that were free a moment ago.
std::vector<int> distinct_free_ports(std::size_t count) {
  std::set<int> ports;
  while (ports.size() < count) ports.insert(free_loopback_port());
  return {ports.begin(), ports.end()};
}

void signal_member(pid_t pid, int signal) {
  if (pid > 0) ::kill(pid, signal);
}

// Starts `arguments` (the program from PATH) with its stdout and stderr
// appended to `log`, and returns its pid. A child that cannot execute the
// program exits with kNotInstalledExitCode.
pid_t spawn(const std::vector<std::string>& arguments, const std::string& log) {
  // Everything the child needs is made before fork: after it, only calls
  // that are safe in a child of a threaded process.
  std::vector<char*> argv;
  for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const bool parent_is_main_thread = ::gettid() == parent;
  const pid_t pid = ::fork();
  if (pid < 0) throw LiveError(fmt::format("cannot fork for {}", arguments.front()));
  if (pid > 0) return pid;
  // Should locksim die without stopping it, the child dies too. Only for a
  // child of the main thread: the signal comes when the forking *thread*
  // ends (as for redis-server, redis_server.cpp).
  if (parent_is_main_thread) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);  // it died before the line above
  // Its log goes to its own file, not to our stdout: appended to, so a
  // restart's log follows the crashed run's.
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log_fd < 0 || null_fd < 0) ::_exit(1);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(log_fd, STDOUT_FILENO);
  ::dup2(log_fd, STDERR_FILENO);
  // Our other descriptors (Asio's sockets are not close-on-exec) are not
  // the child's: a listener of ours it inherited would stay open after we close it.
  ::close_range(3, ~0U, 0);
  ::execvp(argv.front(), argv.data());
  ::_exit(kNotInstalledExitCode);
}

}  // namespace

EtcdCluster::EtcdCluster(EtcdClusterOptions options) : options_{std::move(options)} {
  if (options_.member_count != 1 && options_.member_count != 3) {
    throw LiveError(fmt::format("an etcd cluster of live mode has 1 or 3 members, not {}", options_.member_count));
  }
  directory_ = make_server_directory(kEtcdDirectoryPrefix, "etcd");
  // The directory's name is unique among live runs, so it makes a cluster
  // token no other cluster has: a stray member of another run cannot join.
  token_ = std::filesystem::path{directory_}.filename().string();
  members_.resize(options_.member_count);
  for (std::size_t index = 0; index < members_.size(); ++index) {
    members_[index].name = fmt::format("etcd-{}", index);
    members_[index].directory = fmt::format("{}/{}", directory_, members_[index].name);
  }
  try {
    for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
      if (start_all()) return;
    }
  } catch (...) {
    stop_all();
    throw;
  }
  stop_all();
  throw LiveError(fmt::format("etcd did not start on {}: its ports were taken {} times", kHost, kStartAttempts));
}

EtcdCluster::~EtcdCluster() { stop_all(); }

bool EtcdCluster::start_all() {
  const std::vector<int> ports = distinct_free_ports(2 * members_.size());
  std::vector<std::size_t> all;
  for (std::size_t index = 0; index < members_.size(); ++index) {
    Member& member = members_[index];
    member.client_port = ports[2 * index];
    member.peer_port = ports[2 * index + 1];
    member.advertised_peer_url = options_.advertised_peer_url ? options_.advertised_peer_url(index, member.peer_port)
                                                              : url(member.peer_port);
    // A member left from an attempt whose ports were taken: start it with nothing.
    std::error_code ignored;
    std::filesystem::remove_all(member.directory, ignored);
    std::filesystem::create_directories(member.directory);
    all.push_back(index);
  }
  for (const std::size_t index : all) launch(index, ClusterState::kNew);
  if (wait_for_leader(all)) return true;
  for (Member& member : members_) kill_and_wait(member);
  return false;
}

std::string EtcdCluster::initial_cluster() const {
  std::string list;
  for (const Member& member : members_) {
    list += fmt::format("{}{}={}", list.empty() ? "" : ",", member.name, member.advertised_peer_url);
  }
  return list;
}

std::vector<std::string> EtcdCluster::command_line(std::size_t index, ClusterState state) const {
  const Member& member = members_[index];
  return {"etcd",
          "--name", member.name,
          "--data-dir", member.directory + "/data",
          "--listen-client-urls", url(member.client_port),
          "--advertise-client-urls", url(member.client_port),
          "--listen-peer-urls", url(member.peer_port),
          "--initial-advertise-peer-urls", member.advertised_peer_url,
          "--initial-cluster", initial_cluster(),
          "--initial-cluster-state", state == ClusterState::kNew ? "new" : "existing",
          "--initial-cluster-token", token_,
          "--heartbeat-interval", std::to_string(options_.heartbeat_interval.count()),
          "--election-timeout", std::to_string(options_.election_timeout.count()),
          // Structured logs on stderr, which spawn() sends to the member's log file.
          "--logger", "zap", "--log-outputs", "stderr"};
}

void EtcdCluster::launch(std::size_t index, ClusterState state) {
  Member& member = members_[index];
  member.pid = spawn(command_line(index, state), log_file(index));
  member.paused = false;
}

bool EtcdCluster::reap_if_exited(Member& member) {
  if (member.pid <= 0) return true;
  int status = 0;
  if (::waitpid(member.pid, &status, WNOHANG) != member.pid) return false;
  member.pid = -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNotInstalledExitCode) {
    throw LiveError("etcd is not installed (bash scripts/install-deps.sh installs it)");
  }
  return true;
}

bool EtcdCluster::wait_for_leader(const std::vector<std::size_t>& members) {
  const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  while (true) {
    std::set<std::uint64_t> leaders;
    std::optional<std::size_t> silent;  // the first member that did not answer, or knew no leader
    for (const std::size_t index : members) {
      Member& member = members_[index];
      if (reap_if_exited(member)) {
        if (log_says_port_taken(log_file(index))) return false;
        fail(index, "exited while starting");
      }
      const std::optional<EtcdStatus> status = etcd_status(client_endpoint(index), kStatusTimeout);
      if (!status || status->leader == 0) {
        if (!silent) silent = index;
        continue;
      }
      member.id = status->member_id;
      leaders.insert(status->leader);
    }
    if (!silent && leaders.size() == 1) return true;
    if (std::chrono::steady_clock::now() >= deadline) {
      fail(silent.value_or(members.front()),
           fmt::format("did not {} within {} ms", silent ? "answer with a leader" : "agree on one leader",
                       options_.start_timeout.count()));
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

void EtcdCluster::fail(std::size_t index, const std::string& what) {
  const Member& member = members_[index];
  throw LiveError(fmt::format("etcd member {} (client {}, peer {}) {}; the end of its log {}:{}", member.name,
                              client_endpoint(index), url(member.peer_port), what, log_file(index),
                              log_tail(log_file(index))));
}

std::vector<std::string> EtcdCluster::client_endpoints() const {
  std::vector<std::string> endpoints;
  for (std::size_t index = 0; index < members_.size(); ++index) endpoints.push_back(client_endpoint(index));
  return endpoints;
}

std::string EtcdCluster::client_endpoint(std::size_t member) const {
  return fmt::format("{}:{}", kHost, members_.at(member).client_port);
}

const std::string& EtcdCluster::member_name(std::size_t member) const { return members_.at(member).name; }

pid_t EtcdCluster::pid(std::size_t member) const { return members_.at(member).pid; }

std::string EtcdCluster::log_file(std::size_t member) const { return members_.at(member).directory + "/etcd.log"; }

bool EtcdCluster::paused(std::size_t member) const { return members_.at(member).paused; }

std::optional<std::size_t> EtcdCluster::leader(std::chrono::milliseconds timeout) const {
  std::optional<std::size_t> leading;
  std::uint64_t leading_term = 0;
  for (std::size_t index = 0; index < members_.size(); ++index) {
    const Member& member = members_[index];
    if (member.pid <= 0 || member.paused) continue;  // a paused member would only make us wait
    const std::optional<EtcdStatus> status = etcd_status(client_endpoint(index), timeout);
    // Just after a partition heals, two may still say so: the later term's leads.
    if (status && status->leader == status->member_id && status->member_id == member.id &&
        (!leading || status->raft_term > leading_term)) {
      leading = index;
      leading_term = status->raft_term;
    }
  }
  return leading;
}

void EtcdCluster::hand_leadership_to(std::size_t member) {
  const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  while (true) {
    const std::optional<std::size_t> leading = leader();
    if (leading == member) return;
    if (std::chrono::steady_clock::now() >= deadline) {
      fail(member, fmt::format("was not made the leader within {} ms", options_.start_timeout.count()));
    }
    if (leading) (void)etcd_move_leader(client_endpoint(*leading), members_.at(member).id, options_.start_timeout);
    std::this_thread::sleep_for(kPollInterval);
  }
}

void EtcdCluster::pause(std::size_t member) {
  Member& paused_member = members_.at(member);
  signal_member(paused_member.pid, SIGSTOP);
  paused_member.paused = paused_member.pid > 0;
}

void EtcdCluster::resume(std::size_t member) {
  Member& paused_member = members_.at(member);
  signal_member(paused_member.pid, SIGCONT);
  paused_member.paused = false;
}

void EtcdCluster::crash(std::size_t member) { kill_and_wait(members_.at(member)); }

void EtcdCluster::kill_and_wait(Member& member) {
  if (member.pid <= 0) return;
  ::kill(member.pid, SIGKILL);  // a paused process dies of it too
  ::waitpid(member.pid, nullptr, 0);
  member.pid = -1;
  member.paused = false;
}

void EtcdCluster::restart(std::size_t member) {
  Member& restarted = members_.at(member);
  if (restarted.pid > 0) return;
  // The data directory holds the membership: the member comes back as itself.
  launch(member, ClusterState::kExisting);
  if (!wait_for_leader({member})) fail(member, "could not restart: its port is taken");
}

void EtcdCluster::stop_all() {
  // The data is thrown away with the directory: no need for a graceful stop.
  for (Member& member : members_) kill_and_wait(member);
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
    directory_.clear();
  }
}

}  // namespace locksim::live
