#include "live/live_worker_keys.h"

#include <array>

#include <fmt/core.h>

namespace locksim::live {
namespace {

constexpr std::array kKeys{
    LiveWorkerKey{"/workers", "the worker processes' settings"},
    LiveWorkerKey{"/workers/count", "that many worker processes, `worker-1` …"},
    LiveWorkerKey{"/workers/acquire",
                  "`set-nx-px`: one script doing `SET NX PX` and `INCR`; `get-then-set`: a plain `GET`, then a plain "
                  "`SET PX` — two round trips"},
    LiveWorkerKey{"/workers/release", "the release script: compare-and-delete, or a plain `DEL`; `none`: no release"},
    LiveWorkerKey{"/workers/renew", "`watchdog`: a renewal coroutine in the worker process, on its own connection"},
    LiveWorkerKey{"/workers/renew_every", "the watchdog's period, scaled (default lease / 3)"},
    LiveWorkerKey{"/workers/renew_command", "the renewal script: compare-and-extend, or a plain `PEXPIRE`"},
    LiveWorkerKey{"/workers/renew_on_error", "the watchdog after a failed renewal: the same rule (model/client_rules.h)"},
    LiveWorkerKey{"/workers/renew_retries", "a renewal with no answer in time is sent again: the same rule (model/client_rules.h)"},
    LiveWorkerKey{"/workers/renew_retry_delay", "the wait before each re-send, scaled"},
    LiveWorkerKey{"/workers/check_before_write", "the worker looks at its lease on its lease clock before writing"},
    LiveWorkerKey{"/workers/check_to_write",
                  "not slept: the worker process's own steps from its look to its write are the gap (measured: median "
                  "37 µs, p99 104 µs)"},
    LiveWorkerKey{"/workers/clock",
                  "the lease is timed on `CLOCK_MONOTONIC`, or with `wall` on `CLOCK_REALTIME` (clock faults have no "
                  "live form, so the two differ only by what NTP does meanwhile)"},
    LiveWorkerKey{"/workers/retry", "the wait after a failed acquire, drawn from the seed's stream and scaled"},
    LiveWorkerKey{"/workers/work", "the holder's work before its write, drawn and scaled"},
    LiveWorkerKey{"/workers/between", "the idle time between a job and the next acquire, drawn and scaled"},
    LiveWorkerKey{"/workers/start", "the job loop begins at the plan's start for the worker, scaled (begin_ns)"},
    LiveWorkerKey{"/workers/sentinel_discovery",
                  "`switch-master`: the worker subscribes to Sentinel's `+switch-master`; `on-error`: it does not, and "
                  "asks Sentinel only after a failed call"},
    LiveWorkerKey{"/workers/wait_replicas", "`WAIT replicas timeout` after each grant; too few: given back"},
    LiveWorkerKey{"/workers/wait_replicas/replicas", "`WAIT`'s replica count"},
    LiveWorkerKey{"/workers/wait_replicas/timeout", "`WAIT`'s timeout, scaled, in whole milliseconds"},
    LiveWorkerKey{"/workers/acquire_timeout",
                  "the job is given up (`acquire.give_up` reason `timeout`) once its first attempt began this long "
                  "ago, scaled, on `CLOCK_MONOTONIC`; no retry wait runs past it"},
    LiveWorkerKey{"/workers/max_tries", "the job is given up (`acquire.give_up` reason `max-tries`) after that many attempts"},
    LiveWorkerKey{"/workers/client",
                  "the library preset's keys, each kept live as above; your own program gets them in its "
                  "configuration (`lease_ms`, `retry_ms`, `max_tries`, `acquire_timeout_ms`, `request_timeout_ms`)"},
    LiveWorkerKey{"/workers/command", "your own worker program in place of locksim's (below)"},
};

}  // namespace

std::span<const LiveWorkerKey> live_worker_keys() { return kKeys; }

std::string live_worker_keys_markdown_table() {
  std::string table = "| key | live |\n|---|---|\n";
  for (const LiveWorkerKey& key : kKeys) {
    table += fmt::format("| `{}` | {} |\n", key.pattern, key.live);
  }
  return table;
}

}  // namespace locksim::live
