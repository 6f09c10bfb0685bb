/**
 * The inbox worker's life around a run of `onEvent`, against a real redis-server: `close()` aborts the runs'
 * signal and waits for them (at most `closeTimeoutMs`), a lost lock aborts the run's signal, an error Redis answered
 * is not logged as an outage (and the real outage after it still is), and an event BullMQ fails without running
 * `onEvent` (it stalled too often) is reported. Every wait is on an event or a condition; deadlines are backstops.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { expect, it, vi } from 'vitest';
import {
  createInboxHandler,
  createInboxWorker,
  type InboxWorker,
  type InboxWorkerErrorInfo,
  inboxJobId,
} from '../../src/redis/index.js';
import { messageEnvelope, textMessage } from '../../src/testing/index.js';
import { describeRedis, startRedis } from '../helpers/redis-server.js';
import { inboxSuite } from './fixtures/inbox-suite.js';

const SECRET = 'inbox-lifecycle-secret-0123456789abcdef';
const PHONE = '15550004321';
const BODY_TEXT = 'private words 4111 1111 1111 1111';
const BACKSTOP = { timeout: 15_000, interval: 20 };

function recordingLogger() {
  const lines: { level: string; line: string }[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) =>
    lines.push({ level, line: `${message} ${JSON.stringify(meta ?? {})}` });
  return { lines, logger: { warn: at('warn'), error: at('error') } };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function delivery(id: string): Request {
  const body = messageEnvelope(textMessage({ id, from: PHONE, text: { body: BODY_TEXT } }));
  return new Request('http://127.0.0.1/webhooks', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

let queueSeq = 0;
const nextQueue = () => `inbox-life-${process.pid}-${++queueSeq}`;

/** No line holds the event's payload or its phone number. */
function expectNoPayload(lines: { line: string }[]): void {
  for (const { line } of lines) {
    expect(line).not.toContain(BODY_TEXT);
    expect(line).not.toContain(PHONE);
  }
}

