'use strict';
// The npm redlock library (5.0.0-beta.2: Redlock over ioredis, one client per
// instance) as a `locksim live` worker program. The lock is the library's,
// unchanged; locksim-worker.js does the rest of the contract.
const Redis = require('ioredis');
const { default: Redlock, ExecutionError } = require('redlock');
const lw = require('../../worker-helpers/node/locksim-worker.js');

async function main() {
  const cfg = lw.config();
  const options = { host: cfg.host, commandTimeout: lw.requestTimeoutMs() };
  const instances = cfg.lock_ports.map((port) => new Redis({ ...options, port }));
  const storage = new Redis({ ...options, host: cfg.storage.host, port: cfg.storage.port });
  // retryCount 0: one round per attempt; the helper waits the scenario's retry draws between attempts.
  const redlock = new Redlock(instances, { retryCount: 0 });
  // Connected, and Redlock's scripts loaded (it sends EVALSHA, and EVAL after a
  // NOSCRIPT), before the hello: as in a long-running process, every attempt
  // is one round trip, and start-up is no part of the run.
  await lw.untilReady(() => Promise.all([storage.ping(), ...instances.flatMap((c) =>
    Object.values(redlock.scripts).map((script) => c.script('LOAD', script.value)))]));
  let lock = null;

  await lw.runJobs({
    acquire: async () => {
      try {
        lock = await redlock.acquire([cfg.lock.key], cfg.lock.lease_ms);
      } catch (error) {
        if (error instanceof ExecutionError) throw new lw.Failed('no-quorum');
        throw error;
      }
      // Redlock's own validity (its expiration, on the wall clock): it does not refuse a spent one.
      return { token: lock.value, validityNs: (lock.expiration - Date.now()) * 1e6 };
    },
    release: async () => {
      try {
        await lock.release();
      } catch (error) {
        // No majority confirmed: the lock was gone or someone else's there, or no answer came.
        if (error instanceof ExecutionError) throw new lw.Failed('no-quorum');
        throw error;
      }
      return true;
    },
    storageCommand: (...words) => storage.call(...words),
  });
}

main();
