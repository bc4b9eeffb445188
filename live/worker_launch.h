#pragma once
// Starting one worker process: locksim's own `live-worker`, or the user's
// program (workers.command) with its configuration in the environment. Its
// stdout is a pipe the coordinator reads history lines from; its stderr is
// locksim's, so what it says lands beside locksim's own messages. A program
// that cannot be started is an error naming the worker and the command, not
// an exit status to guess from.

#include <sys/types.h>

#include <string>
#include <vector>

#include "live/redis_client.h"

namespace locksim::live {

// The user's worker program (workers.command) did not keep the contract:
// it could not be started, exited non-zero, printed a line that is no event
// of its own, or made a history the checker refuses. Bad input, not a bug.
class WorkerProgramError : public LiveError {
 public:
  using LiveError::LiveError;
};

struct WorkerLaunch {
  std::vector<std::string> command;      // argv; command[0] is looked up on PATH unless it has a '/'
  std::vector<std::string> environment;  // "NAME=value", added to locksim's own
  std::string directory;                 // its working directory ("" = locksim's)
};

struct LaunchedWorker {
  pid_t pid = -1;
  int output = -1;  // the read end of its stdout (close-on-exec)
  // Our end of its stdin (close-on-exec), a socket so that writing to a
  // worker that died is an error (send_line), not a SIGPIPE that kills locksim.
  int input = -1;
};

// Each worker is the leader of a process group of its own, so that a pause,
// a crash and the end of the run reach every process of a user's program
// (a `sh -c` and what it started), and no child of it is left holding the pipe.
// Throws LiveError naming `worker` and the command when it cannot be started.
[[nodiscard]] LaunchedWorker launch_worker(const WorkerLaunch& launch, const std::string& worker);

// Writes one line to the worker's stdin; false if it is gone.
bool send_line(int input, const std::string& line);

// Sends `signal` to the worker's whole process group.
void signal_worker(pid_t pid, int signal);

// The command as the scenario file writes it (a JSON list), for messages.
[[nodiscard]] std::string command_text(const std::vector<std::string>& command);

}  // namespace locksim::live
