#!/usr/bin/env bash
# Rewrites the golden histories table (tests/golden/histories.tsv) and the
# golden replay traces (tests/golden/*.trace, listed in tests/golden/traces.txt)
# from this build (build/, or $LOCKSIM_BUILD_DIR), after an intended change to
# what the simulator records or what replay prints. Review the diff before
# committing it: the table's names every run whose history changed, the
# traces' every line a reader sees differently. Both builds (g++ and clang++)
# must then reproduce them: ctest's golden_test checks it in each.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${LOCKSIM_BUILD_DIR:-build}"
bash scripts/build.sh
"$build_dir/tests/golden/regenerate_golden" scenarios tests/golden/histories.tsv
while IFS=$'\t' read -r file arguments; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  # replay exits 1 when the run shows a violation: that is what the trace shows.
  # shellcheck disable=SC2086 # the arguments are words by design
  "$build_dir/locksim" replay $arguments >"tests/golden/$file" || (( $? == 1 ))
  echo "tests/golden/$file: $(wc -l <"tests/golden/$file") lines"
done <tests/golden/traces.txt