describeRedis('inbox worker: signal, close, lock errors, stalls (real redis-server)', () => {
  const suite = inboxSuite();
  const { closers } = suite;

  /** A receiver on `queueName`, logging to a logger of the test's own (the outage test stops Redis). */
  async function receiver(queueName: string, url = suite.server.url) {
    const h = createInboxHandler({
      connection: url,
      secret: SECRET,
      queueName,
      logger: recordingLogger().logger,
    });
    closers.push(() => h.close());
    await h.ready();
    return h;
  }

  function worker(
    options: Omit<Parameters<typeof createInboxWorker>[0], 'connection'>,
    url = suite.server.url,
  ) {
    const w: InboxWorker = createInboxWorker({ connection: url, ...options });
    closers.push(() => w.close());
    return w;
  }

  /** Gives the job's lock to another worker, as a worker that took the job over would. */
  const takeLock = (queueName: string, jobId: string) =>
    suite.redis.set(`bull:${queueName}:${jobId}:lock`, 'another-workers-token', 'PX', 60_000);

  it("close() aborts the running onEvent's signal, waits for it, and an event it stopped goes back to the queue uncounted", async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    const log = recordingLogger();
    const started = deferred<AbortSignal>();
    const w1 = worker({
      queueName,
      logger: log.logger,
      onEvent: (_event, { signal }) => {
        started.resolve(signal);
        // A handler written to the TSDoc: stops when the signal aborts, by throwing its reason.
        return new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      },
    });
    await w1.ready();
    expect((await h(delivery('wamid.CLOSE1'))).status).toBe(200);
    const signal = await started.promise;
    expect(signal.aborted).toBe(false);

    await w1.close();
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: 'AbortError', message: expect.stringMatching(/closing/) });

    // Back in the queue, its attempt not counted: the next worker runs it as attempt 1.
    const queue = new Queue(queueName, { connection: suite.redis });
    closers.push(() => queue.close());
    const job = await queue.getJob(inboxJobId('wamid.CLOSE1'));
    expect(await job?.getState()).toBe('waiting');
    expect(job?.attemptsMade).toBe(0);
    const attempts: number[] = [];
    worker({ queueName, logger: false, onEvent: (_event, { attempt }) => void attempts.push(attempt) });
    await vi.waitFor(() => expect(attempts).toEqual([1]), BACKSTOP);

    expect(log.lines.some(({ line }) => line.includes('back in the queue'))).toBe(true);
    expect(log.lines.some(({ line }) => /onEvent failed/.test(line))).toBe(false);
    expectNoPayload(log.lines);
  });

  it('close() resolves after closeTimeoutMs when onEvent ignores its signal and hangs, naming the job', async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    const log = recordingLogger();
    const started = deferred<AbortSignal>();
    const w = worker({
      queueName,
      logger: log.logger,
      closeTimeoutMs: 300,
      onEvent: (_event, { signal }) => {
        started.resolve(signal);
        return new Promise<void>(() => {}); // never settles
      },
    });
    await w.ready();
    expect((await h(delivery('wamid.HANG1'))).status).toBe(200);
    const signal = await started.promise;

    await w.close();
    expect(signal.aborted).toBe(true);
    const jobId = inboxJobId('wamid.HANG1');
    const line = log.lines.find(({ line }) => line.includes('closeTimeoutMs'));
    expect(line?.level).toBe('error');
    expect(line?.line).toContain(jobId);
    expectNoPayload(log.lines);
  });

  it("runs with a client given a commandTimeout (as the docs advise for the stores): the worker's own connection drops it", async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    // A template only: the worker duplicates it, so it never connects itself.
    const template = new Redis(suite.server.url, { commandTimeout: 1, lazyConnect: true });
    closers.push(async () => template.disconnect());
    const log = recordingLogger();
    const errors: unknown[] = [];
    const ran: string[] = [];
    const w: InboxWorker = createInboxWorker({
      connection: template,
      queueName,
      logger: log.logger,
      onError: (error) => void errors.push(error),
      onEvent: (event) => void ran.push(event.kind),
    });
    closers.push(() => w.close());
    await w.ready();
    // The worker waits for a job in a blocking read, far longer than 1 ms: with the copied timeout, it failed.
    await vi.waitFor(async () => {
      const info = await suite.redis.info('clients');
      expect(Number(/blocked_clients:(\d+)/.exec(info)?.[1])).toBeGreaterThan(0);
    }, BACKSTOP);
    expect((await h(delivery('wamid.TIMEOUT1'))).status).toBe(200);
    await vi.waitFor(() => expect(ran).toEqual(['message']), BACKSTOP);
    expect(errors).toEqual([]);
    expect(log.lines.filter(({ line }) => /timed out|cannot reach/i.test(line))).toEqual([]);
  });

  it('refuses a bad closeTimeoutMs with ConfigurationError', () => {
    for (const closeTimeoutMs of [0, -1, Number.NaN, 2 ** 31]) {
      expect(() =>
        createInboxWorker({ connection: suite.server.url, onEvent: () => {}, closeTimeoutMs }),
      ).toThrow(/closeTimeoutMs/);
    }
  });

  it("a lost lock aborts the run's signal, and is logged as a lost lock with the job id, not as an outage", async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    const log = recordingLogger();
    const started = deferred<AbortSignal>();
    const aborted = deferred<unknown>();
    const w = worker({
      queueName,
      logger: log.logger,
      lockDurationMs: 1000,
      onEvent: (_event, { signal }) => {
        started.resolve(signal);
        return new Promise<void>((_resolve, reject) => {
          signal.addEventListener('abort', () => {
            aborted.resolve(signal.reason);
            reject(signal.reason);
          });
        });
      },
    });
    await w.ready();
    expect((await h(delivery('wamid.LOCK1'))).status).toBe(200);
    await started.promise;
    const jobId = inboxJobId('wamid.LOCK1');
    await takeLock(queueName, jobId);

    expect(await aborted.promise).toMatchObject({
      name: 'AbortError',
      message: expect.stringMatching(/lock/),
    });
    await vi.waitFor(
      () =>
        expect(log.lines.some(({ line }) => line.includes('lost the job') && line.includes(jobId))).toBe(
          true,
        ),
      BACKSTOP,
    );
    expect(log.lines.some(({ line }) => line.includes('cannot reach Redis'))).toBe(false);
    expectNoPayload(log.lines);
  });

  for (const outcome of ['returned', 'failed'] as const) {
    it(`a result Redis refuses (onEvent ${outcome}) is one line, saying what onEvent did, and one onError`, async () => {
      const queueName = nextQueue();
      const h = await receiver(queueName);
      const log = recordingLogger();
      const errors: InboxWorkerErrorInfo[] = [];
      const started = deferred<void>();
      const finish = deferred<void>();
      const w = worker({
        queueName,
        logger: log.logger,
        // Long enough that no renewal runs during the test: the refusal is the result's, not a lost renewal.
        lockDurationMs: 60_000,
        onError: (_error, info) => void errors.push(info),
        onEvent: async () => {
          started.resolve();
          await finish.promise;
          if (outcome === 'failed') throw new Error(`failed for ${PHONE}`);
        },
      });
      await w.ready();
      expect((await h(delivery('wamid.REFUSED1'))).status).toBe(200);
      await started.promise;
      const jobId = inboxJobId('wamid.REFUSED1');
      await takeLock(queueName, jobId);
      finish.resolve();
      await vi.waitFor(() => expect(errors.some((info) => info.stage === 'worker')).toBe(true), BACKSTOP);
      // close() waits for BullMQ's handling of the run to end: every line about it is in by then.
      await w.close();

      const about = log.lines.filter(({ line }) => line.includes(jobId));
      expect(about).toHaveLength(1);
      expect(about[0]?.level).toBe('warn');
      expect(about[0]?.line).toContain(
        outcome === 'returned' ? 'onEvent returned' : 'onEvent failed (Error)',
      );
      expect(about[0]?.line).toContain('message, attempt 1');
      expect(about[0]?.line).toMatch(/lock had expired or another worker held it/);
      expect(errors.filter((info) => info.stage === 'worker')).toEqual([{ stage: 'worker', jobId }]);
      expect(errors.filter((info) => info.stage === 'onEvent')).toHaveLength(outcome === 'failed' ? 1 : 0);
      expectNoPayload(log.lines);
    });
  }

  it('a run whose lock was lost and whose result Redis then refuses is the one lost-lock line', async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    const log = recordingLogger();
    const started = deferred<void>();
    const w = worker({
      queueName,
      logger: log.logger,
      lockDurationMs: 1000,
      onEvent: (_event, { signal }) => {
        started.resolve();
        return new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason)),
        );
      },
    });
    await w.ready();
    expect((await h(delivery('wamid.LOCK2'))).status).toBe(200);
    await started.promise;
    const jobId = inboxJobId('wamid.LOCK2');
    await takeLock(queueName, jobId);
    await vi.waitFor(
      () => expect(log.lines.some(({ line }) => line.includes('lost the job'))).toBe(true),
      BACKSTOP,
    );
    await w.close();

    const about = log.lines.filter(({ line }) => line.includes(jobId));
    expect(about).toHaveLength(1);
    expect(about[0]?.line).toContain("lost the job's lock while onEvent ran");
  });

  it('runs an event whose runs were cut short twice, and reports one BullMQ fails for being cut short a third time', async () => {
    const queueName = nextQueue();
    const h = await receiver(queueName);
    // Two events taken by a worker that then dies (its locks gone): one cut short once before, one twice.
    for (const id of ['wamid.SURVIVES', 'wamid.GIVESUP']) expect((await h(delivery(id))).status).toBe(200);
    const dead = new Worker(queueName, null, { connection: suite.redis, autorun: false });
    closers.push(() => dead.close(true));
    const survives = inboxJobId('wamid.SURVIVES');
    const givesUp = inboxJobId('wamid.GIVESUP');
    for (let i = 0; i < 2; i++)
      expect(await dead.getNextJob(`dead-worker:${i}`, { block: false })).toBeDefined();
    await suite.redis.hset(`bull:${queueName}:${survives}`, 'stc', 1);
    await suite.redis.hset(`bull:${queueName}:${givesUp}`, 'stc', 2);
    await suite.redis.del(`bull:${queueName}:${survives}:lock`, `bull:${queueName}:${givesUp}:lock`);

    const log = recordingLogger();
    const errors: { error: unknown; info: InboxWorkerErrorInfo }[] = [];
    const ran: string[] = [];
    const w = worker({
      queueName,
      logger: log.logger,
      lockDurationMs: 500,
      onError: (error, info) => void errors.push({ error, info }),
      onEvent: (event) => void ran.push(event.idempotencyKey),
    });
    await w.ready();
    await vi.waitFor(() => {
      expect(ran).toContain('wamid.SURVIVES');
      expect(errors.some(({ info }) => info.jobId === givesUp)).toBe(true);
    }, BACKSTOP);

    expect(ran).toEqual(['wamid.SURVIVES']);
    expect(errors.find(({ info }) => info.jobId === givesUp)?.info).toMatchObject({
      stage: 'worker',
      jobId: givesUp,
      final: true,
    });
    const failed = await w.failed();
    expect(failed.map((f) => [f.jobId, f.failedReason])).toEqual([
      [givesUp, 'job stalled more than allowable limit'],
    ]);
    const line = log.lines.find(({ line }) => line.includes('moved to the failed set'));
    expect(line?.level).toBe('error');
    expect(line?.line).toContain(givesUp);
    expect(line?.line).toContain('stalled more than allowable limit');
    expectNoPayload(log.lines);
  });
});

