/**
 * Many instances, part 2 of 3: the worker. Takes the events the receivers stored and does the slow work with no
 * 5 s limit: here it keeps delivery receipts in a `StatusTracker` and counts incoming messages; yours would reply,
 * update a CRM or call an AI agent. A failure is retried with backoff; what still fails waits in the failed set
 * (`worker.failed()`) until `worker.replay(id | 'all')`. Run several for more throughput.
 *
 * Run:  REDIS_URL=redis://127.0.0.1:6379 npx tsx examples/many-instances/worker.ts
 *
 * Delivery to onEvent is at least once: make its effects idempotent (the event's `idempotencyKey` is stable).
 * In your app, import from 'wa-gateway-sdk/redis' and 'wa-gateway-sdk/webhooks'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInboxWorker, type InboxWorker } from '../../src/redis/index.js';
import { StatusTracker, type WebhookEvent } from '../../src/webhooks/index.js';

export interface WorkerOptions {
  redisUrl: string;
  queueName?: string;
  /** Delivery receipts; persist what you need in its `onChange`. */
  tracker?: StatusTracker;
  /** Called for every incoming message. */
  onMessage?: (event: Extract<WebhookEvent, { kind: 'message' }>) => Promise<void> | void;
}

export function startWorker(options: WorkerOptions): InboxWorker {
  const tracker = options.tracker ?? new StatusTracker();
  return createInboxWorker({
    connection: options.redisUrl,
    queueName: options.queueName,
    concurrency: 20,
    attempts: 5,
    backoff: { type: 'exponential', delayMs: 1000 },
    logger: console,
    onEvent: async (event) => {
      if (event.kind === 'status') tracker.update(event);
      else if (event.kind === 'message') await options.onMessage?.(event);
    },
  });
}

export async function main(env = process.env): Promise<InboxWorker> {
  const worker = startWorker({
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queueName: env.QUEUE_NAME,
  });
  await worker.ready();
  console.log('worker ready');
  process.once('SIGTERM', () => void worker.close());
  return worker;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
