#pragma once
// A redis-server of live mode's own: started on 127.0.0.1 at a free port
// with a throw-away directory and the scenario's persistence, stopped (and
// its directory removed) when this object goes away. Nothing listens beyond
// loopback.
//
// It can be crashed for real (SIGKILL: a process crash — what the process
// had written to its append-only file is in the kernel and survives), frozen
// (SIGSTOP/SIGCONT) and restarted on the same port from the same directory,
// so a restart keeps exactly what Redis's own persistence keeps.

#include <string>
#include <sys/types.h>
#include <vector>

namespace locksim::live {

// Each server's throw-away directory is made in the temporary directory
// ($TMPDIR, else /tmp) as this, our pid, a dash and six random characters.
inline constexpr char kDirectoryPrefix[] = "locksim-redis-";

// Removes, from the temporary directory, the server directories of locksim
// processes that no longer exist (one killed with SIGKILL could not remove
// its own) and returns their paths. A directory whose pid is alive, or whose
// name has no pid, is left.
[[nodiscard]] std::vector<std::string> remove_left_behind_directories();

// Makes a server's throw-away directory in the temporary directory, named
// `prefix`, our pid, a dash and six random characters (so that a later run
// can tell the directory of a locksim that was killed), and returns its
// path. Throws LiveError naming `server` when it cannot.
[[nodiscard]] std::string make_server_directory(const char* prefix, const char* server);

enum class ServerPersistence {
  kNone,         // no RDB, no AOF: a restart comes back empty
  kEverySecond,  // appendonly yes, appendfsync everysec
  kAlways,       // appendonly yes, appendfsync always
};

// What to start besides the persistence: more redis-server options (a
// replica's `--replicaof`, `--min-replicas-to-write`, …), or a Sentinel.
struct RedisServerOptions {
  std::vector<std::string> extra_arguments;  // appended to redis-server's command line; default none
  // Non-empty: start `redis-sentinel` instead, with this configuration (its
  // `port`, `bind` and `dir` are added; Sentinel rewrites the file, which
  // lives in the throw-away directory). Default: a redis-server.
  std::string sentinel_configuration;
};

class RedisServer {
 public:
  // Starts `redis-server` (from PATH) and waits until it answers PING.
  // Throws LiveError when it is not installed or does not come up.
  explicit RedisServer(ServerPersistence persistence = ServerPersistence::kNone, RedisServerOptions options = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] const std::string& host() const { return host_; }
  [[nodiscard]] bool running() const { return pid_ > 0; }

  // SIGKILL, and waits for the process to be gone.
  void crash();
  // Starts it again on the same port and directory; waits until it answers PING.
  void restart();
  // SIGSTOP / SIGCONT: the whole server freezes, its clients' requests wait in the kernel.
  void freeze();
  void thaw();
  // Between freeze() and thaw(): a blocking command to it would never return.
  [[nodiscard]] bool frozen() const { return frozen_; }

 private:
  // Forks redis-server on port_; false when it exited at once (the port was taken).
  bool launch();
  void stop();

  ServerPersistence persistence_;
  RedisServerOptions options_;
  std::string host_ = "127.0.0.1";
  int port_ = 0;
  pid_t pid_ = -1;
  bool frozen_ = false;
  std::string directory_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
[[nodiscard]] int free_loopback_port();

}  // namespace locksim::live
