#pragma once
// A live worker: one OS process running the scenario's job loop against the
// real Redis servers on Boost.Asio coroutines — acquire (retrying), hold,
// read, work, write, release, and the watchdog beside it — printing every
// event it sees as a history JSON line on stdout, timed on CLOCK_MONOTONIC
// from the run's zero. A pause is the coordinator's SIGSTOP of this process
// (its watchdog freezes with it, as a GC pause freezes every thread); a
// crash its SIGKILL.
//
// Each line a call produces carries `call` ("worker-1/PID/7"), which the
// coordinator matches to what the servers logged, then drops.

#include "live/worker_config.h"

namespace locksim::live {

// Runs the job loop to its end; returns the process's exit code (0 done, 2 bad configuration).
int run_live_worker(const WorkerConfig& config);

}  // namespace locksim::live
