'use strict';
// The npm redis-semaphore library's Mutex (5.8.0, over ioredis) as a
// `locksim live` worker program. The lock is the library's, unchanged;
// locksim-worker.js does the rest of the contract.
const Redis = require('ioredis');
const { Mutex } = require('redis-semaphore');
const lw = require('../../worker-helpers/node/locksim-worker.js');

async function main() {
  const cfg = lw.config();
  const options = { commandTimeout: lw.requestTimeoutMs() };
  // The Mutex's key is `mutex:NAME`; ioredis's keyPrefix puts it under the
  // run's prefix, the only keys locksim deletes at the end.
  const client = new Redis({ ...options, host: cfg.host, port: cfg.lock_port, keyPrefix: cfg.prefix });
  const storage = new Redis({ ...options, host: cfg.storage.host, port: cfg.storage.port });
  // Connected before the hello: start-up is no part of the run.
  await lw.untilReady(() => Promise.all([client.ping(), storage.ping()]));
  let mutex = null;

  await lw.runJobs({
    acquire: async () => {
      // A new Mutex per attempt, so each hold has its own identifier (the token).
      mutex = new Mutex(client, cfg.lock.name, {
        lockTimeout: cfg.lock.lease_ms,
        acquireAttemptsLimit: 1, // one attempt: the helper waits the scenario's retry draws between attempts
        retryInterval: 0,
        refreshInterval: 0, // no renewal: the lease is the lease
        // By default the library throws this inside a timer, which kills the process.
        onLockLost: (error) => console.error(`redis-semaphore: ${error.message}`),
      });
      return (await mutex.tryAcquire()) ? mutex.identifier : null;
    },
    release: async () => {
      await mutex.release(); // its compare-and-delete's answer is not told: true means "sent and answered"
      return true;
    },
    storageCommand: (...words) => storage.call(...words),
  });
}

main();
