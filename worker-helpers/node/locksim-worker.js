'use strict';
// locksim-worker: the `locksim live` worker contract, so that your program is
// only its lock code.
//
// A worker program of your own (`workers.command` in a scenario) must read its
// configuration, say hello, wait for the run's start, number its calls, run
// the counter or write-only job through locksim's storage scripts, print a
// history line for everything it does and stop itself at its planned pauses
// (docs/live.md, "Your own worker program"). This module does all of that;
// you give it three functions around your own Redis client and lock library:
//
//   const lw = require('.../locksim-worker.js');
//   const cfg = lw.config();
//   const storage = new Redis({ host: cfg.storage.host, port: cfg.storage.port, ... });
//   await lw.runJobs({ acquire, release, storageCommand: (...w) => storage.call(...w) });
//
// CommonJS, Node's own modules only; your client is yours.
// worker-helpers/README.md has the whole API and the handshake.

const fs = require('fs');

// stdout is for history lines only: a library's console.log goes to stderr.
console.log = console.error;

/** Throw it from acquire/release/renew for a failed attempt with a reason of its own ("no-quorum"). */
class Failed extends Error {
  constructor(reason) {
    super(reason);
    this.name = 'Failed';
    this.reason = reason;
  }
}

/** Throw it for a request that got no answer in time: the line says "timeout" (it may still happen). */
class Timeout extends Error {
  constructor(message = 'timeout') {
    super(message);
    this.name = 'Timeout';
  }
}

let cachedConfig = null;

/** This process's configuration (LOCKSIM_WORKER_CONFIG), parsed once: docs/live.md has its fields. */
function config() {
  if (cachedConfig === null) cachedConfig = JSON.parse(process.env.LOCKSIM_WORKER_CONFIG);
  return cachedConfig;
}

/** The scenario's (scaled) request timeout in whole ms (at least 1), for your clients' command timeouts; undefined: none. */
function requestTimeoutMs() {
  const timeoutMs = config().request_timeout_ms;
  return timeoutMs === null ? undefined : Math.max(1, Math.ceil(timeoutMs));
}

/** redis-failover: the port to connect to for a server Sentinel announces (its link through the fault proxy). */
function linkPort(announcedPort) {
  for (const [announced, link] of config().sentinel.ports) if (announced === announcedPort) return link;
  throw new Error(`Sentinel announced port ${announcedPort}, which is no server of this run`);
}

/**
 * Runs a start-up step (a first ping, a script load) again until it gets past
 * a failed request; resolves to its result. Your clients' timeout is the
 * scenario's, scaled (25 ms at the default time scale), and a loaded machine
 * can take longer than that to connect. Start-up is no part of the run, so it
 * may take what it takes, up to the 10 s locksim waits for every program's
 * hello by default (--ready-timeout).
 */
async function untilReady(step, limitMs = 10000) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      if (!failedRequest(error) || Date.now() > deadline) throw error;
      await sleepMs(10);
    }
  }
}

// process.hrtime is CLOCK_MONOTONIC on Linux: the clock every line's t is on.
const monotonicNs = () => process.hrtime.bigint();

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * One line on stdout, whole, with one write(2): a SIGKILL never leaves half of
 * one, and lines stay in the order they were made. A pipe Node made
 * non-blocking may say EAGAIN when full: wait a millisecond and write it again.
 */
