#!/usr/bin/env bash
# Installs the Debian 12 packages locksim needs to build and test, and only
# those that are missing, so running it again is cheap. Needs root (or sudo).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  libboost-dev libfmt-dev nlohmann-json3-dev libcli11-dev libsimdjson-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev libpugixml-dev libpng-dev
  # The report test renders a page in headless Chromium, with a font to draw its text.
  chromium fonts-dejavu-core
  # Live mode runs scenarios against real Redis servers (started by locksim itself on loopback).
  redis-server redis-sentinel libhiredis-dev
  # The example worker program (examples/python-worker) and its live test.
  python3
  # clang++ 14 for the sanitizer build; libclang-rt-14-dev holds its sanitizer
  # and libFuzzer runtimes (libclang_rt.fuzzer-x86_64.a) for fuzz/.
  clang libclang-rt-14-dev
  # GNU parallel runs the local sharding recipe (scripts/shard-locally.sh, docs/scale-out.md).
  parallel
  # GNU time measures peak memory in bench/memory_in_seeds.sh.
  time
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

sudo_prefix=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_prefix=(sudo)
fi
echo "locksim: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_prefix[@]}" apt-get update -qq
"${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
