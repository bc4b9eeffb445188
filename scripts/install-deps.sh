#!/usr/bin/env bash
# Installs the Debian 12 packages locksim needs to build and test, and only
# those that are missing, so running it again is cheap. Needs root (or sudo).
# Then the npm packages of the Node example worker programs, from their lock
# files, unless they are already there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(
  g++ cmake ninja-build pkg-config
  libboost-dev libfmt-dev nlohmann-json3-dev libcli11-dev libsimdjson-dev
  libgtest-dev libgmock-dev librapidcheck-dev libbenchmark-dev libpugixml-dev libpng-dev
  # The report test renders a page in headless Chromium, with a font to draw its text.
  chromium fonts-dejavu-core
  # Live mode runs scenarios against real Redis servers (started by locksim itself on loopback).
  redis-server redis-sentinel libhiredis-dev
  # ...and against a real etcd cluster, also started by locksim on loopback
  # (live/etcd_cluster.h); etcdctl to look at one by hand.
  etcd-server etcd-client
  # The example worker programs (examples/python-worker, examples/redis-py-lock:
  # redis-py's own Lock, run with /usr/bin/python3) and their live tests;
  # examples/python-etcd3-lock: python-etcd3's own Lock (0.12.0).
  python3 python3-redis python3-etcd3
  # clang++ 14 for the sanitizer build; libclang-rt-14-dev holds its sanitizer
  # and libFuzzer runtimes (libclang_rt.fuzzer-x86_64.a) for fuzz/.
  clang libclang-rt-14-dev
  # GNU parallel runs the local sharding recipe (scripts/shard-locally.sh, docs/scale-out.md).
  parallel
  # GNU time measures peak memory in bench/memory_in_seeds.sh.
  time
)

# The Node examples (examples/node-redlock, examples/redis-semaphore) use the
# node and npm on PATH; Debian's only where there is no node at all (on an
# image with a Node of its own, Debian's npm conflicts with it).
if ! command -v node >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  sudo_prefix=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_prefix=(sudo)
  fi
  echo "locksim: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # etcd-server's package starts a system etcd (on localhost:2379) when it is
  # installed; locksim needs only the binary and starts its own clusters. A
  # policy-rc.d that refuses every start keeps services down during the
  # install (Debian's invoke-rc.d asks it), unless the machine has its own.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo_prefix[@]}" tee "$policy" >/dev/null
    "${sudo_prefix[@]}" chmod +x "$policy"
    trap '"${sudo_prefix[@]}" rm -f "$policy"' EXIT
  fi
  "${sudo_prefix[@]}" apt-get update -qq
  "${sudo_prefix[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Each Node example's packages, exactly as its package-lock.json pins them
# (`npm ci`), unless node_modules already holds them: npm's record of what it
# installed (node_modules/.package-lock.json) lists the same packages as the
# lock file. A failure is said, not fatal: the example's live test skips
# itself without node_modules.
if ! command -v npm >/dev/null 2>&1; then
  echo "locksim: no npm beside node on PATH; the Node examples' packages are not installed (their tests skip)" >&2
  exit 0
fi
for example in examples/node-redlock examples/redis-semaphore; do
  dir="$root/$example"
  if [ -f "$dir/node_modules/.package-lock.json" ] &&
    node -e '
      const fs = require("fs");
      const [lock, installed] = process.argv.slice(1).map((file) => JSON.parse(fs.readFileSync(file, "utf8")));
      delete lock.packages[""];  // the example itself, which npm does not record as installed
      process.exit(JSON.stringify(lock.packages) === JSON.stringify(installed.packages) ? 0 : 1);
    ' "$dir/package-lock.json" "$dir/node_modules/.package-lock.json"; then
    continue
  fi
  echo "locksim: npm ci in $example"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
    echo "locksim: npm ci failed in $example; its live test will skip" >&2
  fi
done
