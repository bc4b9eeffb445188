"""python-etcd3's own lock (etcd3.Lock, Debian's python3-etcd3 0.12.0) as a `locksim live` worker program.

The lock is the library's, unchanged: a lease with the TTL, then one
transaction that puts the key /locks/NAME with the lease if it was never
created, released by a transaction that deletes it if its value is still the
lock's uuid, kept alive by refresh(). locksim_worker does the rest of the
contract.
"""
import os
import sys

import etcd3
import grpc
import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "worker-helpers", "python"))
import locksim_worker as lw  # noqa: E402

cfg = lw.config()
# 0.12.0 has a client of one endpoint (no MultiEndpointEtcd3Client): the
# member the model's client would ask first, through locksim's fault proxy.
host, port = lw.etcd_endpoints()[0]
client = etcd3.client(host, port, timeout=lw.request_timeout_s())
# Storage is locksim's Redis, reached only through its scripts (the helper sends them).
storage = redis.Redis(cfg["storage"]["host"], cfg["storage"]["port"], socket_timeout=lw.request_timeout_s())
lw.until_ready(client.status)  # connected before the hello: start-up is no part of the run
lw.until_ready(storage.ping)
# An etcd TTL is whole seconds (live runs consensus at time scale 1): the lease, rounded up.
lock = client.lock(cfg["lock"]["key"], ttl=(cfg["lock"]["lease_ms"] + 999) // 1000)


def acquire():
    # One attempt (timeout=0): the helper waits the scenario's retry draws between
    # attempts. The library's own wait (a watch on the key) fails on Debian 12's
    # tenacity 8 with a TypeError. Its token is a random uuid (it keeps no
    # revision); the lease is the TTL etcd granted (never less than asked).
    if not lock.acquire(timeout=0):
        return None
    return {"token": lock.uuid.hex(), "lease_ns": lock.lease.ttl * 1_000_000_000}


def release(token):
    return lock.release()  # False: the key is gone or someone else's


def renew(token):
    # One keep-alive of the lock's lease (refresh: a LeaseKeepAlive stream of one
    # request); etcd answers TTL 0 for a lease it no longer knows (expired).
    return any(answer.TTL > 0 for answer in lock.refresh())


lw.run_jobs(acquire=acquire, release=release, renew=renew, storage_command=storage.execute_command,
            request_errors=(etcd3.Etcd3Exception, grpc.RpcError, redis.RedisError))
