#!/usr/bin/env bash
# Report pages in headless Chromium, offline.
#
#   scripts/report-screenshots.sh            remakes the README's screenshots
#                                            (docs/report-*.png): the pause-past-lease
#                                            page and the index. Run after a change
#                                            that alters what the pages show.
#   scripts/report-screenshots.sh --check DIR
#                                            writes the report of the whole built-in
#                                            library, a screenshot of every page into
#                                            DIR, and holds every page to
#                                            scripts/label-overlaps.js: no label over
#                                            another label, a bar or a mark, as Chromium
#                                            lays the text out. Exits 1 when one does.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/locksim ] || bash scripts/build.sh
repo="$PWD"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

chromium_flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --disable-quic --user-data-dir="$scratch/profile")
shoot() {  # PAGE PNG HEIGHT: as a reader sees it, scripts off
  chromium "${chromium_flags[@]}" --disable-javascript --hide-scrollbars --window-size=1100,"$3" \
    --screenshot="$2" "file://$1" >"$scratch/chromium.log" 2>&1
}
overlaps() {  # PAGE: what label-overlaps.js finds on a copy of the page that loads it
  local checked="$scratch/checked.html"
  sed "s|</body>|<script src=\"file://$repo/scripts/label-overlaps.js\"></script></body>|" "$1" >"$checked"
  chromium "${chromium_flags[@]}" --dump-dom "file://$checked" 2>"$scratch/chromium.log" |
    awk '/<pre id="label-overlaps">/ { on = 1; sub(/.*<pre id="label-overlaps">/, "") }
         on { if (sub(/<\/pre>.*/, "")) { print; exit } print }'
}

# Run as a user would from a clone (`build/locksim report scenarios --out report`),
# so that the pictured commands and paths read as theirs would.
ln -s "$repo/build" "$scratch/build"
ln -s "$repo/scenarios" "$scratch/scenarios"
(cd "$scratch" && build/locksim report scenarios --out report >/dev/null)

if [ "${1:-}" != "--check" ]; then
  shoot "$scratch/report/h01-gc-pause-past-lease.html" "$repo"/docs/report-h01-gc-pause-past-lease.png 2150
  shoot "$scratch/report/index.html" "$repo"/docs/report-index.png 1300
  echo "wrote docs/report-h01-gc-pause-past-lease.png and docs/report-index.png"
  exit 0
fi

out="${2:?usage: scripts/report-screenshots.sh --check DIR}"
mkdir -p "$out"
pages=0
failed=0
for page in "$scratch"/report/*.html; do
  name="$(basename "$page" .html)"
  shoot "$page" "$out/$name.png" 2400
  found="$(overlaps "$page")"
  pages=$((pages + 1))
  if [ "$found" != "none" ]; then
    failed=$((failed + 1))
    echo "$name: ${found:-Chromium wrote no result}"
  fi
done
echo "$pages pages screenshotted into $out; $failed with a label over another label, a bar or a mark"
[ "$failed" -eq 0 ]