describeRedis('inbox worker: an error Redis answered, then a real outage (real redis-server)', () => {
  it('logs the lock error as one, then logs the real outage and its real length', async () => {
    const server = await startRedis();
    const admin = new Redis(server.url, { maxRetriesPerRequest: null });
    admin.on('error', () => undefined);
    const log = recordingLogger();
    const queueName = nextQueue();
    const h = createInboxHandler({
      connection: server.url,
      secret: SECRET,
      queueName,
      logger: recordingLogger().logger,
    });
    const started = deferred<void>();
    const finish = deferred<void>();
    const w = createInboxWorker({
      connection: server.url,
      queueName,
      logger: log.logger,
      lockDurationMs: 60_000,
      onEvent: async () => {
        started.resolve();
        // Returns once the lock is another worker's: its result is then refused, an error Redis answered.
        await finish.promise;
      },
    });
    const has = (text: string) => log.lines.filter(({ line }) => line.includes(text));
    try {
      await h.ready();
      await w.ready();
      expect((await h(delivery('wamid.OUT1'))).status).toBe(200);
      await started.promise;
      const jobId = inboxJobId('wamid.OUT1');
      await admin.set(`bull:${queueName}:${jobId}:lock`, 'another-workers-token', 'PX', 60_000);
      finish.resolve();
      await vi.waitFor(
        () => expect(has('Redis refused to record its result').length).toBeGreaterThan(0),
        BACKSTOP,
      );
      expect(has('Redis refused to record its result')[0]?.line).toContain(jobId);
      expect(has('cannot reach Redis')).toEqual([]);

      const stoppedAt = Date.now();
      await server.stop();
      await vi.waitFor(() => expect(has('cannot reach Redis').length).toBe(1), BACKSTOP);
      await server.start();
      await vi.waitFor(() => expect(has('reachable again').length).toBe(1), BACKSTOP);
      const outageMs = Date.now() - stoppedAt;
      // The length reported is the outage's (from its first error to 'ready'), not from the lock error before it.
      const seconds = Number(/after (\d+) s/.exec(has('reachable again')[0]?.line ?? '')?.[1]);
      expect(seconds).toBeLessThanOrEqual(Math.ceil(outageMs / 1000));
      expectNoPayload(log.lines);
    } finally {
      await h.close();
      await w.close();
      admin.disconnect();
      await server.dispose();
    }
  });
});
