"""redis-py's own lock (redis.lock.Lock, python3-redis 4.3.4) as a `locksim live` worker program.

The lock is the library's, unchanged: SET NX PX with a random token, released
by its Lua compare-and-delete. locksim_worker does the rest of the contract.
"""
import os
import sys

import redis
from redis.exceptions import LockNotOwnedError, RedisError
from redis.sentinel import Sentinel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "worker-helpers", "python"))
import locksim_worker as lw  # noqa: E402

cfg = lw.config()
timeout = lw.request_timeout_s()
if "sentinel" in cfg:
    # redis-failover: redis-py's own Sentinel client finds the primary (after
    # an error, as it does); the address Sentinel announces is reached
    # through its link in locksim's fault proxy.
    sentinel = Sentinel([(cfg["host"], cfg["sentinel"]["port"])], socket_timeout=timeout)
    client = sentinel.master_for(cfg["sentinel"]["master_name"], socket_timeout=timeout)
    announced = client.connection_pool.get_master_address
    client.connection_pool.get_master_address = lambda: (cfg["host"], lw.link_port(announced()[1]))
else:
    client = redis.Redis(cfg["host"], cfg["lock_port"], socket_timeout=timeout)
storage = redis.Redis(cfg["storage"]["host"], cfg["storage"]["port"], socket_timeout=timeout)
lw.until_ready(client.ping)  # connected before the hello: start-up is no part of the run
lw.until_ready(storage.ping)
lock = client.lock(cfg["lock"]["key"], timeout=cfg["lock"]["lease_ms"] / 1000)


def acquire():
    # One attempt: the helper waits the scenario's retry draws between attempts.
    return lock.local.token.decode() if lock.acquire(blocking=False) else None


def release(token):
    try:
        lock.release()
        return True
    except LockNotOwnedError:  # the key expired, or is someone else's now
        return False


lw.run_jobs(acquire=acquire, release=release, storage_command=storage.execute_command,
            request_errors=(RedisError,))
