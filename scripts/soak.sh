#!/usr/bin/env bash
# Hunting with fresh seeds: for MINUTES (default 10), again and again, runs
# the rapidcheck properties (the ctest label "property") with a fresh random
# RC_PARAMS seed, the built-in scenario suite from a fresh random first seed,
# and the oracle swarm (2,000 generated scenarios, checker vs oracle) from a
# fresh swarm seed; prints every failure with the command that reproduces it. CI runs
# the properties from one fixed seed and the suite from seed 1; this looks
# where they do not. Builds first if needed (ninja: quick when nothing changed).
#
#   scripts/soak.sh [MINUTES]        exit 0: nothing failed; 1: something did; 2: bad usage or no build
set -uo pipefail
cd "$(dirname "$0")/.."

minutes="${1:-10}"
if [[ ! "$minutes" =~ ^[0-9]+$ ]] || (( minutes == 0 )); then
  echo "usage: scripts/soak.sh [MINUTES]   (a whole number of minutes, default 10)" >&2
  exit 2
fi
build_dir="${LOCKSIM_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
bash scripts/build.sh || exit 2

random_u64() { od -An -N8 -tu8 /dev/urandom | tr -d ' \n'; }
random_u32() { od -An -N4 -tu4 /dev/urandom | tr -d ' \n'; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
deadline=$(( $(date +%s) + minutes * 60 ))
rounds=0
failures=0
while (( $(date +%s) < deadline )); do
  rounds=$(( rounds + 1 ))

  rc_seed="$(random_u64)"
  if RC_PARAMS="seed=$rc_seed" ctest --test-dir "$build_dir" -L property --output-on-failure --parallel "$jobs" \
       >"$log" 2>&1; then
    properties="ok"
  else
    properties="FAILED"
    failures=$(( failures + 1 ))
    echo "FAIL properties with RC_PARAMS=\"seed=$rc_seed\"; reproduce with:"
    echo "  RC_PARAMS=\"seed=$rc_seed\" ctest --test-dir $build_dir -L property --output-on-failure"
    # ctest's list of failed tests, and rapidcheck's own reproduce line per property.
    grep -E "^[[:space:]]+[0-9]+ - |RC_PARAMS|Falsifiable" "$log" | sed 's/^/  /' | head -40
  fi

  first_seed="$(random_u32)"
  if "$build_dir/locksim" run scenarios/ --first-seed "$first_seed" --quiet >"$log" 2>&1; then
    suite="ok"
  else
    suite="FAILED"
    failures=$(( failures + 1 ))
    echo "FAIL suite from --first-seed $first_seed; reproduce with:"
    echo "  $build_dir/locksim run scenarios/ --first-seed $first_seed"
    # What failed, with the replay command of each failing seed.
    sed 's/^/  /' "$log"
  fi
  swarm_seed="$(random_u32)"
  if LOCKSIM_SWARM_SEED="$swarm_seed" "$build_dir/tests/runner/oracle_swarm_test" \
       --gtest_filter='*Thousands*' >"$log" 2>&1; then
    swarm="ok"
  else
    swarm="FAILED"
    failures=$(( failures + 1 ))
    echo "FAIL oracle swarm with LOCKSIM_SWARM_SEED=$swarm_seed; reproduce with:"
    echo "  LOCKSIM_SWARM_SEED=$swarm_seed $build_dir/tests/runner/oracle_swarm_test"
    # The disagreeing runs, each with its generated scenario.
    grep -vE "^\[|^$|Running main" "$log" | sed 's/^/  /' | head -40
  fi
  echo "round $rounds: properties (seed=$rc_seed) $properties, suite (--first-seed $first_seed) $suite," \
       "swarm (seed $swarm_seed) $swarm"
done

echo "soak: $rounds rounds in $minutes min, $failures failure(s)"
(( failures == 0 ))