function writeLine(object) {
  const data = Buffer.from(JSON.stringify(object) + '\n');
  let written = 0;
  while (written < data.length) {
    try {
      written += fs.writeSync(1, data, written, data.length - written);
    } catch (error) {
      if (error.code === 'EPIPE') process.exit(0); // locksim stopped reading: the run is over
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** The history lines on stdout, and the stops planned right after some of them. */
class History {
  constructor() {
    this.startNs = null;
    this.seen = new Map();
    this.calls = 0;
  }

  /** ns since the run's t = 0 on CLOCK_MONOTONIC: every line's t. */
  now() {
    return Number(monotonicNs() - this.startNs);
  }

  /** Unique in the run: a restarted worker is a new process, so its pid is part of the id. */
  callId() {
    this.calls += 1;
    return `${config().name}/${process.pid}/${this.calls}`;
  }

  /** Prints one history line (t and proc added; `call` among fields), then takes a pause planned right after it. */
  event(ev, fields = {}) {
    const line = { t: this.now(), proc: config().name, ev, ...fields };
    writeLine(line);
    const seen = (this.seen.get(ev) || 0) + 1;
    this.seen.set(ev, seen);
    this.stopIfPlanned(ev, seen);
  }

  /**
   * A pause planned exactly here: say so, then stop this whole process with a
   * real SIGSTOP; locksim sends SIGCONT. A signal from outside would come tens
   * of microseconds late, after the next request left; stopping ourselves keeps
   * that request in hand.
   */
  stopIfPlanned(after, nth) {
    for (const stop of config().stops) {
      if (stop.after === after && stop.nth === nth) {
        writeLine({ t: this.now(), proc: config().name, ev: 'live.stop', fault: stop.fault });
        process.kill(process.pid, 'SIGSTOP');
      }
    }
  }

  /**
   * The handshake: hello once ready, then t = 0 from locksim's one line on
   * stdin. Sent only now, after your clients connected, so that a slow start
   * (require, connections) does not eat into the run: locksim starts the run's
   * clock once every worker has said hello.
   */
  async helloAndWaitForStart() {
    writeLine({ ev: 'live.hello', self_stops: true });
    const line = await readOneLine(process.stdin);
    this.startNs = BigInt(JSON.parse(line).start_ns);
  }
}

function readOneLine(input) {
  return new Promise((resolve, reject) => {
    let text = '';
    input.setEncoding('utf8');
    input.on('data', (chunk) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) {
        input.destroy();
        resolve(text.slice(0, end));
      }
    });
    input.on('end', () => reject(new Error("locksim-worker: stdin closed before locksim's start line")));
    input.on('error', reject);
  });
}

const history = new History();

// A mistake in the program is no failed request: it ends the program, so
// that locksim shows its stack (exit status 1) instead of a run of retries.
const PROGRAM_ERRORS = [TypeError, ReferenceError, SyntaxError, RangeError, EvalError];

function failedRequest(error) {
  return error instanceof Error && !PROGRAM_ERRORS.some((kind) => error instanceof kind);
}

/** The line's reason for a failed request: the Failed's own, "timeout", or "error". */
function reasonOf(error) {
  if (error instanceof Failed) return error.reason;
  if (error instanceof Timeout || /time(d)? ?out/i.test(`${error.name} ${error.message}`)) return 'timeout';
  return 'error';
}

const sleepMs = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

async function sleepUntilNs(deadline) {
  const left = Number(deadline - monotonicNs()) / 1e6;
  if (left > 0) await sleepMs(left);
}

class Jobs {
  constructor({ acquire, release = null, storageCommand, renew = null, renewEveryMs = null }) {
    this.acquire = acquire;
    this.release = release;
    this.storageCommand = storageCommand;
    this.renew = renew;
    const cfg = config();
    this.lock = cfg.lock.name;
    this.leaseNs = cfg.lock.lease_ms === null ? null : cfg.lock.lease_ms * 1e6;
    this.renewEveryMs = renewEveryMs ?? (cfg.lock.lease_ms === null ? null : cfg.lock.lease_ms / 3);
    this.retries = 0;
    this.writes = 0;
  }

  async run() {
    const cfg = config();
    await history.helloAndWaitForStart();
    // The first job begins at this worker's planned start; after a restart that is past.
    await sleepUntilNs(history.startNs + BigInt(cfg.begin_ns));
    let done = 0;
    let givenUp = 0; // a job given up is a failed job, never done (acquire.give_up)
    while (done + givenUp < cfg.jobs) {
      const hold = await this.acquireUntilGranted();
      if (hold === null) {
        givenUp += 1;
        if (done + givenUp < cfg.jobs) await sleepMs(cfg.between_ms);
        continue;
      }
      history.event('hold.begin', { lock: this.lock, token: hold.token });
      const renewing = this.renew && this.renewEveryMs !== null ? this.keepRenewing(hold) : null;
      const ok = await this.doJob(done, hold.token);
      hold.done = true;
      if (hold.wake) hold.wake();
      if (renewing) await renewing;
      const reason = hold.lost ? 'lost' : history.now() >= hold.validUntil ? 'expired' : 'released';
      history.event('hold.end', { lock: this.lock, token: hold.token, reason });
      if (this.release) await this.releaseHold(hold);
      if (ok) done += 1;
      // After the last job the process ends at once, as the run does when all are done.
      if (done + givenUp < cfg.jobs) await sleepMs(cfg.between_ms);
    }
  }

  /**
   * Asks until granted, waiting the scenario's retry draws (cycled) between failed attempts;
   * null when the job is given up: after max_tries failed tries, or once acquire_timeout_ms has
   * passed since the first (a wait never runs past it), as locksim's own worker does
   * (model/client_rules.cpp, after_failed_acquire).
   */
  async acquireUntilGranted() {
    const cfg = config();
    const started = history.now();
    let tries = 0;
    for (;;) {
      const call = history.callId();
      history.event('acquire.invoke', { lock: this.lock, call });
      const sent = history.now(); // the lease counts from before the request left
      let result = null;
      let reason = 'held';
      try {
        result = await this.acquire();
      } catch (error) {
        if (!failedRequest(error)) throw error;
        reason = reasonOf(error);
      }
      // No line marks "request sent, reply not read" in a library's call: the
      // nearest point we have is before its result is acted on.
      history.stopIfPlanned('acquire.sent', history.seen.get('acquire.invoke'));
      if (result !== null && result !== undefined) {
        const grant = typeof result === 'object' ? result : { token: result };
        const fields = { lock: this.lock, token: grant.token };
        const leaseNs = grant.leaseNs ?? this.leaseNs;
        if (leaseNs !== null) fields.lease_ns = leaseNs;
        if (grant.validityNs !== undefined && grant.validityNs !== null) fields.validity_ns = Math.round(grant.validityNs);
        history.event('acquire.ok', { ...fields, call });
        const validUntil =
          fields.validity_ns !== undefined ? history.now() + fields.validity_ns : leaseNs === null ? Infinity : sent + leaseNs;
        return { token: grant.token, validUntil, lost: false, done: false, wake: null };
      }
      history.event('acquire.fail', { lock: this.lock, reason, call });
      tries += 1;
      let waitMs = cfg.retry_ms[this.retries % cfg.retry_ms.length];
      this.retries += 1;
      let giveUp = null;
      if (cfg.max_tries !== undefined && cfg.max_tries !== null && tries >= cfg.max_tries) {
        giveUp = 'max-tries';
      } else if (cfg.acquire_timeout_ms !== undefined && cfg.acquire_timeout_ms !== null) {
        const leftMs = cfg.acquire_timeout_ms - (history.now() - started) / 1e6;
        if (leftMs <= 0) giveUp = 'timeout';
        waitMs = Math.min(waitMs, leftMs);
      }
      if (giveUp !== null) {
        history.event('acquire.give_up', { lock: this.lock, reason: giveUp, tries });
        return null;
      }
      await sleepMs(waitMs);
    }
  }

  /** Renews every period until the hold ends or a renewal says the lock is no longer ours. */
  async keepRenewing(hold) {
    for (;;) {
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, this.renewEveryMs);
        hold.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (hold.done) return;
      const call = history.callId();
      history.event('renew.invoke', { lock: this.lock, token: hold.token, call });
      const sent = history.now();
      let renewed;
      try {
        renewed = await this.renew(hold.token);
      } catch (error) {
        if (!failedRequest(error)) throw error;
        history.event('renew.fail', { reason: reasonOf(error), call });
        continue; // no answer: try again at the next period
      }
      if (renewed) {
        history.event('renew.ok', { token: hold.token, lease_ns: this.leaseNs, call });
        hold.validUntil = sent + this.leaseNs;
      } else {
        history.event('renew.fail', { reason: 'not-held', call });
        hold.lost = true;
        return;
      }
    }
  }

  async releaseHold(hold) {
    const call = history.callId();
    history.event('release.invoke', { lock: this.lock, token: hold.token, call });
    let released = false;
    let reason = 'not-held';
    try {
      released = await this.release(hold.token);
    } catch (error) {
      if (!failedRequest(error)) throw error;
      reason = reasonOf(error);
    }
    history.event(released ? 'release.ok' : 'release.fail', released ? { call } : { reason, call });
  }

  /** Read (counter), work, write under the lock through locksim's scripts; true if the write was accepted. */
  async doJob(done, heldToken) {
    const cfg = config();
    const storage = cfg.storage;
    const { name, fencing } = cfg;
    const key = cfg.workload.key;
    const token = fencing ? String(heldToken) : '';
    let value;
    if (cfg.workload.kind === 'counter') {
      const call = history.callId();
      history.event('read.invoke', { key, call });
      const fenced = fencing && storage.fence_reads;
      let reply;
      try {
        reply = await this.storageCommand('EVALSHA', storage.read.sha1, 4, ...storage.read.keys, key, name,
          fenced ? token : '', fenced ? '1' : '0', call);
      } catch (error) {
        if (!failedRequest(error)) throw error;
        return false; // a read without an answer has no completion line
      }
      if (!Array.isArray(reply) || Number(reply[0]) !== 1) return false; // a fenced read turned away: no read.ok
      value = Number(reply[1]);
      history.event('read.ok', { key, value, call });
      value += 1;
    } else {
      value = cfg.jobs_done + done + 1; // write-only: the job's number over all this worker's processes
    }
    await sleepMs(cfg.work_ms[Math.min(done, cfg.work_ms.length - 1)]);
    let requestId = '';
    if (storage.idempotency_keys) {
      this.writes += 1;
      requestId = `${name}-${process.pid}-${this.writes}`;
    }
    const call = history.callId();
    const fields = { key, value };
    if (fencing) fields.token = heldToken;
    if (requestId) fields.request_id = requestId;
    history.event('write.invoke', { ...fields, call });
    let reply;
    try {
      reply = await this.storageCommand('EVALSHA', storage.write.sha1, 5, ...storage.write.keys,
        storage.write.request_key_prefix + requestId, key, name, value, token, fencing ? '1' : '0', requestId,
        storage.idempotency_keys ? '1' : '0', call);
    } catch (error) {
      if (!failedRequest(error)) throw error;
      history.event('write.fail', { reason: reasonOf(error), call });
      return false;
    }
    if (Array.isArray(reply) && Number(reply[0]) === 1) {
      history.event('write.ok', { call });
      return true;
    }
    const reason = Array.isArray(reply) && reply.length > 1 ? String(reply[1]) : 'error';
    history.event('write.fail', { reason, call });
    return false;
  }
}

