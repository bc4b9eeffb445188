"""locksim_worker: the `locksim live` worker contract, so that your program is only its lock code.

A worker program of your own (`workers.command` in a scenario) must read its
configuration, say hello, wait for the run's start, number its calls, run the
counter or write-only job through locksim's storage scripts, print a history
line for everything it does and stop itself at its planned pauses
(docs/live.md, "Your own worker program"). This module does all of that;
you give it three functions around your own Redis client and lock library:

    import redis
    import locksim_worker as lw

    cfg = lw.config()
    client = redis.Redis(cfg["host"], cfg["lock_port"], socket_timeout=lw.request_timeout_s())
    lock = client.lock(cfg["lock"]["key"], timeout=cfg["lock"]["lease_ms"] / 1000)
    ...
    lw.run_jobs(acquire=..., release=..., storage_command=lambda *w: storage.execute_command(*w))

Python 3 standard library only; your client is yours. worker-helpers/README.md
has the whole API and the handshake.
"""
import json
import os
import signal
import sys
import threading
import time

__all__ = ["config", "request_timeout_s", "link_port", "etcd_endpoints", "until_ready", "history", "run_jobs", "Failed",
           "Timeout"]


class Failed(Exception):
    """Raise it from acquire/release/renew for a failed attempt that has a reason of its own ("no-quorum")."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class Timeout(Exception):
    """Raise it for a request that got no answer in time: the line says "timeout" (it may still happen)."""


_config = None


def config():
    """This process's configuration (LOCKSIM_WORKER_CONFIG), parsed once: docs/live.md has its fields."""
    global _config
    if _config is None:
        _config = json.loads(os.environ["LOCKSIM_WORKER_CONFIG"])
    return _config


def request_timeout_s():
    """The scenario's (scaled) request timeout in seconds, for your clients' socket timeouts; None: none."""
    timeout_ms = config()["request_timeout_ms"]
    return None if timeout_ms is None else max(timeout_ms, 1) / 1000.0


def link_port(announced_port):
    """redis-failover: the port to connect to for a server Sentinel announces (its link through the fault proxy)."""
    for announced, link in config()["sentinel"]["ports"]:
        if announced == announced_port:
            return link
    raise KeyError("Sentinel announced port %d, which is no server of this run" % announced_port)


def etcd_endpoints():
    """consensus: the etcd members as (host, port) pairs, the one to ask first (config()["etcd"]["first"]) first.

    Each is this worker's link to a member through locksim's fault proxy. A
    client of one endpoint takes the first; one that fails over goes down the
    list, as the model's client does (its nth client asks member n mod N first).
    """
    etcd = config()["etcd"]
    endpoints = etcd["endpoints"][etcd["first"]:] + etcd["endpoints"][:etcd["first"]]
    return [(endpoint.rsplit(":", 1)[0], int(endpoint.rsplit(":", 1)[1])) for endpoint in endpoints]


