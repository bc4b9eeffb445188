#!/usr/bin/env bash
# Install what is missing, build, and run every test through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc 2>/dev/null || echo 2)"
