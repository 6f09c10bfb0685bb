/**
 * The durable inbox against a real redis-server: a 200 means a job in Redis, a redelivery adds no second job, the
 * worker retries and keeps what still fails in a failed set that can be replayed, and a Redis that goes away turns
 * into 5xx answers and typed errors, never a crash, with nothing of the payload in a log line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import {
  createInboxHandler,
  createInboxWorker,
  createNodeInboxHandler,
  DEFAULT_INBOX_QUEUE,
  InboxError,
  type InboxWorker,
  inboxJobId,
} from '../../src/redis/index.js';
import { messageEnvelope, statusEnvelope, statusObject, textMessage } from '../../src/testing/index.js';
import type { WebhookEvent } from '../../src/webhooks/index.js';
import { describeRedis, startRedis } from '../helpers/redis-server.js';
import { inboxSuite } from './fixtures/inbox-suite.js';

const SECRET = 'inbox-test-secret-0123456789abcdef0123';
const PHONE = '15550009876';
const BODY_TEXT = 'my card number is 4111 1111 1111 1111';

function delivery(body: unknown): Request {
  return new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function recordingLogger() {
  const lines: string[] = [];
  const push = (message: string, meta?: Record<string, unknown>) =>
    lines.push(`${message} ${JSON.stringify(meta ?? {})}`);
  return { lines, logger: { warn: push, error: push } };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

let queueSeq = 0;
const nextQueue = () => `inbox-test-${process.pid}-${++queueSeq}`;

describeRedis('durable inbox (real redis-server)', () => {
  const suite = inboxSuite();
  const { closers } = suite;

  function handler(queueName: string, extra: { logger?: ReturnType<typeof recordingLogger>['logger'] } = {}) {
    const h = createInboxHandler({ connection: suite.server.url, secret: SECRET, queueName, ...extra });
    closers.push(() => h.close());
    return h;
  }

  function worker(options: Omit<Parameters<typeof createInboxWorker>[0], 'connection'>): InboxWorker {
    const w = createInboxWorker({ connection: suite.server.url, ...options });
    closers.push(() => w.close());
    return w;
  }

  // The handler answers 503 until its connection is up.
  const ready = (h: ReturnType<typeof handler>) => h.ready();

  it('answers 200 once the event is a job in Redis, and a redelivery adds no second job', async () => {
    const queueName = nextQueue();
    const h = handler(queueName);
    await ready(h);
    const message = textMessage({ from: PHONE, text: { body: BODY_TEXT } });
    const envelope = messageEnvelope(message);
    expect((await h(delivery(envelope))).status).toBe(200);
    expect((await h(delivery(envelope))).status).toBe(200);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    const job = await queue.getJob(inboxJobId(message.id));
    expect(job?.name).toBe('message');
    expect((job?.data as { event: WebhookEvent } | undefined)?.event.idempotencyKey).toBe(message.id);
    // No key name holds the wamid (it encodes a phone number) or the phone number itself.
    const keys = await suite.redis.keys('*');
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).not.toContain(message.id);
      expect(key).not.toContain(PHONE);
    }
  });

  it('awaits an async dedupeKey: the job id is the looked-up key, and a redelivery adds no second job', async () => {
    const queueName = nextQueue();
    const h = createInboxHandler({
      connection: suite.server.url,
      secret: SECRET,
      queueName,
      dedupeKey: async (event) => `looked-up-${event.idempotencyKey}`,
    });
    closers.push(() => h.close());
    await ready(h);
    const message = textMessage({ from: PHONE, text: { body: BODY_TEXT } });
    expect((await h(delivery(messageEnvelope(message)))).status).toBe(200);
    expect((await h(delivery(messageEnvelope(message)))).status).toBe(200);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    expect(await queue.getJob(inboxJobId(`looked-up-${message.id}`))).toBeDefined();
  });

  it('checks the inbox after an async dedupeKey answers, not before: closed meanwhile, the event fails as closed', async () => {
    const queueName = nextQueue();
    const errors: unknown[] = [];
    const asked = deferred<void>();
    const key = deferred<string>();
    const h = createInboxHandler({
      connection: suite.server.url,
      secret: SECRET,
      queueName,
      logger: false,
      onError: (error) => void errors.push(error),
      dedupeKey: async () => {
        asked.resolve();
        return key.promise;
      },
    });
    closers.push(() => h.close());
    await ready(h);
    const answer = h(delivery(messageEnvelope(textMessage({ id: 'wamid.CLOSED_MEANWHILE' }))));
    await asked.promise;
    await h.close();
    key.resolve('looked-up-key');
    expect((await answer).status).toBe(500);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(InboxError);
    expect(errors[0]).toMatchObject({ reason: 'closed' });
  });

  it('checks Redis after an async dedupeKey answers, not before: down meanwhile, the event fails at once as unavailable', async () => {
    const own = await startRedis();
    const queueName = nextQueue();
    const errors: unknown[] = [];
    const log = recordingLogger();
    const asked = deferred<void>();
    const key = deferred<string>();
    const h = createInboxHandler({
      connection: own.url,
      secret: SECRET,
      queueName,
      logger: log.logger,
      // Far past the test's wait: a timeout here would be the enqueue waiting for a Redis that is gone.
      enqueueTimeoutMs: 60_000,
      onError: (error) => void errors.push(error),
      dedupeKey: async () => {
        asked.resolve();
        return key.promise;
      },
    });
    try {
      await ready(h);
      const answer = h(delivery(messageEnvelope(textMessage({ id: 'wamid.DOWN_MEANWHILE' }))));
      await asked.promise;
      await own.stop();
      await vi.waitFor(() => expect(log.lines.some((l) => l.includes('cannot reach Redis'))).toBe(true), {
        timeout: 15_000,
        interval: 20,
      });
      key.resolve('looked-up-key');
      expect((await answer).status).toBe(500);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ name: 'InboxError', reason: 'unavailable' });
      expect((errors[0] as InboxError).message).toMatch(/is not connected/);
    } finally {
      key.resolve('looked-up-key');
      await h.close();
      await own.dispose();
    }
  });

  it('stores each event of a batch as its own job; statuses of one message stay distinct', async () => {
    const queueName = nextQueue();
    const h = handler(queueName);
    await ready(h);
    const statuses = ['sent', 'delivered', 'read'].map((status) =>
      statusObject(status, { id: 'wamid.BATCH' }),
    );
    expect((await h(delivery(statusEnvelope(statuses)))).status).toBe(200);
    expect((await h(delivery(statusEnvelope(statuses.slice(1))))).status).toBe(200);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect((await queue.getJobCounts('waiting')).waiting).toBe(3);
  });

  it('answers 503 when Redis does not acknowledge in time, and the retry stores the event once', async () => {
    const queueName = nextQueue();
    const errors: unknown[] = [];
    const log = recordingLogger();
    const h = createInboxHandler({
      connection: suite.server.url,
      secret: SECRET,
      queueName,
      logger: log.logger,
      enqueueTimeoutMs: 300,
      onError: (error) => errors.push(error),
    });
    closers.push(() => h.close());
    await h.ready();
    const envelope = messageEnvelope(textMessage({ id: 'wamid.SLOW' }));
    // Redis holds every write for 2 s: the enqueue cannot be acknowledged within its 300 ms.
    await suite.redis.call('CLIENT', 'PAUSE', '2000', 'WRITE');
    const slow = await h(delivery(envelope));
    await suite.redis.call('CLIENT', 'UNPAUSE');
    expect(slow.status).toBeGreaterThanOrEqual(500);
    expect(errors[0]).toBeInstanceOf(InboxError);
    expect((errors[0] as InboxError).reason).toBe('timeout');
    // The receiver's own line: the event was not stored and why (not an "onEvent failed" the user did not write).
    expect(log.lines).toEqual([
      expect.stringMatching(
        /^createInboxHandler: an event was not stored: Redis did not acknowledge the enqueue within 300 ms\. The delivery is answered 500 and the gateway retries it; .*"reason":"timeout"/,
      ),
    ]);
    // The gateway's retry: the write that timed out may have landed meanwhile; either way one job.
    expect((await h(delivery(envelope))).status).toBe(200);
    expect(log.lines.slice(1)).toEqual([
      'createInboxHandler: events are stored again; 1 was not (their deliveries were answered 500 for the gateway to retry). {}',
    ]);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect((await queue.getJobCounts('waiting')).waiting).toBe(1);
  });

  it("takes an ioredis client as the connection, duplicates it, and leaves the application's client open", async () => {
    const queueName = nextQueue();
    const log = recordingLogger();
    const h = createInboxHandler({ connection: suite.redis, secret: SECRET, queueName, logger: log.logger });
    await h.ready();
    expect((await h(delivery(messageEnvelope(textMessage({ id: 'wamid.CLIENT' }))))).status).toBe(200);
    await h.close();
    expect(suite.redis.status).toBe('ready');
    const closed = await h(delivery(messageEnvelope(textMessage({ id: 'wamid.CLOSED' }))));
    expect(closed.status).toBeGreaterThanOrEqual(500);
    expect(log.lines).toEqual([
      expect.stringMatching(
        /^createInboxHandler: an event was not stored: the inbox is closed\. .*"reason":"closed"/,
      ),
    ]);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect((await queue.getJobCounts('waiting')).waiting).toBe(1);
  });

  it('refuses a bad secret with 401 and a bad body with 400 without storing anything', async () => {
    const queueName = nextQueue();
    const log = recordingLogger();
    const h = handler(queueName, { logger: log.logger });
    await ready(h);
    const bad = new Request('http://127.0.0.1/webhooks', {
      method: 'POST',
      headers: { authorization: 'Bearer wrong-secret-wrong-secret-wrong-secret' },
      body: JSON.stringify(messageEnvelope(textMessage())),
    });
    expect((await h(bad)).status).toBe(401);
    expect((await h(delivery({ entry: 'nope' }))).status).toBe(400);
    expect(log.lines).toEqual([
      expect.stringMatching(
        /^Webhook request refused with 401: the Bearer token is not this handler's secret/,
      ),
      expect.stringMatching(
        /^Webhook body refused with 400; the gateway will not retry it: Invalid webhook envelope at entry/,
      ),
    ]);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect((await queue.getJobCounts('waiting')).waiting).toBe(0);
  });

  it('works as a node:http handler', async () => {
    const queueName = nextQueue();
    const h = createNodeInboxHandler({ connection: suite.server.url, secret: SECRET, queueName });
    closers.push(() => h.close());
    const http = createServer((req, res) => void h(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => http.close(resolve)));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const post = (body: unknown) =>
      fetch(`${url}/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const envelope = messageEnvelope(textMessage({ id: 'wamid.NODE1' }));
    await h.ready();
    expect((await post(envelope)).status).toBe(200);
    expect((await post(envelope)).status).toBe(200);
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    expect((await queue.getJobCounts('waiting')).waiting).toBe(1);
  });

  it('retries a failing onEvent with backoff, keeps what still fails in the failed set, and replays it', async () => {
    const queueName = nextQueue();
    const h = handler(queueName);
    await ready(h);
    const runs = new Map<string, number[]>();
    let healed = false;
    const log = recordingLogger();
    const w = worker({
      queueName,
      logger: log.logger,
      concurrency: 4,
      attempts: 3,
      backoff: { type: 'fixed', delayMs: 10 },
      onEvent: (event, context) => {
        const list = runs.get(event.idempotencyKey) ?? [];
        list.push(context.attempt);
        runs.set(event.idempotencyKey, list);
        if (event.idempotencyKey === 'wamid.FLAKY' && context.attempt < 2) throw new Error('flaky');
        if (event.idempotencyKey === 'wamid.BROKEN' && !healed) throw new Error(`broken for ${PHONE}`);
      },
    });
    await w.ready();
    for (const id of ['wamid.OK', 'wamid.FLAKY', 'wamid.BROKEN']) {
      expect((await h(delivery(messageEnvelope(textMessage({ id }))))).status).toBe(200);
    }
    await vi.waitFor(
      async () => {
        const counts = await w.counts();
        expect(counts).toMatchObject({ completed: 2, failed: 1, waiting: 0, active: 0, delayed: 0 });
      },
      { timeout: 15_000, interval: 25 },
    );
    expect(runs.get('wamid.OK')).toEqual([1]);
    expect(runs.get('wamid.FLAKY')).toEqual([1, 2]);
    expect(runs.get('wamid.BROKEN')).toEqual([1, 2, 3]);

    const failed = await w.failed();
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      jobId: inboxJobId('wamid.BROKEN'),
      kind: 'message',
      attemptsMade: 3,
      failedReason: `broken for ${PHONE}`,
    });
    expect(failed[0]?.event?.idempotencyKey).toBe('wamid.BROKEN');

    // A redelivery of a failed event is answered 200 and adds no job: it waits in the failed set for a replay.
    expect((await h(delivery(messageEnvelope(textMessage({ id: 'wamid.BROKEN' }))))).status).toBe(200);
    expect((await w.counts()).failed).toBe(1);

    healed = true;
    expect(await w.replay('not-a-job')).toBe(0);
    expect(await w.replay(inboxJobId('wamid.BROKEN'))).toBe(1);
    await vi.waitFor(async () => expect(await w.counts()).toMatchObject({ completed: 3, failed: 0 }), {
      timeout: 15_000,
      interval: 25,
    });
    // The replay started again at attempt 1.
    expect(runs.get('wamid.BROKEN')).toEqual([1, 2, 3, 1]);
    // Without onError, each failure says how to see the error, and never holds it.
    expect(log.lines.filter((l) => l.includes('onEvent failed')).length).toBe(4);
    expect(log.lines.every((l) => l.includes('pass `onError') && !l.includes(PHONE))).toBe(true);
  });

  it("replay('all') puts every failed event back with its attempts reset", async () => {
    const queueName = nextQueue();
    const h = handler(queueName);
    await ready(h);
    let healed = false;
    const completed: string[] = [];
    const log = recordingLogger();
    const w = worker({
      queueName,
      logger: log.logger,
      attempts: 1,
      onEvent: (event) => {
        if (!healed) throw new Error('down');
        completed.push(event.idempotencyKey);
      },
    });
    const ids = Array.from({ length: 120 }, (_, i) => `wamid.ALL${i}`);
    for (const id of ids) expect((await h(delivery(messageEnvelope(textMessage({ id }))))).status).toBe(200);
    await vi.waitFor(async () => expect((await w.counts()).failed).toBe(ids.length), {
      timeout: 15_000,
      interval: 25,
    });
    healed = true;
    expect(await w.replay('all')).toBe(ids.length);
    await vi.waitFor(async () => expect((await w.counts()).completed).toBe(ids.length), {
      timeout: 15_000,
      interval: 25,
    });
    expect(completed.sort()).toEqual([...ids].sort());
    expect(log.lines.filter((l) => l.includes('no attempt left')).length).toBe(ids.length);
  });

  it('moves a job of an unexpected shape to the failed set with a typed error, and keeps working', async () => {
    const queueName = nextQueue();
    const errors: unknown[] = [];
    const seen: string[] = [];
    const log = recordingLogger();
    const w = worker({
      queueName,
      logger: log.logger,
      onEvent: (event) => {
        seen.push(event.idempotencyKey);
      },
      onError: (error) => errors.push(error),
    });
    await w.ready();
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    await queue.add('message', { something: 'else' }, { jobId: 'foreign' });
    await queue.add('message', 'not even an object', { jobId: 'foreign2' });
    const h = handler(queueName);
    await ready(h);
    expect((await h(delivery(messageEnvelope(textMessage({ id: 'wamid.AFTER' }))))).status).toBe(200);
    await vi.waitFor(async () => expect(await w.counts()).toMatchObject({ failed: 2, completed: 1 }), {
      timeout: 15_000,
      interval: 25,
    });
    expect(seen).toEqual(['wamid.AFTER']);
    expect(errors).toHaveLength(2);
    for (const error of errors) {
      expect(error).toBeInstanceOf(InboxError);
      expect((error as InboxError).reason).toBe('unexpected_reply');
    }
    const failed = await w.failed();
    expect(failed.map((f) => f.event)).toEqual([undefined, undefined]);
    expect(log.lines).toHaveLength(2);
  });

  it("filters the worker's lines to logLevel, and logger: false silences them, as the clients' options do", async () => {
    const failing = () => {
      throw new Error('down');
    };
    // logLevel 'error': the retry's warn line is dropped, the final error line is kept.
    const filteredQueue = nextQueue();
    const log = recordingLogger();
    const filtered = worker({
      queueName: filteredQueue,
      logger: log.logger,
      logLevel: 'error',
      attempts: 2,
      backoff: { type: 'fixed', delayMs: 0 },
      onEvent: failing,
    });
    // logger: false: not even the default console lines.
    const silentQueue = nextQueue();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const silent = worker({ queueName: silentQueue, logger: false, attempts: 1, onEvent: failing });
      for (const [queueName, w] of [
        [filteredQueue, filtered],
        [silentQueue, silent],
      ] as const) {
        const h = handler(queueName);
        await ready(h);
        expect((await h(delivery(messageEnvelope(textMessage({ id: `wamid.${queueName}` }))))).status).toBe(
          200,
        );
        await vi.waitFor(async () => expect((await w.counts()).failed).toBe(1), {
          timeout: 15_000,
          interval: 25,
        });
      }
      const sdkLines = [...warn.mock.calls, ...error.mock.calls].filter((c) =>
        String(c[0]).includes('wa-gateway'),
      );
      expect(sdkLines).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toContain('no attempt left');
  });

  it('refuses bad options with ConfigurationError before opening a connection', () => {
    expect(() => createInboxHandler({ connection: suite.server.url, secret: '' })).toThrow(
      ConfigurationError,
    );
    expect(() => createInboxHandler({ connection: 'http://example.com', secret: SECRET })).toThrow(
      ConfigurationError,
    );
    expect(() =>
      createInboxHandler({ connection: suite.server.url, secret: SECRET, queueName: 'a:b' }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createInboxHandler({ connection: suite.server.url, secret: SECRET, enqueueTimeoutMs: -1 }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createInboxWorker({ connection: suite.server.url, onEvent: undefined as unknown as () => void }),
    ).toThrow(ConfigurationError);
    expect(() => createInboxWorker({ connection: suite.server.url, onEvent: () => {}, attempts: 0 })).toThrow(
      ConfigurationError,
    );
    expect(() =>
      createInboxWorker({
        connection: suite.server.url,
        onEvent: () => {},
        backoff: { type: 'linear' as 'fixed', delayMs: 1 },
      }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createInboxWorker({ connection: suite.server.url, onEvent: () => {}, logLevel: 'loud' as 'warn' }),
    ).toThrow(ConfigurationError);
    expect(DEFAULT_INBOX_QUEUE).toBe('wa-gateway-inbox');
  });
});

describeRedis('durable inbox while Redis is down (real redis-server)', () => {
  it('answers 503 with nothing stored while Redis is down, logs no payload, and takes events again once it is back', async () => {
    const server = await startRedis();
    const { lines, logger } = recordingLogger();
    const queueName = nextQueue();
    const h = createInboxHandler({ connection: server.url, secret: SECRET, queueName, logger });
    const completed: string[] = [];
    const w = createInboxWorker({
      connection: server.url,
      queueName,
      logger,
      onEvent: (event) => {
        completed.push(event.idempotencyKey);
      },
    });
    try {
      const send = (id: string) =>
        h(delivery(messageEnvelope(textMessage({ id, from: PHONE, text: { body: BODY_TEXT } }))));
      await vi.waitFor(async () => expect((await send('wamid.UP1')).status).toBe(200), {
        timeout: 10_000,
        interval: 20,
      });
      await vi.waitFor(() => expect(completed).toEqual(['wamid.UP1']), { timeout: 10_000, interval: 20 });

      await server.stop();
      const down = await send('wamid.DOWN1');
      expect(down.status).toBeGreaterThanOrEqual(500);
      expect(await down.text()).not.toContain(BODY_TEXT);

      await server.start();
      // The gateway's retry of the refused delivery: stored and processed once Redis is back, by itself.
      await vi.waitFor(async () => expect((await send('wamid.DOWN1')).status).toBe(200), {
        timeout: 15_000,
        interval: 50,
      });
      await vi.waitFor(() => expect(completed).toEqual(['wamid.UP1', 'wamid.DOWN1']), {
        timeout: 15_000,
        interval: 20,
      });
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toContain(BODY_TEXT);
        expect(line).not.toContain(PHONE);
        expect(line).not.toContain('wamid.DOWN1');
        expect(line).not.toContain(SECRET);
      }
    } finally {
      await h.close();
      await w.close();
      await server.dispose();
    }
  });

  it('finishes worker API calls made while Redis is down once it is back', async () => {
    const server = await startRedis();
    // The test's own logger: whether the worker's connection notices the short outage (and says so) depends on
    // timing, and the default logger would print it on the console.
    const { lines, logger } = recordingLogger();
    const w = createInboxWorker({
      connection: server.url,
      queueName: nextQueue(),
      onEvent: () => {},
      logger,
    });
    try {
      await w.ready();
      await server.stop();
      // The worker's connection holds commands until Redis is back rather than failing them.
      const pending = w.counts();
      await server.start();
      expect(await pending).toMatchObject({ failed: 0, completed: 0 });
      // Lines, if any, are the outage's own: Redis unreachable, then reachable again.
      for (const line of lines) expect(line).toMatch(/cannot reach Redis|reachable again|connection/i);
    } finally {
      await w.close();
      await server.dispose();
    }
  });
});
