#!/usr/bin/env bash
# How often etcd's resumed old leader revokes a lease that was kept alive
# through its pause (etcd issue #15247, in 3.4.23 as Debian ships it; fixed in
# 3.4.31 and 3.5.13). docs/models.md quotes the figures; the model draws the
# race at the rate they give (model/consensus_member.cpp, kStaleLessorRace).
#
# One trial: a fresh 3-member cluster on loopback (etcd from PATH, its own
# ports and throw-away directory), a TTL 5 lease granted through a follower
# and kept alive through it every second, the leader frozen (SIGSTOP) for 7 s
# and thawed (SIGCONT); a second later the lease is asked for. "revoked": the
# old leader's lessor found the lease expired by its stale deadline before it
# heard of the new term, and the new leader committed its revocation.
#
# Usage: scripts/etcd-stale-leader.sh [TRIALS]   (default 20; about 12 s each)
set -u
trials="${1:-20}"
export ETCDCTL_API=3
revoked=0

member_pids=()
stop_members() {
  { kill -9 "${member_pids[@]}"; wait "${member_pids[@]}"; } 2>/dev/null
  member_pids=()
}
trap stop_members EXIT

leader_index() {  # the index in $1 (comma-separated endpoints) of the member that leads, if one does
  etcdctl --endpoints "$1" endpoint status -w json 2>/dev/null | python3 -c '
import json, sys
for index, member in enumerate(json.load(sys.stdin)):
    if member["Status"]["header"]["member_id"] == member["Status"]["leader"]:
        print(index)' 2>/dev/null
}

for trial in $(seq 1 "$trials"); do
  dir=$(mktemp -d "${TMPDIR:-/tmp}/etcd-stale-leader-XXXXXX")
  base=$(( 30000 + RANDOM % 20000 ))
  cluster=""
  for m in 0 1 2; do cluster+="m$m=http://127.0.0.1:$((base + 5 + m)),"; done
  for m in 0 1 2; do
    etcd --name "m$m" --data-dir "$dir/m$m" \
      --listen-client-urls "http://127.0.0.1:$((base + m))" --advertise-client-urls "http://127.0.0.1:$((base + m))" \
      --listen-peer-urls "http://127.0.0.1:$((base + 5 + m))" --initial-advertise-peer-urls "http://127.0.0.1:$((base + 5 + m))" \
      --initial-cluster "${cluster%,}" --initial-cluster-token "trial-$trial" --initial-cluster-state new \
      >"$dir/m$m.log" 2>&1 &
    member_pids+=("$!")
  done
  endpoints="127.0.0.1:$base,127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2))"
  leader=""
  for _ in $(seq 1 50); do
    sleep 0.2
    leader=$(leader_index "$endpoints")
    [ -n "$leader" ] && break
  done
  if [ -z "$leader" ]; then
    echo "trial $trial: no leader within 10 s (ports taken?); skipped"
    stop_members; rm -rf "$dir"; continue
  fi
  follower="127.0.0.1:$((base + (leader + 1) % 3))"
  lease=$(etcdctl --endpoints "$follower" lease grant 5 | awk '{print $2}')
  kill -STOP "${member_pids[$leader]}"
  for _ in 1 2 3 4 5 6 7; do
    etcdctl --endpoints "$follower" --command-timeout=900ms lease keep-alive --once "$lease" >/dev/null 2>&1 &
    sleep 1
  done
  kill -CONT "${member_pids[$leader]}"
  sleep 1
  answer=$(etcdctl --endpoints "$follower" lease timetolive "$lease" 2>&1)
  if grep -q "already expired\|not found" <<<"$answer"; then
    revoked=$((revoked + 1))
    echo "trial $trial: revoked after the resume: $answer"
  else
    echo "trial $trial: kept: $answer"
  fi
  stop_members
  wait 2>/dev/null
  rm -rf "$dir"
done
echo "revoked in $revoked of $trials trials"