def until_ready(step, limit_s=10.0):
    """Runs a start-up step (a first ping, a script load) again until it gets past a timeout; returns its result.

    Your clients' timeout is the scenario's, scaled (25 ms at the default
    time scale), and a loaded machine can take longer than that to connect.
    Start-up is no part of the run, so it may take what it takes, up to the
    10 s locksim waits for every program's hello by default (--ready-timeout).
    """
    deadline = time.monotonic() + limit_s
    while True:
        try:
            return step()
        except Exception as error:  # noqa: BLE001 - only a timeout or a broken connection is tried again
            name = type(error).__name__
            if not (isinstance(error, OSError) or "Timeout" in name or "Connection" in name):
                raise
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class History:
    """The history lines on stdout, and the stops planned right after some of them.

    Each line goes out with one write() so that it is whole and a SIGKILL never
    leaves half of one; a lock keeps the lines of a renewal thread in order.
    """

    def __init__(self):
        self.start_ns = None
        self.seen = {}
        self.calls = 0
        self.mutex = threading.RLock()

    def now(self):
        """ns since the run's t = 0 on CLOCK_MONOTONIC: every line's t."""
        return _monotonic_ns() - self.start_ns

    def call_id(self):
        """Unique in the run: a restarted worker is a new process, so its pid is part of the id."""
        with self.mutex:
            self.calls += 1
            return "%s/%d/%d" % (config()["name"], os.getpid(), self.calls)

    def event(self, ev, call=None, **fields):
        """Prints one history line (t and proc added), then takes a pause planned right after it."""
        with self.mutex:
            line = {"t": self.now(), "proc": config()["name"], "ev": ev}
            line.update(fields)
            if call is not None:
                line["call"] = call
            _write(line)
            self.seen[ev] = self.seen.get(ev, 0) + 1
            self.stop_if_planned(ev, self.seen[ev])

    def stop_if_planned(self, after, nth):
        """A pause planned exactly here: say so, then stop this whole process; locksim sends SIGCONT.

        A signal from outside would come tens of microseconds late, after the
        next request left; stopping ourselves keeps that request in hand.
        """
        for stop in config()["stops"]:
            if stop["after"] == after and stop["nth"] == nth:
                _write({"t": self.now(), "proc": config()["name"], "ev": "live.stop", "fault": stop["fault"]})
                os.kill(os.getpid(), signal.SIGSTOP)

    def hello_and_wait_for_start(self):
        """The handshake: hello once ready, then t = 0 from locksim's one line on stdin.

        Sent only now, after your clients connected, so that a slow start
        (imports, connections) does not eat into the run: locksim starts the
        run's clock once every worker has said hello.
        """
        _write({"ev": "live.hello", "self_stops": True})
        line = sys.stdin.readline()
        if not line:
            sys.stderr.write("locksim_worker: stdin closed before locksim's start line\n")
            sys.exit(2)
        self.start_ns = json.loads(line)["start_ns"]
        sys.stdin.close()


def _write(line):
    os.write(1, (json.dumps(line, separators=(",", ":")) + "\n").encode())


history = History()


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _reason(error):
    """The line's reason for a failed request: the Failed's own, "timeout", or "error"."""
    if isinstance(error, Failed):
        return error.reason
    if isinstance(error, (Timeout, TimeoutError)) or "Timeout" in type(error).__name__:
        return "timeout"
    return "error"


def _sleep_until(deadline_ns):
    while True:
        left = deadline_ns - _monotonic_ns()
        if left <= 0:
            return
        time.sleep(left / 1e9)


class _Hold:
    """One hold: its token, until when its lease is ours on our own clock, and whether a renewal lost it."""

    def __init__(self, token, valid_until):
        self.token = token
        self.valid_until = valid_until
        self.lost = False
        self.done = threading.Event()


