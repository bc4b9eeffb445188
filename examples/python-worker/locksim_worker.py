#!/usr/bin/env python3
"""An example of your own worker program for `locksim live` (workers.command).

Python 3 and its standard library only, so that it runs anywhere locksim
does and shows the contract in a language that is not locksim's: it reads
its configuration from LOCKSIM_WORKER_CONFIG, takes the lock with its *own*
lock code (SET NX PX plus a token counter, in one Lua script, as a Redis lock
library would), uses locksim's storage scripts by EVALSHA for the protected
resource, and prints each event it sees as a history line on stdout.
docs/live.md ("Your own worker program") is the contract this follows.

It speaks RESP by hand (a few lines: commands are arrays of bulk strings,
replies are parsed recursively) so that it needs no client library; a real
program would use its own Redis client (redis-py, Jedis, go-redis...).
"""
import json
import os
import signal
import socket
import sys
import time

config = json.loads(os.environ["LOCKSIM_WORKER_CONFIG"])
NAME = config["name"]
LOCK = config["lock"]
STORAGE = config["storage"]
FENCING = config["fencing"]
# null: no timeout (service.request_timeout "none"); socket timeouts of None block.
TIMEOUT_S = None if config["request_timeout_ms"] is None else max(config["request_timeout_ms"], 1) / 1000.0
LATE_STOPS = "--late-stops" in sys.argv[1:]

# This program's own lock code: the SET NX PX and the fencing token from a
# counter in one atomic step. Release: delete only if the value is still mine.
ACQUIRE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Timeout(Exception):
    pass


class Redis:
    """One connection; a request that times out drops it (the next one reconnects)."""

    def __init__(self, host, port):
        self.address = (host, port)
        self.sock = None
        self.buffer = b""

    def command(self, *words):
        try:
            if self.sock is None:
                self.sock = socket.create_connection(self.address, timeout=TIMEOUT_S)
                self.buffer = b""
            self.sock.settimeout(TIMEOUT_S)
            encoded = [str(word).encode() for word in words]
            request = b"*%d\r\n" % len(encoded) + b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in encoded)
            self.sock.sendall(request)
            return self.reply()
        except (socket.timeout, OSError):
            if self.sock is not None:
                self.sock.close()
            self.sock = None
            raise Timeout()

    def line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise OSError("connection closed")
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b"\r\n", 1)
        return text

    def reply(self):
        text = self.line()
        kind, rest = text[:1], text[1:]
        if kind in (b"+", b"-"):
            return rest.decode() if kind == b"+" else RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            length = int(rest)
            if length < 0:
                return None
            while len(self.buffer) < length + 2:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise OSError("connection closed")
                self.buffer += chunk
            data, self.buffer = self.buffer[:length], self.buffer[length + 2:]
            return data.decode()
        if kind == b"*":
            count = int(rest)
            return None if count < 0 else [self.reply() for _ in range(count)]
        raise OSError("not RESP: %r" % text)


start_ns = None  # the run's t = 0 on CLOCK_MONOTONIC: locksim writes it on stdin once we said we are ready


def now_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) - start_ns


seen = {}
calls = 0


def emit(event, call=None, **fields):
    """One history line, written whole with one write(); then any stop planned right after it."""
    line = {"t": now_ns(), "proc": NAME, "ev": event, **fields}
    if call is not None:
        line["call"] = call
    os.write(1, (json.dumps(line) + "\n").encode())
    seen[event] = seen.get(event, 0) + 1
    for stop in [] if LATE_STOPS else config["stops"]:
        if stop["after"] == event and stop["nth"] == seen[event]:
            os.write(1, (json.dumps({"t": now_ns(), "proc": NAME, "ev": "live.stop", "fault": stop["fault"]}) + "\n").encode())
            os.kill(os.getpid(), signal.SIGSTOP)  # locksim sends SIGCONT when the pause is over


def next_call():
    """Unique in the run: a restarted worker is a new process, so the pid is part of it."""
    global calls
    calls += 1
    return "%s/%d/%d" % (NAME, os.getpid(), calls)