/**
 * Runs this worker's jobs under your lock, printing the history; resolves when they are done.
 *
 * acquire(): one attempt; resolves to a token (number or string) when granted,
 *   or to { token, validityNs } (the hold then counts validityNs from the
 *   grant), or to null when the lock is held (acquire.fail "held"). Throw
 *   Failed(reason), Timeout, or your client's error for a failed request.
 * release(token): true when it let go of its own lock, false when the lock was
 *   no longer its own (release.fail "not-held"); throws as acquire does.
 *   Leave it out to let the lease run out.
 * storageCommand(...words): sends one Redis command to storage
 *   (config().storage) and resolves to its reply: (...w) => redis.call(...w).
 * renew(token): optional; true when it extended its own lock, false when the
 *   lock is no longer its own (the hold ends "lost"), every renewEveryMs
 *   (default a third of the lease) while holding.
 *
 * A TypeError, ReferenceError, SyntaxError, RangeError or EvalError is a bug,
 * not a failed request: it ends the program (exit 1, its stack on stderr).
 * When the jobs are done the process exits 0 (your clients' open connections
 * would otherwise keep it alive, and locksim waits for every worker to end).
 */
async function runJobs(options) {
  await new Jobs(options).run();
  process.exit(0);
}

module.exports = { config, requestTimeoutMs, linkPort, untilReady, history, runJobs, Failed, Timeout };