class _Jobs:
    """This worker's job loop, as locksim's own worker runs it (live/live_worker.cpp), around your functions."""

    def __init__(self, acquire, release, storage_command, renew, renew_every_ms, request_errors):
        self.acquire = acquire
        self.release = release
        self.storage_command = storage_command
        self.renew = renew
        self.request_errors = (Failed, Timeout, OSError) + tuple(request_errors)
        cfg = config()
        self.lock = cfg["lock"]["name"]
        self.lease_ns = None if cfg["lock"]["lease_ms"] is None else cfg["lock"]["lease_ms"] * 1_000_000
        if renew_every_ms is None and self.lease_ns is not None:
            renew_every_ms = cfg["lock"]["lease_ms"] / 3
        self.renew_every_s = None if renew_every_ms is None else renew_every_ms / 1000.0
        self.retries = 0
        self.writes = 0

    def run(self):
        cfg = config()
        history.hello_and_wait_for_start()
        # The first job begins at this worker's planned start; after a restart that is past.
        _sleep_until(history.start_ns + cfg["begin_ns"])
        done = 0
        given_up = 0  # a job given up is a failed job, never done (acquire.give_up)
        while done + given_up < cfg["jobs"]:
            hold = self.acquire_until_granted()
            if hold is None:
                given_up += 1
                if done + given_up < cfg["jobs"]:
                    time.sleep(cfg["between_ms"] / 1000.0)
                continue
            history.event("hold.begin", lock=self.lock, token=hold.token)
            renewer = None
            if self.renew is not None and self.renew_every_s is not None:
                renewer = threading.Thread(target=self.keep_renewing, args=(hold,), daemon=True)
                renewer.start()
            ok = self.do_job(done, hold.token)
            hold.done.set()
            if renewer is not None:
                renewer.join()
            reason = "lost" if hold.lost else "expired" if history.now() >= hold.valid_until else "released"
            history.event("hold.end", lock=self.lock, token=hold.token, reason=reason)
            if self.release is not None:
                self.release_hold(hold)
            if ok:
                done += 1
            if done + given_up < cfg["jobs"]:  # after the last job the process ends at once, as the run does when all are done
                time.sleep(cfg["between_ms"] / 1000.0)

    def acquire_until_granted(self):
        """Asks until granted, waiting the scenario's retry draws (cycled) between failed attempts;
        None when the job is given up: after max_tries failed tries, or once acquire_timeout_ms has
        passed since the first (a wait never runs past it), as locksim's own worker does
        (model/client_rules.cpp, after_failed_acquire)."""
        cfg = config()
        started = history.now()
        tries = 0
        while True:
            call = history.call_id()
            history.event("acquire.invoke", call, lock=self.lock)
            sent = history.now()  # the lease counts from before the request left
            try:
                result, reason = self.acquire(), "held"
            except self.request_errors as error:
                result, reason = None, _reason(error)
            # No line marks "request sent, reply not read" in a library's call: the
            # nearest point we have is before its result is acted on.
            history.stop_if_planned("acquire.sent", history.seen["acquire.invoke"])
            if result is not None:
                grant = result if isinstance(result, dict) else {"token": result}
                fields = {"lock": self.lock, "token": _text(grant["token"])}
                lease_ns = grant.get("lease_ns", self.lease_ns)
                if lease_ns is not None:
                    fields["lease_ns"] = lease_ns
                if grant.get("validity_ns") is not None:
                    fields["validity_ns"] = int(grant["validity_ns"])
                history.event("acquire.ok", call, **fields)
                if "validity_ns" in fields:
                    valid_until = history.now() + fields["validity_ns"]
                else:
                    valid_until = float("inf") if lease_ns is None else sent + lease_ns
                return _Hold(fields["token"], valid_until)
            history.event("acquire.fail", call, lock=self.lock, reason=reason)
            tries += 1
            wait_ms = cfg["retry_ms"][self.retries % len(cfg["retry_ms"])]
            self.retries += 1
            give_up = None
            if cfg.get("max_tries") is not None and tries >= cfg["max_tries"]:
                give_up = "max-tries"
            elif cfg.get("acquire_timeout_ms") is not None:
                left_ms = cfg["acquire_timeout_ms"] - (history.now() - started) / 1e6
                if left_ms <= 0:
                    give_up = "timeout"
                wait_ms = min(wait_ms, left_ms)
            if give_up is not None:
                history.event("acquire.give_up", lock=self.lock, reason=give_up, tries=tries)
                return None
            time.sleep(wait_ms / 1000.0)

    def keep_renewing(self, hold):
        """Renews every period until the hold ends or a renewal says the lock is no longer ours."""
        try:
            while not hold.done.wait(self.renew_every_s):
                call = history.call_id()
                history.event("renew.invoke", call, lock=self.lock, token=hold.token)
                sent = history.now()
                try:
                    renewed = self.renew(hold.token)
                except self.request_errors as error:
                    history.event("renew.fail", call, reason=_reason(error))
                    continue  # no answer: try again at the next period
                if renewed:
                    history.event("renew.ok", call, token=hold.token, lease_ns=self.lease_ns)
                    hold.valid_until = sent + self.lease_ns
                else:
                    history.event("renew.fail", call, reason="not-held")
                    hold.lost = True
                    return
        except BrokenPipeError:
            os._exit(0)

    def release_hold(self, hold):
        call = history.call_id()
        history.event("release.invoke", call, lock=self.lock, token=hold.token)
        try:
            released, reason = self.release(hold.token), "not-held"
        except self.request_errors as error:
            released, reason = False, _reason(error)
        if released:
            history.event("release.ok", call)
        else:
            history.event("release.fail", call, reason=reason)

    def storage(self, *words):
        reply = self.storage_command(*words)
        if isinstance(reply, Exception):  # a client that returns error replies instead of raising them
            raise reply
        return reply

    def do_job(self, done, held_token):
        """Read (counter), work, write under the lock through locksim's scripts; True if the write was accepted."""
        cfg = config()
        storage = cfg["storage"]
        name = cfg["name"]
        key = cfg["workload"]["key"]
        fencing = cfg["fencing"]
        token = str(held_token) if fencing else ""
        if cfg["workload"]["kind"] == "counter":
            call = history.call_id()
            history.event("read.invoke", call, key=key)
            fenced = fencing and storage["fence_reads"]
            try:
                reply = self.storage("EVALSHA", storage["read"]["sha1"], 4, *storage["read"]["keys"],
                                     key, name, token if fenced else "", "1" if fenced else "0", call)
            except self.request_errors:
                return False  # a read without an answer has no completion line
            if not isinstance(reply, list) or reply[0] != 1:
                return False  # a fenced read turned away: no read.ok
            value = int(reply[1])
            history.event("read.ok", call, key=key, value=value)
            value += 1
        else:
            value = cfg["jobs_done"] + done + 1  # write-only: the job's number over all this worker's processes
        time.sleep(cfg["work_ms"][min(done, len(cfg["work_ms"]) - 1)] / 1000.0)
        request_id = ""
        if storage["idempotency_keys"]:
            self.writes += 1
            request_id = "%s-%d-%d" % (name, os.getpid(), self.writes)
        call = history.call_id()
        fields = {"key": key, "value": value}
        if fencing:
            fields["token"] = held_token
        if request_id:
            fields["request_id"] = request_id
        history.event("write.invoke", call, **fields)
        keys = storage["write"]["keys"] + [storage["write"]["request_key_prefix"] + request_id]
        try:
            reply = self.storage("EVALSHA", storage["write"]["sha1"], 5, *keys, key, name, value,
                                 token, "1" if fencing else "0", request_id,
                                 "1" if storage["idempotency_keys"] else "0", call)
        except self.request_errors as error:
            history.event("write.fail", call, reason=_reason(error))
            return False
        if isinstance(reply, list) and reply and reply[0] == 1:
            history.event("write.ok", call)
            return True
        reason = _text(reply[1]) if isinstance(reply, list) and len(reply) > 1 else "error"
        history.event("write.fail", call, reason=reason)
        return False