def main():
    if LOCK["lease_ms"] is None:
        sys.stderr.write("locksim_worker.py: this example takes a lock with a lease (lock.lease in the scenario)\n")
        sys.exit(2)
    global start_ns
    lock = Redis(config["host"], config["lock_port"])
    storage = Redis(STORAGE["host"], STORAGE["port"])
    # Ready: say so, and whether we take our own stops exactly at the line
    # (see emit; with --late-stops we do not, and locksim stops us when it
    # reads the line). locksim answers with t = 0 when every worker is ready.
    os.write(1, (json.dumps({"ev": "live.hello", "self_stops": not LATE_STOPS}) + "\n").encode())
    start_ns = json.loads(sys.stdin.readline())["start_ns"]
    # Our first job begins at our planned start (begin_ns after t = 0); after a restart that is past.
    wait = (start_ns + config["begin_ns"] - time.clock_gettime_ns(time.CLOCK_MONOTONIC)) / 1e9
    if wait > 0:
        time.sleep(wait)
    key = config["workload"]["key"]
    reads = config["workload"]["kind"] == "counter"
    acquisitions = 0
    retries = 0
    job = 0
    while job < config["jobs"]:
        # Acquire, retrying.
        while True:
            acquisitions += 1
            value = "%s#%d" % (NAME, acquisitions)
            call = next_call()
            emit("acquire.invoke", call, lock=LOCK["name"])
            sent_ns = now_ns()
            try:
                token = lock.command("EVAL", ACQUIRE, 2, LOCK["key"], LOCK["token_key"], value, LOCK["lease_ms"])
                reason = "held"
            except Timeout:
                token, reason = 0, "timeout"
            if isinstance(token, int) and token > 0:
                emit("acquire.ok", call, lock=LOCK["name"], token=token, lease_ns=LOCK["lease_ms"] * 1_000_000)
                # The lease counts from before the request left, on this process's monotonic clock.
                valid_until = sent_ns + LOCK["lease_ms"] * 1_000_000
                break
            emit("acquire.fail", call, lock=LOCK["name"], reason=reason)
            time.sleep(config["retry_ms"][retries % len(config["retry_ms"])] / 1000.0)
            retries += 1
        emit("hold.begin", lock=LOCK["name"], token=token)
        if do_job(storage, key, reads, token, job):
            job += 1
        emit("hold.end", lock=LOCK["name"], token=token, reason="expired" if now_ns() >= valid_until else "released")
        call = next_call()
        emit("release.invoke", call, lock=LOCK["name"], token=token)
        try:
            released = lock.command("EVAL", RELEASE, 1, LOCK["key"], value) == 1
            emit("release.ok" if released else "release.fail", call, **({} if released else {"reason": "not-held"}))
        except Timeout:
            emit("release.fail", call, reason="timeout")
        time.sleep(config["between_ms"] / 1000.0)


def do_job(storage, key, reads, token, job):
    """Read, work, write under the lock, through locksim's storage scripts; True if the write was accepted."""
    sent_token = str(token) if FENCING else ""
    data_keys = STORAGE["read"]["keys"]
    value = job + 1
    if reads:
        call = next_call()
        emit("read.invoke", call, key=key)
        fenced = "1" if FENCING and STORAGE["fence_reads"] else "0"
        try:
            reply = storage.command("EVALSHA", STORAGE["read"]["sha1"], 4, *data_keys, key, NAME,
                                    sent_token if fenced == "1" else "", fenced, call)
        except Timeout:
            return False  # a read without an answer has no completion line
        if not isinstance(reply, list) or reply[0] != 1:
            return False
        emit("read.ok", call, key=key, value=reply[1])
        value = reply[1] + 1
    time.sleep(config["work_ms"][job] / 1000.0)
    request_id = "%s-%d" % (NAME, job + 1) if STORAGE["idempotency_keys"] else ""
    call = next_call()
    fields = {"key": key, "value": value}
    if FENCING:
        fields["token"] = token
    if request_id:
        fields["request_id"] = request_id
    emit("write.invoke", call, **fields)
    write_keys = STORAGE["write"]["keys"] + [STORAGE["write"]["request_key_prefix"] + request_id]
    try:
        reply = storage.command("EVALSHA", STORAGE["write"]["sha1"], 5, *write_keys, key, NAME, value, sent_token,
                                "1" if FENCING else "0", request_id, "1" if STORAGE["idempotency_keys"] else "0", call)
    except Timeout:
        emit("write.fail", call, reason="timeout")
        return False
    if isinstance(reply, list) and reply[0] == 1:
        emit("write.ok", call)
        return True
    emit("write.fail", call, reason=reply[1] if isinstance(reply, list) and len(reply) > 1 else "error")
    return False


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(0)  # locksim stopped reading: the run is over
