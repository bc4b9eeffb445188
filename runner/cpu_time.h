#pragma once
// CPU time, for the run statistics beside wall time: several threads run
// seeds at once, so the time spent on them adds up to more than the time
// the user waited. Read outside every simulation; nothing depends on it.

namespace locksim::runner {

// Seconds of CPU the calling thread has used.
[[nodiscard]] double thread_cpu_seconds();
// Seconds of CPU this process (all its threads) has used.
[[nodiscard]] double process_cpu_seconds();

}  // namespace locksim::runner
