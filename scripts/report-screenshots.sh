#!/usr/bin/env bash
# Remakes the README's report screenshots (docs/report-*.png): writes the
# report of the built-in library into a scratch directory and renders the
# pause-past-lease page and the index with headless Chromium, offline.
# Run after a change that alters what the pages show.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/locksim ] || bash scripts/build.sh
repo="$PWD"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Run as a user would from a clone (`build/locksim report scenarios --out report`),
# so that the pictured commands and paths read as theirs would.
ln -s "$repo/build" "$scratch/build"
ln -s "$repo/scenarios" "$scratch/scenarios"
(cd "$scratch" && build/locksim report scenarios --out report >/dev/null)
shoot() {  # PAGE PNG HEIGHT
  chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --disable-quic --disable-javascript --hide-scrollbars \
    --user-data-dir="$scratch/profile" --window-size=1100,"$3" --screenshot="$2" "file://$scratch/report/$1" \
    >"$scratch/chromium.log" 2>&1
}
shoot h01-gc-pause-past-lease.html "$repo"/docs/report-h01-gc-pause-past-lease.png 2150
shoot index.html "$repo"/docs/report-index.png 1300
echo "wrote docs/report-h01-gc-pause-past-lease.png and docs/report-index.png"
