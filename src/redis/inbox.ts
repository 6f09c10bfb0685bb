/**
 * The durable inbox, receiving side: a webhook handler whose `onEvent` stores each event on a BullMQ queue and
 * whose 200 therefore means "in Redis", not "processed". A worker (`inbox-worker.ts`) runs the application's
 * `onEvent` later, with retries and no 5 s limit.
 *
 * It is the ordinary webhook handler (same verification, parsing, status codes and deadline) with two changes:
 * - `onEvent` is the enqueue, so a Redis that cannot take the write fails the delivery with a 5xx and the gateway
 *   retries it: nothing is acknowledged that is not stored;
 * - dedup is the job id, derived from the event's idempotency key: a redelivery finds its job already there and
 *   adds nothing (the handler's own claim/complete store is not used).
 *
 * Redis holds the parsed events (customer data: message text, phone numbers) for as long as the jobs are kept.
 * Key names hold a hash of the idempotency key, never the key itself (a `wamid` encodes a phone number).
 */
import { createHash } from 'node:crypto';
import type * as BullMQ from 'bullmq';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import { durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { ON_EVENT_FAILED } from '../webhooks/claims.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../webhooks/dedup.js';
import type { WebhookEvent } from '../webhooks/events.js';
import { createWebhookHandler } from '../webhooks/fetch-handler.js';
import {
  dedupeKeyOf,
  resolveWebhookLogger,
  type WebhookHandlerOptions,
  type WebhookPlatformContext,
} from '../webhooks/handler-options.js';
import {
  createNodeWebhookHandler,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
} from '../webhooks/node-handler.js';
import { connectedToClusterNode, type RedisClient } from './client.js';
import { connectionReason, outageReason, whereOf } from './connection-log.js';
import { InboxError } from './errors.js';
import {
  closeRedis,
  clusterNodeError,
  type InboxConnection,
  openRedis,
  refuseClusterNode,
} from './inbox-connection.js';
import { queuePrefix } from './queue-keys.js';

/** The queue's name when none is given. Receivers and workers must agree on it (and on `prefix`). */
export const DEFAULT_INBOX_QUEUE = 'wa-gateway-inbox';

/**
 * The BullMQ job id of an event: `e` + base64url SHA-256 of its idempotency key. Deterministic, so every
 * delivery of an event maps to one job; hashed, so no key name in Redis holds a phone number, and free of the `:`
 * BullMQ refuses in custom ids.
 *
 * @example
 * const job = await queue.getJob(inboxJobId(event.idempotencyKey));
 */
export function inboxJobId(idempotencyKey: string): string {
  return `e${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
}

/** @internal What a job holds. Versioned so a later SDK can tell old jobs from new ones. */
export const inboxJobDataSchema = z.object({
  v: z.literal(1),
  /** Arrival time at the receiver, ms since the epoch. */
  receivedAt: z.number(),
  // The event as `parseWebhook` produced it (after a JSON round trip); checked only as far as the worker relies on.
  event: z.looseObject({ kind: z.string(), idempotencyKey: z.string() }),
});

/** @internal */
export type InboxJobData = z.infer<typeof inboxJobDataSchema>;

/**
 * The backoff type receivers give each job. Its value comes from the worker (`createInboxWorker({ backoff })`),
 * so retry policy is configured where the work runs.
 * @internal
 */
export const INBOX_BACKOFF_TYPE = 'wa-inbox';
/**
 * The attempts receivers give each job: a ceiling the worker never reaches. The worker's own `attempts` ends a
 * job (it fails the last attempt as unrecoverable), for the same reason as the backoff.
 * @internal
 */
export const INBOX_ATTEMPTS_CEILING = 1_000_000;

/** Where the queue lives; receivers and workers must use the same values. */
export interface InboxQueueOptions {
  /**
   * The Redis the queue lives in: a `redis://` URL, ioredis options, or an ioredis client (it is duplicated). For
   * a Redis Cluster, an ioredis `Cluster`: the queue's keys then get a hash tag naming it (`bull:{<queue>}:...`).
   */
  connection: InboxConnection;
  /** Default `'wa-gateway-inbox'`. */
  queueName?: string | undefined;
  /** BullMQ key prefix. Default `'bull'`. */
  prefix?: string | undefined;
}

/** Options of `createInboxHandler` and `createNodeInboxHandler`. */
export interface InboxHandlerOptions
  extends InboxQueueOptions,
    Omit<WebhookHandlerOptions, 'onEvent' | 'dedupe' | 'claimLeaseMs' | 'onStoreUnavailable'> {
  /**
   * How long one enqueue may take before the delivery is answered 500, in ms. Default 1,500: with the default
   * `deadlineMs` (4,000) a slow Redis still gets a 5xx to the gateway inside its 5 s.
   */
  enqueueTimeoutMs?: number | undefined;
  /**
   * How long a processed event stays in Redis, deduplicating redeliveries (BullMQ `removeOnComplete.age`). It is
   * also how long Redis keeps its payload. Default `dedupeTtlMs`, itself 24 h; the gateway's own retries arrive
   * within seconds, so an hour is plenty when memory matters.
   */
  keepCompletedMs?: number | undefined;
}

/** A handler that also closes its Redis connection. */
export interface InboxHandlerControls {
  /**
   * Resolves once the connection to Redis is up (deliveries before that are answered 500, which the gateway
   * retries). For start-up ordering and readiness probes; it waits as long as Redis is unreachable.
   */
  ready(): Promise<void>;
  /** Closes the queue and its connection. Deliveries arriving afterwards are answered 500. */
  close(): Promise<void>;
}

/** @internal Checks the queue options both sides share. */
export function queueOptions(options: InboxQueueOptions, role: string): { name: string; prefix: string } {
  const name = options.queueName ?? DEFAULT_INBOX_QUEUE;
  const prefix = options.prefix ?? 'bull';
  for (const [label, value] of [
    ['queueName', name],
    ['prefix', prefix],
  ] as const) {
    if (typeof value !== 'string' || !/^[\w.-]{1,100}$/.test(value)) {
      throw new ConfigurationError(`${role}: \`${label}\` must be 1 to 100 letters, digits, '_', '.' or '-'`);
    }
  }
  return { name, prefix };
}

/**
 * The logger the receiver gives the webhook core. The core logs an `onEvent` that throws as "onEvent failed", with
 * advice to pass `onError`; the receiver's `onEvent` is the SDK's own enqueue, whose `InboxError` the receiver
 * logs itself (once per run of failures, saying the event was not stored and why), so that line is left out.
 */
function ownFailuresLogged(logger: Logger): Logger {
  return {
    ...logger,
    error(message, meta) {
      if (message.startsWith(ON_EVENT_FAILED) && meta?.['errorName'] === 'InboxError') return;
      log(logger, 'error', message, meta);
    },
  };
}

/** Inbox handlers open in this process, by the Redis they write to. */
const openInboxes = new Map<string, number>();
/** More than this many open handlers on one Redis is one handler made per request (each holds a connection). */
const OPEN_INBOXES_WARNED = 8;
let openInboxesWarned = false;

/**
 * Counts the open handlers of one Redis, and warns once per process when they are more than a process needs: each
 * holds its own Redis connection until `close()`, so a handler created inside a request handler leaks one per
 * request, silently (the same mistake `GatewayClient` warns about for its limiter).
 */
function noteOpenInbox(where: string, change: 1 | -1, logger: Logger | undefined, role: string): void {
  const open = (openInboxes.get(where) ?? 0) + change;
  if (open > 0) openInboxes.set(where, open);
  else openInboxes.delete(where);
  if (change < 0 || open <= OPEN_INBOXES_WARNED || openInboxesWarned) return;
  openInboxesWarned = true;
  log(
    logger,
    'warn',
    `${role}: ${open} inbox handlers are open in this process for Redis at ${where}, each with a connection of its ` +
      'own until close(): create one handler at start-up and use it for every request. (Warned once per process.)',
    { where, open },
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new InboxError(`Redis did not acknowledge the enqueue within ${ms} ms`, 'timeout')),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Stores one event as a job, acknowledged by Redis within `timeoutMs`, or throws `InboxError`. */
async function addJob(
  bull: Queue,
  event: WebhookEvent,
  key: string | null | undefined,
  keepMs: number,
  timeoutMs: number,
): Promise<void> {
  const data: InboxJobData = {
    v: 1,
    receivedAt: Date.now(),
    event: event as unknown as InboxJobData['event'],
  };
  let job: { id?: unknown };
  try {
    job = await withTimeout(
      bull.add(event.kind, data, {
        // Without a key (dedupeKey answered null) BullMQ picks an id: the event is stored, not deduplicated.
        ...(typeof key === 'string' && key !== '' ? { jobId: inboxJobId(key) } : {}),
        attempts: INBOX_ATTEMPTS_CEILING,
        backoff: { type: INBOX_BACKOFF_TYPE },
        removeOnComplete: { age: Math.max(1, Math.ceil(keepMs / 1000)) },
        removeOnFail: false,
      }),
      timeoutMs,
    );
  } catch (error) {
    if (error instanceof InboxError) throw error;
    throw new InboxError(`Redis did not store the event: ${connectionReason(error)}`, 'unavailable', error);
  }
  if (typeof job?.id !== 'string' || job.id === '') {
    throw new InboxError('Redis answered the enqueue without a job id', 'unexpected_reply');
  }
}

/**
 * Builds the webhook handler (which checks the webhook options) first, then opens the queue's connection: a bad
 * option throws before any socket is opened.
 */
function createInbox<H>(
  options: InboxHandlerOptions,
  role: string,
  build: (webhookOptions: WebhookHandlerOptions) => H,
): H & InboxHandlerControls {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${role}: options are required ({ connection, secret })`);
  }
  const { connection, queueName: _q, prefix: _p, enqueueTimeoutMs, keepCompletedMs, ...webhook } = options;
  const queue = queueOptions(options, role);
  const timeoutMs = durationMs(enqueueTimeoutMs, `${role}: \`enqueueTimeoutMs\``, 1500);
  const keepMs = durationMs(
    keepCompletedMs,
    `${role}: \`keepCompletedMs\``,
    durationMs(webhook.dedupeTtlMs, `${role}: \`dedupeTtlMs\``, DEFAULT_DEDUPE_TTL_MS),
  );
  const dedupeKey = webhook.dedupeKey ?? ((event: WebhookEvent) => event.idempotencyKey);
  let closed = false;
  let client: RedisClient | undefined;
  let bull: Queue | undefined;
  let clusterNode = false;
  const logger = resolveWebhookLogger(webhook.logger, webhook.logLevel);

  const store = async (event: WebhookEvent): Promise<void> => {
    // The key first: an async dedupeKey may take its time, and the state checked below must be the one the enqueue
    // meets (closed, or Redis gone, while the key was looked up).
    const key = await dedupeKeyOf(dedupeKey, event);
    if (closed || !client || !bull) throw new InboxError('the inbox is closed', 'closed');
    if (clusterNode) throw clusterNodeError();
    // Refused before BullMQ is asked: its first command waits for the connection to be ready, however long.
    if (client.status !== 'ready') {
      const why = outageReason(client) ?? `its status is ${client.status}`;
      throw new InboxError(`Redis at ${whereOf(client)} is not connected (${why})`, 'unavailable');
    }
    await addJob(bull, event, key, keepMs, timeoutMs);
  };
  // Events not stored since the last one that was: the receiver's failed enqueue is logged once per run of them.
  let notStored = 0;
  const enqueue = async (event: WebhookEvent): Promise<void> => {
    try {
      await store(event);
    } catch (error) {
      if (error instanceof InboxError && notStored++ === 0) {
        log(
          logger,
          'error',
          `${role}: an event was not stored: ${error.message}. The delivery is answered 500 and the gateway ` +
            'retries it; logged once until an event is stored again.',
          { ...(client ? { where: whereOf(client) } : {}), reason: error.reason },
        );
      }
      throw error;
    }
    if (notStored > 0) {
      log(
        logger,
        'warn',
        `${role}: events are stored again; ${notStored} ${notStored === 1 ? 'was' : 'were'} not (their deliveries ` +
          'were answered 500 for the gateway to retry).',
      );
      notStored = 0;
    }
  };

  const handler = build({
    ...webhook,
    logger: logger ? ownFailuresLogged(logger) : false,
    onEvent: enqueue,
    dedupe: false,
  });
  // Loaded before any connection is opened: a missing bullmq must not leave a Redis connection behind.
  const { Queue } = loadOptionalPeer<typeof BullMQ>('bullmq', role);
  client = openRedis(
    connection,
    // Fail fast: no offline queue (a command while disconnected is refused at once), no replay of a command cut
    // by a dropped connection (the gateway's retry is the retry), and a bound on every command.
    { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: timeoutMs },
    logger,
    role,
  );
  refuseClusterNode(client, logger, role, () => {
    clusterNode = true;
  });
  bull = new Queue(queue.name, {
    connection: client,
    prefix: queuePrefix(client, queue.prefix, queue.name),
  });
  bull.on('error', () => {
    // Already logged by the connection's own listener; this one keeps the emitter from throwing.
  });
  const ownClient = client;
  const ownQueue = bull;
  const where = whereOf(ownClient);
  noteOpenInbox(where, +1, logger, role);
  return Object.assign(handler as H & object, {
    async ready(): Promise<void> {
      try {
        await ownQueue.waitUntilReady();
      } catch (error) {
        if (clusterNode) throw clusterNodeError();
        throw new InboxError(
          `Connecting the inbox failed: ${connectionReason(error)}`,
          closed ? 'closed' : 'unavailable',
          error,
        );
      }
      if (await connectedToClusterNode(ownClient)) throw clusterNodeError();
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      noteOpenInbox(where, -1, logger, role);
      try {
        await ownQueue.close();
      } catch {
        // Closing a queue whose Redis is gone fails; the connection is dropped below either way.
      }
      await closeRedis(ownClient);
    },
  }) as H & InboxHandlerControls;
}

/**
 * Creates a Fetch API webhook handler (`(request: Request) => Promise<Response>`) that stores each event in a
 * BullMQ queue and answers 200 once Redis has acknowledged the write. A redelivery of a stored event is answered
 * 200 without a second job. When Redis is down or slow the delivery is answered 5xx, so the gateway retries it.
 * Process the events with `createInboxWorker`. Call `close()` on shutdown.
 *
 * Throws `ConfigurationError` at creation for bad options (see `createWebhookHandler`).
 *
 * @example
 * const inbox = createInboxHandler({ connection: 'redis://127.0.0.1:6379', secret: process.env.WEBHOOK_SECRET! });
 * export const POST = (request: Request) => inbox(request);
 */
export function createInboxHandler(
  options: InboxHandlerOptions,
): ((request: Request, platform?: WebhookPlatformContext) => Promise<Response>) & InboxHandlerControls {
  return createInbox(options, 'createInboxHandler', createWebhookHandler);
}

/**
 * Creates a node:http / Express webhook handler (`(req, res) => Promise<void>`) that stores each event in a BullMQ
 * queue; same behaviour and options as `createInboxHandler`. Call `close()` on shutdown.
 *
 * @example
 * const inbox = createNodeInboxHandler({ connection: process.env.REDIS_URL!, secret: process.env.WEBHOOK_SECRET! });
 * app.post('/webhooks/whatsapp', inbox);
 * process.on('SIGTERM', () => void inbox.close());
 */
export function createNodeInboxHandler(
  options: InboxHandlerOptions,
): ((req: NodeWebhookRequest, res: NodeWebhookResponse) => Promise<void>) & InboxHandlerControls {
  return createInbox(options, 'createNodeInboxHandler', createNodeWebhookHandler);
}
