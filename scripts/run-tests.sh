#!/usr/bin/env bash
# Install what is missing, build, and run every test through ctest: once in
# the normal build (g++, RelWithDebInfo), once in the sanitizer build
# (clang++, AddressSanitizer + UndefinedBehaviorSanitizer), so both compilers
# build the project with -Werror and both reproduce the golden histories;
# then each libFuzzer target for a short, bounded time from its corpus.
#
# Each step prints its time against its budget. The budgets, measured on the
# 2-core machine CI runs on, from a fresh clone with nothing built (the whole
# must stay under 40 minutes; measured 2026-12-02 on a fresh clone: 23 min
# 58 s in all on a busy machine, steps 0, 643, 42, 614, 75 and 64 s; 20 min
# 2 s on an idle one, steps 0, 503, 35, 544, 56 and 64 s; 2026-12-04 on a
# fresh clone, a machine with light work beside it: 26 min 43 s, steps 1,
# 732, 55, 618, 133 and 64 s; later that day, with Sentinel's tests and the
# live test of a paused failover primary, idle: 30 min 29 s, steps 1, 756,
# 74, 791, 143 and 64 s; later still, with workers.start and the watchdog's
# renew_on_error, idle: 33 min 45 s, steps 1, 897, 75, 830, 158 and 64 s;
# 2026-12-05, explore's seeds first and advise, a slow hour: 41 min 41 s;
# then with the test sources in unity batches on shared precompiled headers
# and line tables only for debug information, idle: 28 min 1 s, steps 1,
# 605, 106, 607, 298 and 64 s; later, with the client examples' live
# tests (redis-py, node-redlock, redis-semaphore), idle: 26 min 41 s, steps
# 4, 602, 115, 548, 268 and 64 s; then with live etcd (the consensus live
# tests, the python-etcd3 example), idle: 31 min 7 s, steps 4, 657, 186,
# 678, 278 and 64 s; 2026-12-06, with verify, idle: 28 min 21 s, steps 4,
# 563, 168, 707, 196 and 63 s — the clang build within 13 s of its old 12
# min, so its budget is 14 min; the test sources are compiled at -O0,
# tests/CMakeLists.txt):
#   install  60 s   (nothing to install; a fresh machine's apt-get takes longer)
#   build    12 min g++ RelWithDebInfo -g1, -Werror
#   test     3.5 min ctest, the oracle swarm, the live (Redis and etcd) and the Chromium tests included
#   build    14 min clang++ Debug -O1 -gline-tables-only, ASan + UBSan, with the fuzz targets
#   test     6 min  ctest without the swarm, live, library and Chromium tests
#   fuzz     1.5 min three targets, 20 s each
# (38 min in all, under the 40 the gate allows.)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc 2>/dev/null || echo 2)"

# step NAME BUDGET_SECONDS COMMAND...: runs COMMAND and prints how long it took.
step() {
  local name="$1" budget="$2"
  shift 2
  local start=$SECONDS
  "$@"
  local took=$(( SECONDS - start ))
  local over=""
  (( took > budget )) && over="  OVER BUDGET"
  echo "step ${name}: ${took} s (budget ${budget} s)${over}"
}

step "install dependencies" 60 bash scripts/install-deps.sh

step "build g++" 720 bash scripts/build.sh
step "test g++" 210 ctest --test-dir build --output-on-failure --parallel "$jobs"

step "build clang++ sanitizers" 840 bash scripts/build-sanitizer.sh
# The oracle swarm (label "swarm"), the Chromium screenshot (label
# "chromium"), the live tests against real redis-servers (label "live") and
# explore over the whole library (label "library") run in the normal build only.
# Measured from fresh clones on the 2-core machine: 167 s (2026-12-04, 923
# tests in all), 202 s (the same day, 940: four more built-ins and their golden
# runs, and the load of the moment); a third of it is one test, the run that
# reaches the 2-million-event limit (47 s under the sanitizers); 251 s
# (2026-12-05, 925 tests: explore's seeds-first tests add about 45 s, the
# nightly job's 33 seeds and its shrink 33 s of it); 298 s (the same day,
# 993 tests: the label test over every built-in's pictures, and the costs).
step "test clang++ sanitizers" 360 ctest --test-dir build-sanitize --output-on-failure --parallel "$jobs" \
  --label-exclude 'swarm|chromium|live|library'

# Fuzzing runs in the sanitizer build only (it needs clang's libFuzzer).
step "fuzz" 90 env LOCKSIM_FUZZ_SKIP_BUILD=1 bash scripts/fuzz.sh 20
