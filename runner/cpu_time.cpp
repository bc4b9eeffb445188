#include "runner/cpu_time.h"

#include <ctime>

namespace locksim::runner {
namespace {

double seconds_of(clockid_t clock) {
  timespec now{};
  if (clock_gettime(clock, &now) != 0) return 0.0;  // a statistic only: no clock, no CPU figure
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace

double thread_cpu_seconds() { return seconds_of(CLOCK_THREAD_CPUTIME_ID); }
double process_cpu_seconds() { return seconds_of(CLOCK_PROCESS_CPUTIME_ID); }

}  // namespace locksim::runner
