#pragma once
// An etcd cluster of live mode's own: 1 or 3 members (etcd-0, etcd-1,
// etcd-2), each an `etcd` process on 127.0.0.1 with a client port and a
// peer port that were free, its data directory and its log file, all inside
// one throw-away directory. The cluster is bootstrapped afresh (a unique
// cluster token, `--initial-cluster-state new`), and it is stopped and its
// directory removed when this object goes. Nothing listens beyond loopback.
//
// Members can be frozen (SIGSTOP/SIGCONT: a paused process, which its peers
// see as silent), crashed (SIGKILL: what etcd had written to its write-ahead
// log survives in its data directory) and restarted on the same ports from
// the same data directory, rejoining as the member it was.
//
// Should this process die without stopping them, the members die too
// (PR_SET_PDEATHSIG) and the next live run removes the directory
// (remove_left_behind_directories, redis_server.h).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace locksim::live {

// The cluster's throw-away directory is made in the temporary directory
// ($TMPDIR, else /tmp) as this, our pid, a dash and six random characters.
inline constexpr char kEtcdDirectoryPrefix[] = "locksim-etcd-";

struct EtcdClusterOptions {
  std::size_t member_count = 1;                       // 1 or 3 (a majority survives one member's fault); default 1
  std::chrono::milliseconds heartbeat_interval{100};  // etcd's --heartbeat-interval; default 100 ms (etcd's)
  std::chrono::milliseconds election_timeout{1000};   // etcd's --election-timeout; default 1000 ms (etcd's)
  std::chrono::milliseconds start_timeout{15'000};    // the wait for a leader at start and restart; default 15 s
  // The peer URL the other members dial to reach `member`, whose own peer
  // listener is on `peer_port` (a fault proxy's port in front of it, say).
  // etcd derives each member's identity from the advertised peer URLs of
  // --initial-cluster, so every member must be given the same table: the
  // URL depends on the member dialled, not on who dials. Asked once per
  // member at each start attempt (ports found taken mean another attempt).
  // Default (empty): http://127.0.0.1:<peer_port>, the member's own listener.
  std::function<std::string(std::size_t member, int peer_port)> advertised_peer_url;
};

class EtcdCluster {
 public:
  // Starts every member (`etcd` from PATH) and waits up to
  // options.start_timeout until every member answers and they agree on a
  // leader. Throws LiveError when etcd is not installed or a member does not
  // come up, naming the member and quoting the end of its log.
  explicit EtcdCluster(EtcdClusterOptions options = {});
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  [[nodiscard]] std::size_t member_count() const { return members_.size(); }
  // "127.0.0.1:<client port>" per member, in member order.
  [[nodiscard]] std::vector<std::string> client_endpoints() const;
  [[nodiscard]] std::string client_endpoint(std::size_t member) const;
  // "etcd-0", "etcd-1", "etcd-2": the member's --name.
  [[nodiscard]] const std::string& member_name(std::size_t member) const;
  // The member's process; -1 while it is crashed.
  [[nodiscard]] pid_t pid(std::size_t member) const;
  // Where the member's etcd writes its log (appended to across restarts).
  [[nodiscard]] std::string log_file(std::size_t member) const;

  // The member that leads now: among the members that run, are not paused
  // and answer within `timeout` each, the one that reports itself leader in
  // the highest Raft term. nullopt when none does (an election under way).
  [[nodiscard]] std::optional<std::size_t> leader(
      std::chrono::milliseconds timeout = std::chrono::milliseconds{500}) const;

  // Makes `member` the leader (etcd's move-leader, asked of the leader) and
  // waits until it leads. Throws LiveError when it does not within start_timeout.
  void hand_leadership_to(std::size_t member);

  // SIGSTOP / SIGCONT: the whole member freezes; requests to it wait in the kernel.
  void pause(std::size_t member);
  void resume(std::size_t member);
  [[nodiscard]] bool paused(std::size_t member) const;

  // SIGKILL, and waits for the process to be gone.
  void crash(std::size_t member);
  // Starts a crashed member again on the same ports from the same data
  // directory (`--initial-cluster-state existing`) and waits up to
  // start_timeout until it answers and knows a leader. Does nothing to a
  // member that runs. Throws LiveError as the constructor does.
  void restart(std::size_t member);

 private:
  struct Member {
    std::string name;
    std::string directory;  // holds data/ and etcd.log
    int client_port = 0;
    int peer_port = 0;
    std::string advertised_peer_url;
    pid_t pid = -1;
    bool paused = false;
    std::uint64_t id = 0;  // etcd's member ID, learnt from its status once it answers
  };
  enum class ClusterState { kNew, kExisting };

  // Picks fresh ports and data directories for every member and starts them;
  // false when a member exited at once (a port taken between the probe and
  // the start), with every member stopped again.
  bool start_all();
  // etcd's command line for the member.
  [[nodiscard]] std::vector<std::string> command_line(std::size_t member, ClusterState state) const;
  void launch(std::size_t member, ClusterState state);
  // Waits up to start_timeout until each of `members` answers and all name
  // the same leader. false iff one exited because its port was taken (the
  // caller may try other ports); throws LiveError (fail) for any other exit
  // or at the deadline.
  bool wait_for_leader(const std::vector<std::size_t>& members);
  [[nodiscard]] std::string initial_cluster() const;
  // The member's exit seen (by waitpid) and recorded; true iff it is gone.
  // Throws LiveError when it exited because `etcd` could not be executed.
  bool reap_if_exited(Member& member);
  // SIGKILL, and waits for the process to be gone.
  void kill_and_wait(Member& member);
  // Throws LiveError naming the member, saying `what` and quoting the end of its log.
  [[noreturn]] void fail(std::size_t member, const std::string& what);
  void stop_all();

  EtcdClusterOptions options_;
  std::string directory_;
  std::string token_;
  std::vector<Member> members_;
};

}  // namespace locksim::live
