#!/usr/bin/env bash
# Fuzzing with libFuzzer: builds the clang sanitizer build (build-sanitize, or
# $LOCKSIM_FUZZ_BUILD_DIR: ASan + UBSan, the fuzz targets in fuzz/) if needed,
# then runs each target for SECONDS (default 600) from the corpora in
# tests/data/, one after the other, and prints for each how many inputs it
# ran and how fast. Inputs that reach new code are kept in
# BUILD/fuzz/corpus/TARGET between runs. A crash, a sanitizer report, an
# input slower than 10 s or one that needs over 2 GB leaves that input in
# BUILD/fuzz/artifacts/ and makes the script exit 1: minimize it
# (`BUILD/fuzz/TARGET -minimize_crash=1 -runs=100000 -exact_artifact_path=min FILE`),
# fix the bug, and add the input to tests/data/ with its expected message.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   exit 0: nothing found; 1: something was; 2: bad usage or no build
# TARGET is scenario_reader_fuzzer, history_checker_fuzzer or summary_reader_fuzzer (default: all three).
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-600}"
if [[ ! "$seconds" =~ ^[0-9]+$ ]] || (( seconds == 0 )); then
  echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (a whole number of seconds per target, default 600)" >&2
  exit 2
fi
shift || true
targets=("$@")
if (( ${#targets[@]} == 0 )); then
  targets=(scenario_reader_fuzzer history_checker_fuzzer summary_reader_fuzzer)
fi

build_dir="${LOCKSIM_FUZZ_BUILD_DIR:-build-sanitize}"
if [[ "${LOCKSIM_FUZZ_SKIP_BUILD:-}" != 1 ]]; then
  LOCKSIM_SANITIZE_BUILD_DIR="$build_dir" bash scripts/build-sanitizer.sh || exit 2
fi

# The seed corpora of each target: the files the tests already hold.
seed_directories() {
  case "$1" in
    scenario_reader_fuzzer)
      echo scenarios tests/data/scenarios tests/data/bad-scenarios tests/data/swarm-regressions tests/data/limits ;;
    history_checker_fuzzer) echo tests/data/histories tests/data/bad-histories tests/data/hostile ;;
    summary_reader_fuzzer) echo tests/data/summaries tests/data/bad-summaries ;;
    *) return 1 ;;
  esac
}

found=0
for target in "${targets[@]}"; do
  seeds="$(seed_directories "$target")" || { echo "fuzz.sh: unknown target $target" >&2; exit 2; }
  binary="$build_dir/fuzz/$target"
  [[ -x "$binary" ]] || { echo "fuzz.sh: $binary is not built" >&2; exit 2; }
  corpus="$build_dir/fuzz/corpus/$target"
  artifacts="$build_dir/fuzz/artifacts/$target"
  log="$build_dir/fuzz/$target.log"
  mkdir -p "$corpus" "$artifacts"
  existing_seeds=()
  for directory in $seeds; do [[ -d "$directory" ]] && existing_seeds+=("$directory"); done
  dictionary="fuzz/${target%_fuzzer}.dict"
  dictionary_flag=()
  [[ -f "$dictionary" ]] && dictionary_flag=("-dict=$dictionary")
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dictionary_flag[@]}" "$corpus" "${existing_seeds[@]}" >"$log" 2>&1
  status=$?
  executions="$(grep -o 'stat::number_of_executed_units:[[:space:]]*[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  speed="$(grep -o 'stat::average_exec_per_sec:[[:space:]]*[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)"
  inputs="$(find "$corpus" -type f | wc -l)"
  if (( status == 0 )); then
    outcome="found nothing"
  else
    outcome="FOUND a problem (exit $status): $(ls "$artifacts" | tr '\n' ' ')— see $log"
    found=1
    grep -E "ERROR:|SUMMARY:|terminate called|what\(\)" "$log" | head -5 | sed 's/^/  /'
  fi
  echo "fuzz $target: ${seconds}s, ${executions:-?} executions, ${speed:-?} exec/s, corpus $inputs inputs: $outcome"
done
exit "$found"