def run_jobs(acquire, release, storage_command, renew=None, renew_every_ms=None, request_errors=()):
    """Runs this worker's jobs under your lock, printing the history; returns when they are done.

    acquire(): one attempt; a token (int or str) when granted, or a dict
        {"token": T, "validity_ns": V} (the hold then counts V from the grant),
        None when the lock is held (acquire.fail "held"). Raise Failed(reason),
        Timeout, an OSError or one of request_errors for a failed request.
    release(token): True when it let go of its own lock, False when the lock was
        no longer its own (release.fail "not-held"); raise as acquire does.
        None: no release, the lease runs out.
    storage_command(*words): sends one Redis command to storage (config()["storage"])
        and returns its reply, e.g. lambda *w: client.execute_command(*w).
    renew(token): optional; True when it extended its own lock, False when the
        lock is no longer its own (the hold ends "lost"). Called every
        renew_every_ms (default a third of the lease) while holding.
    request_errors: your client's exception classes for a failed request
        (redis.exceptions.RedisError); anything else is a bug and ends the program.

    When locksim stops reading (the run is over), the process exits 0.
    """
    try:
        _Jobs(acquire, release, storage_command, renew, renew_every_ms, request_errors).run()
    except BrokenPipeError:
        os._exit(0)  # locksim stopped reading: the run is over
