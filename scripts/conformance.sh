#!/usr/bin/env bash
# Live as the referee: runs every scenario of the live subset
# (scripts/live-subset.txt) live and simulated, RUNS runs per fencing mode
# each (default 20), and compares them per mode and violation kind with
# Fisher's exact test on the shares of runs that had it (`locksim live
# --compare-sim --require-agreement`). They disagree at p < 0.01. Prints a
# table of every scenario (with --docs, writes it into docs/live.md between
# its conformance markers) and exits 1 on any disagreement. Expectations are
# live-suite.sh's business; this judges only agreement.
#   bash scripts/conformance.sh [RUNS] [--docs]
# scripts/client-conformance.sh runs the same over the client examples
# (CONFORMANCE_LIST, CONFORMANCE_MARKER and CONFORMANCE_COMMAND name the
# list, the docs markers and the command the table is headed with).
set -euo pipefail
cd "$(dirname "$0")/.."
list="${CONFORMANCE_LIST:-scripts/live-subset.txt}"
marker="${CONFORMANCE_MARKER:-conformance}"
command="${CONFORMANCE_COMMAND:-bash scripts/conformance.sh}"
runs="${1:-20}"
write_docs=0
[ "${2:-}" = "--docs" ] && write_docs=1
[ -x build/locksim ] || bash scripts/build.sh

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
started=$(date +%s)
disagreed=0
while read -r entry _; do
  { [ -z "$entry" ] || [ "${entry:0:1}" = "#" ]; } && continue
  name="${entry%%:*}"
  key="${name//\//_}"  # a path (a client example) as one file name
  scale=()
  [ "$entry" != "$name" ] && scale=(--time-scale "${entry#*:}")
  status=0
  build/locksim live "$name" --runs "$runs" --compare-sim --require-agreement "${scale[@]}" \
    --json "$out/$key.json" > "$out/$key.txt" 2>&1 || status=$?
  if [ ! -s "$out/$key.json" ]; then
    echo "conformance: $name did not run (exit $status):" >&2
    cat "$out/$key.txt" >&2
    exit 3
  fi
  echo "$entry" >> "$out/order"
done < "$list"
elapsed=$(( $(date +%s) - started ))

table="$out/table.md"
python3 - "$out" "$runs" "$elapsed" "$command" > "$table" <<'PY' || disagreed=1
import json, os, sys
out, runs, elapsed, command = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
print(f"`{command} {runs}`: {runs} live runs and {runs} simulated seeds per fencing mode, "
      f"{elapsed // 60} min {elapsed % 60} s. Runs with each violation, live / simulated "
      "(p: Fisher's exact test, two-sided; a kind neither side saw is left out):")
print()
print("| scenario | mode | runs with each violation, live / simulated | verdict |")
print("|---|---|---|---|")
failed = False
for entry in open(f"{out}/order").read().split():
    name = entry.split(":")[0]
    shown = os.path.relpath(name) + entry[len(name):] if os.path.exists(name) else entry
    for item_mode in ("fencing-off", "fencing-on"):
        entries = [e for e in json.load(open(f"{out}/{name.replace('/', '_')}.json"))["agreement"] if e["mode"] == item_mode]
        if not entries:
            continue
        seen = [e for e in entries if e["live_runs_with"] or e["simulated_runs_with"]]
        cells = ", ".join(f"{e['kind']} {e['live_runs_with']}/{e['simulated_runs_with']}"
                          + ("" if e["agree"] else f" (p = {e['p']:.2g})") for e in seen) or "none either way"
        agree = all(e["agree"] for e in entries)
        failed |= not agree
        print(f"| {shown} | {item_mode} | {cells} | {'agree' if agree else '**disagree**'} |")
sys.exit(1 if failed else 0)
PY
cat "$table"
if [ "$write_docs" = 1 ]; then
  python3 - "$table" "$marker" "$command" <<'PY'
import sys
table, marker, command = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
path = "docs/live.md"
text = open(path).read()
begin, end = f"<!-- BEGIN {marker} ({command} --docs) -->\n", f"<!-- END {marker} -->"
start, stop = text.index(begin) + len(begin), text.index(end)
open(path, "w").write(text[:start] + table + text[stop:])
PY
fi
exit "$disagreed"
