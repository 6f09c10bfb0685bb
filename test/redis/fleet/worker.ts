/**
 * One worker of the inbox fleet tests. `onEvent` fails at random with probability FAIL_RATE; a success appends the
 * event's idempotency key to OUT_FILE (synchronously, before BullMQ records the completion), so the test can count
 * completions per event across processes. Answers `counts` and `replay` requests from the parent over IPC.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createInboxWorker } from '../../../src/redis/index.js';
import { inboxConnection } from '../../helpers/redis-target.js';

const failRate = Number(process.env.FAIL_RATE ?? '0');
const out = openSync(process.env.OUT_FILE ?? '', 'a');
const worker = createInboxWorker({
  // A cluster is given as an ioredis Cluster (the inbox duplicates it); one node by its URL.
  connection: inboxConnection(process.env.REDIS_URL ?? ''),
  queueName: process.env.QUEUE_NAME,
  concurrency: Number(process.env.CONCURRENCY ?? '20'),
  attempts: 3,
  backoff: { type: 'fixed', delayMs: 20 },
  ...(process.env.LOCK_MS ? { lockDurationMs: Number(process.env.LOCK_MS) } : {}),
  onEvent: (event) => {
    if (Math.random() < failRate) throw new Error('simulated onEvent failure');
    writeSync(out, `${event.idempotencyKey}\n`);
  },
  // The failures are simulated and the test counts their effect: their log lines would only be noise.
  logger: { warn: () => {}, error: () => {} },
});
await worker.ready();
process.stdout.write('READY\n');

process.on('message', (message: { id: number; op: 'counts' | 'replay' }) => {
  const run = message.op === 'counts' ? worker.counts() : worker.replay('all');
  run.then(
    (result) => process.send?.({ id: message.id, result }),
    (error: unknown) => process.send?.({ id: message.id, error: String(error) }),
  );
});
process.on('SIGTERM', () => {
  void worker.close().then(() => {
    closeSync(out);
    process.exit(0);
  });
});
