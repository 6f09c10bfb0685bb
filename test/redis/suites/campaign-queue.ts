/**
 * CampaignQueue on a real Redis (one node: campaign-queue.test.ts; a cluster: cluster.proof.test.ts), sending to
 * the sandbox over real sockets, counted at the sandbox. Statuses reach `queue.apply` through a real webhook
 * handler.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  ConfigurationError,
  GatewayClient,
  MemorySuppressionList,
  MessageValidationError,
  RateLimiter,
  type SendLimiter,
  type SuppressionList,
} from '../../../src/index.js';
import {
  CampaignQueue,
  CampaignQueueError,
  type CampaignQueueOptions,
  type CampaignWorker,
  RedisRateLimiter,
  RedisSuppressionList,
} from '../../../src/redis/index.js';
import { hashId, KeySpace } from '../../../src/redis/keys.js';
import { queuePrefix } from '../../../src/redis/queue-keys.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../../src/webhooks/index.js';
import { waitFor } from '../../helpers/manual-clock.js';
import { queueCoreOf } from '../../helpers/queue-core.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

export const text = (to: string, body = `hi ${to}`) => ({ to, type: 'text' as const, text: { body } });
export const recipients = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `99890${String(from + i).padStart(7, '0')}`);

const SECRET = 'campaign-queue-secret-0123456789abcdef';
const PREFIX = 'cq:';
const DEADLINE = 60_000;

/**
 * What the proxy does with one send: pass it, forward it then cut the connection, cut it unsent, or answer the
 * gateway's `AUTH_004` (its auth service failed: nothing sent, worth trying again).
 */
type ProxyMode = 'pass' | 'cut-after' | 'cut-before' | 'auth-004' | 'rate-001';

/** The gateway's refusals the proxy answers itself: nothing reaches the sandbox. */
const REFUSALS = {
  'auth-004': {
    status: 500,
    body: JSON.stringify({
      isSuccess: false,
      errors: { code: 'AUTH_004', group: 'INTERNAL_ERROR', description: 'Authentication service error.' },
    }),
  },
  'rate-001': {
    status: 429,
    body: JSON.stringify({
      isSuccess: false,
      errors: {
        code: 'RATE_001',
        group: 'TOO_MANY_REQUESTS',
        description: 'Rate limit exceeded.',
        params: { limit_type: 'sec', retry_after: '3s' },
      },
    }),
  },
} as const;

/**
 * A real HTTP proxy in front of the sandbox: counts sends in flight per recipient (the most at once is kept), and
 * cuts the connection of the sends `mode` picks.
 */
async function startProxy(upstream: () => string) {
  const inFlight = new Map<string, number>();
  let most = 0;
  let mode: (to: string) => ProxyMode = () => 'pass';
  let beforeRefusal: () => Promise<unknown> = async () => {};
  const refusedAt: number[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let to = '';
      try {
        to = String((JSON.parse(body) as { to?: unknown }).to ?? '');
      } catch {}
      const how = req.url?.includes('/v1/wa/message') ? mode(to) : 'pass';
      if (how === 'cut-before') return void req.socket.destroy();
      if (how === 'auth-004' || how === 'rate-001') {
        await beforeRefusal();
        refusedAt.push(Date.now());
        res.writeHead(REFUSALS[how].status, { 'content-type': 'application/json' });
        return void res.end(REFUSALS[how].body);
      }
      const n = (inFlight.get(to) ?? 0) + 1;
      inFlight.set(to, n);
      most = Math.max(most, n);
      try {
        // A turn of the event loop with the request open: a second send to the same recipient would overlap it.
        await new Promise((r) => setImmediate(r));
        const answer = await fetch(`${upstream()}${req.url}`, {
          method: req.method ?? 'GET',
          headers: Object.fromEntries(
            Object.entries(req.headers).filter(
              ([k]) => !['host', 'content-length', 'connection'].includes(k),
            ),
          ) as Record<string, string>,
          ...(req.method === 'GET' ? {} : { body }),
        });
        const text = await answer.text();
        if (how === 'cut-after') return void req.socket.destroy();
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
        });
        res.end(text);
      } finally {
        inFlight.set(to, (inFlight.get(to) ?? 1) - 1);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mostAtOnce: () => most,
    setMode(pick: (to: string) => ProxyMode) {
      mode = pick;
    },
    /** When each refusal of the proxy's own was answered (ms since the epoch). */
    refusedAt,
    /** Awaited before a refusal of the proxy's own goes back (with the send's request still open). */
    beforeRefusing(hook: () => Promise<unknown>) {
      beforeRefusal = hook;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The campaign queue's behaviour, on `target`. */
export function campaignQueueSuite(target: () => RedisTarget): void {
  let sandbox: Sandbox;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let receiver: { url: string; close(): Promise<void> } | undefined;
  let applyTo: CampaignQueue | undefined;
  const applies = new Set<Promise<void>>();
  const open: { close(): Promise<void> }[] = [];
  let warnings: string[] = [];
  let warningMeta: unknown[] = [];

  beforeEach(async () => {
    await target().flush();
    applyTo = undefined;
    warnings = [];
    warningMeta = [];
    const handler = createNodeWebhookHandler({
      secret: SECRET,
      onEvent: async (event) => {
        const applying = applyTo?.apply(event);
        if (applying) applies.add(applying);
        try {
          await applying;
        } finally {
          if (applying) applies.delete(applying);
        }
      },
    });
    const server = createServer((req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
    proxy = await startProxy(() => sandbox.url);
  });
  afterEach(async () => {
    // The receiver stops applying first, and its applies finish: a status the sandbox still sends meets no closed
    // queue.
    applyTo = undefined;
    await Promise.allSettled([...applies]);
    for (const o of open.splice(0).reverse()) await o.close();
    await sandbox?.close();
    await proxy.close();
    await receiver?.close();
  });

  const start = async (options: SandboxOptions = {}) => {
    sandbox = await startSandbox({
      ratePerSecond: 100_000,
      statusDelaysMs: [0, 0, 0],
      webhookUrl: receiver!.url,
      webhookSecret: SECRET,
      ...options,
    });
  };
  const queueOf = async (options: Partial<CampaignQueueOptions> = {}) => {
    const queue = new CampaignQueue({
      redis: await target().newClient(),
      prefix: PREFIX,
      logger: {
        warn: (m, meta) => {
          warnings.push(m);
          warningMeta.push(meta);
        },
        error: (m) => warnings.push(m),
      },
      ...options,
    });
    open.push(queue);
    applyTo ??= queue;
    return queue;
  };
  const gatewayOf = async (options: { limit?: boolean; timeoutMs?: number; maxRetries?: number } = {}) =>
    new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: proxy.url,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      rateLimit:
        options.limit === false
          ? false
          : new RedisRateLimiter({ redis: await target().newClient(), prefix: PREFIX, perSecond: 100_000 }),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    });
  const workerOf = async (
    queue: CampaignQueue,
    options: { concurrency?: number; gateway?: GatewayClient } = {},
  ): Promise<CampaignWorker> => {
    const worker = queue.work({
      gateway: options.gateway ?? (await gatewayOf()),
      concurrency: options.concurrency ?? 8,
      pollMs: 2,
      lockDurationMs: 5_000,
      recipientLeaseMs: 5_000,
    });
    open.push(worker);
    await worker.ready();
    return worker;
  };
  /** A campaign's BullMQ queue, as another program would open it. */
  const bullOf = async (campaign: string) => {
    const connection = await target().newClient({ maxRetriesPerRequest: null });
    const name = `cq-${hashId(campaign).slice(0, 22)}`;
    const bull = new Queue(name, { connection, prefix: queuePrefix(connection, `${PREFIX}bull`, name) });
    open.push(bull);
    return bull;
  };
  const sentTo = () => sandbox.simulator.sent.map((s) => s.to);
  const until = async (queue: CampaignQueue, campaign: string, state: string) =>
    waitFor(
      async () => (await queue.status(campaign))?.state === state,
      `the campaign to be ${state}`,
      DEADLINE,
    );

  it('sends every message once, re-enqueuing adds nothing, and the report joins the statuses', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(30);
    expect(
      await queue.enqueue(
        'c1',
        to.map((t) => text(t)),
      ),
    ).toEqual({ added: 30, existing: 0 });
    // From an async cursor, in small steps: the same keys, nothing added.
    async function* again() {
      for (const t of to) yield text(t, 'another body: the key decides');
    }
    expect(await queue.enqueue('c1', again(), { batchSize: 7 })).toEqual({ added: 0, existing: 30 });
    await workerOf(queue);
    await until(queue, 'c1', 'finished');
    expect(sentTo().sort()).toEqual([...to].sort());
    await sandbox.idle();
    // A status that beat its send's result was parked, and is applied by the worker right after the result.
    await waitFor(async () => (await queue.report('c1'))?.funnel.read === 30, 'every read counted');
    const report = await queue.report('c1');
    expect(report?.queue).toMatchObject({
      total: 30,
      accepted: 30,
      queued: 0,
      inFlight: 0,
      inDoubt: 0,
      notSent: 0,
    });
    expect(report?.funnel).toMatchObject({ accepted: 30, delivered: 30, read: 30 });
    expect(report?.inDoubt).toEqual([]);
    // Enqueued again after it finished: still nothing.
    expect(
      await queue.enqueue(
        'c1',
        to.map((t) => text(t)),
      ),
    ).toEqual({ added: 0, existing: 30 });
    expect(sandbox.simulator.sent).toHaveLength(30);
  });

  it('gives every key it writes an expiry, but the opt-outs and the BullMQ queue', async () => {
    await start();
    const queue = await queueOf({
      suppressions: new RedisSuppressionList({ redis: target().redis, prefix: PREFIX }),
    });
    await new RedisSuppressionList({ redis: target().redis, prefix: PREFIX }).add(
      '998900000002',
      'wrote STOP',
    );
    proxy.setMode((t) => (t === '998900000001' ? 'cut-before' : 'pass'));
    await queue.enqueue(
      'ttl',
      recipients(4).map((t) => text(t)),
    );
    await workerOf(queue);
    await until(queue, 'ttl', 'finished');
    const keys = (await target().keys(`${PREFIX}*`)).filter(
      (k) => !k.includes(':bull:') && !/:supp\b/.test(k),
    );
    // The ledger, counters, order and doubts, a recipient's attempt in doubt, the report's keys.
    expect(keys.some((k) => /:cq:l:/.test(k))).toBe(true);
    expect(keys.some((k) => /:cq:a:/.test(k))).toBe(true);
    for (const key of keys) {
      // -1 is a key with no expiry; -2 one gone since it was listed (a note deleted once its statuses were applied).
      const ttl = await target().redis.pttl(key);
      if (ttl !== -2) expect(ttl, key).toBeGreaterThan(0);
    }
    // BullMQ's keys have no expiry: its jobs carry the messages, so a message in doubt (its job failed, kept for
    // `resend`) is kept no longer than its ledger entry, and a decided one's job is gone.
    const bull = await bullOf('ttl');
    const failed = await bull.getFailed();
    expect(failed.map((j) => (j.data as { m: { to: string } }).m.to)).toEqual(['998900000001']);
    expect(failed[0]?.opts.removeOnFail).toEqual({ age: 30 * 24 * 3600 });
    expect(await bull.getJobCounts('completed', 'waiting', 'delayed', 'active')).toEqual({
      completed: 0,
      waiting: 0,
      delayed: 0,
      active: 0,
    });
  });

  it('keeps one message per recipient in flight, in enqueue order, across two workers', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(5);
    // Six messages to each of five recipients, keyed apart, interleaved.
    const messages = Array.from({ length: 30 }, (_, i) => ({
      key: `m${i}`,
      message: text(to[i % 5]!, `n${i}`),
    }));
    const byKey = new Map(messages.map((m) => [m.message, m.key]));
    await queue.enqueue(
      'order',
      messages.map((m) => m.message),
      { key: (m) => byKey.get(m as (typeof messages)[number]['message'])! },
    );
    const other = await queueOf();
    await Promise.all([workerOf(queue, { concurrency: 16 }), workerOf(other, { concurrency: 16 })]);
    await until(queue, 'order', 'finished');
    expect(proxy.mostAtOnce()).toBe(1);
    for (const t of to) {
      const bodies = sandbox.simulator.sent
        .filter((s) => s.to === t)
        .map((s) => (s.body as { text: { body: string } }).text.body);
      const expected = messages.filter((m) => m.message.to === t).map((m) => m.message.text.body);
      expect(bodies).toEqual(expected);
    }
  });

  it('a worker already running takes up each campaign enqueued after it, from its first step', async () => {
    await start();
    const queue = await queueOf();
    await workerOf(queue);
    // Campaigns one after another, each in steps the worker may poll between.
    for (let c = 0; c < 6; c++) {
      await queue.enqueue(
        `wave-${c}`,
        recipients(10, c * 10).map((t) => text(t)),
        { batchSize: 3 },
      );
      await until(queue, `wave-${c}`, 'finished');
    }
    expect(sandbox.simulator.sent).toHaveLength(60);
  });

  it('starts a campaign at its time', async () => {
    await start();
    const queue = await queueOf();
    const at = Date.now() + 1500;
    const inAnHour = Date.now() + 3_600_000;
    await queue.enqueue(
      'later',
      recipients(3).map((t) => text(t)),
      { startAt: new Date(at) },
    );
    // A campaign an hour ahead: scheduled, whatever the machine's speed.
    await queue.enqueue(
      'next-hour',
      recipients(2, 10).map((t) => text(t)),
      { startAt: inAnHour },
    );
    await workerOf(queue);
    expect(await queue.status('next-hour')).toMatchObject({
      state: 'scheduled',
      startAt: new Date(inAnHour).toISOString(),
      queued: 2,
    });
    expect((await queue.status('later'))?.startAt).toBe(new Date(at).toISOString());
    await until(queue, 'later', 'finished');
    for (const s of sandbox.simulator.sent) expect(s.acceptedAt).toBeGreaterThanOrEqual(at);
    expect(sentTo().sort()).toEqual(recipients(3).sort());
    expect((await queue.status('next-hour'))?.state).toBe('scheduled');
  });

  it("skips a suppressed recipient, recording why (a Redis list, and one of the user's own)", async () => {
    await start();
    // A list of the user's own, over their database: what the SuppressionList interface is for.
    const database = new Map<string, string>();
    const own: SuppressionList = {
      reasonFor: async (recipient) => database.get(recipient.replace(/\D/g, '')),
      add: async (recipient, reason) => void database.set(recipient.replace(/\D/g, ''), reason),
      remove: async (recipient) => database.delete(recipient.replace(/\D/g, '')),
    };
    const shared = new RedisSuppressionList({ redis: target().redis, prefix: PREFIX });
    const to = recipients(6);
    await own.add(`+${to[1]}`, 'wrote STOP');
    await shared.add(to[4]!, 'complained');
    for (const [campaign, list] of [
      ['s-own', own],
      ['s-redis', shared],
    ] as const) {
      const queue = await queueOf({ suppressions: list });
      await queue.enqueue(
        campaign,
        to.map((t) => text(t)),
      );
      const worker = await workerOf(queue);
      await until(queue, campaign, 'finished');
      await worker.close();
      const report = await queue.report(campaign);
      expect(report?.queue).toMatchObject({ accepted: 5, notSent: 1, suppressed: 1 });
      const refused = [];
      for await (const r of report!.refused()) refused.push(r);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ code: 'SUPPRESSED' });
      expect(refused[0]?.description).toContain(list === own ? 'wrote STOP' : 'complained');
      // The customer opted out: never offered for a retry.
      const retries = [];
      for await (const r of report!.retries()) retries.push(r);
      expect(retries).toEqual([]);
    }
    expect(sentTo().filter((t) => t === to[1])).toEqual([to[1]]); // sent once: by the Redis-list campaign only
    expect(sentTo().filter((t) => t === to[4])).toEqual([to[4]]); // sent once: by the own-list campaign only
    expect(await shared.size()).toBe(1);
    expect(await shared.remove(to[4]!)).toBe(true);
    expect(await shared.reasonFor(to[4]!)).toBeUndefined();
  });

  it('refuses a MemorySuppressionList: it lives in one process, and a STOP comes to another', async () => {
    const refusal = await queueOf({ suppressions: new MemorySuppressionList() }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ConfigurationError);
    expect((refusal as Error).message).toMatch(
      /MemorySuppressionList, which lives in one process.*RedisSuppressionList/,
    );
  });

  it('honours a STOP that comes while the message waits for the rate limiter', async () => {
    await start();
    const list = new RedisSuppressionList({ redis: target().redis, prefix: PREFIX });
    const queue = await queueOf({ suppressions: list });
    const [to] = recipients(1);
    await queue.enqueue('late-stop', [text(to!)]);
    // The customer writes STOP while the send waits for its turn at the (shared) limiter.
    const limiter = {
      perSecond: 1000,
      async acquire() {
        await list.add(to!, 'wrote STOP');
        return () => {};
      },
      pause() {},
    };
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: proxy.url, rateLimit: limiter });
    await workerOf(queue, { gateway });
    await until(queue, 'late-stop', 'finished');
    expect(sandbox.simulator.sent).toHaveLength(0);
    expect(await queue.status('late-stop')).toMatchObject({ notSent: 1, suppressed: 1, accepted: 0 });
  });

  it('pauses every worker on BILL_001 with the reason, and resume sends the rest once each', async () => {
    // A balance of 5 deliveries: the sixth send or so is refused BILL_001.
    await start({ balance: 5 });
    const queue = await queueOf();
    const to = recipients(40);
    await queue.enqueue(
      'bill',
      to.map((t) => text(t)),
    );
    const refusedAt: number[] = [];
    const arrivals: number[] = [];
    sandbox.observe((e) => {
      if (e.type !== 'send') return;
      arrivals.push(Date.now());
      if (e.status === 402) refusedAt.push(Date.now());
    });
    await Promise.all([workerOf(queue, { concurrency: 4 }), workerOf(await queueOf(), { concurrency: 4 })]);
    await until(queue, 'bill', 'paused');
    const paused = await queue.status('bill');
    expect(paused?.hold).toMatchObject({ code: 'BILL_001', by: 'gateway' });
    await waitFor(() => warnings.length > 0, 'the pause to be logged');
    expect(warnings[0]).toBe('wa-gateway-sdk: CampaignQueue paused a campaign (BILL_001)');
    // Which campaign, for whoever runs the workers of several.
    expect(warningMeta[0]).toEqual({ campaign: 'bill', by: 'gateway' });
    await waitFor(async () => (await queue.status('bill'))?.inFlight === 0, 'the sends in flight to end');
    expect(sandbox.simulator.sent.length).toBeLessThan(40);
    // Paused: the workers' jobs wait in a paused BullMQ queue, none of them running (and the sandbox has money
    // again, so a send that went out now would be accepted, and seen below).
    sandbox.simulator.balance = 1_000_000;
    const bull = await bullOf('bill');
    await waitFor(
      async () => (await bull.isPaused()) && (await bull.getJobCounts('active')).active === 0,
      'the workers to wait',
    );
    expect((await queue.status('bill'))?.state).toBe('paused');
    const resumedAt = Date.now();
    await queue.resume('bill');
    await until(queue, 'bill', 'finished');
    // No send reached the gateway, from either worker, more than 1 s after the first refusal until the resume.
    expect(refusedAt.length).toBeGreaterThan(0);
    const late = arrivals.filter((t) => t > refusedAt[0]! + 1000 && t < resumedAt);
    expect(late).toEqual([]);
    expect(sentTo().sort()).toEqual([...to].sort());
    expect((await queue.status('bill'))?.hold).toBeUndefined();
  });

  it("takes a running campaign up again when its BullMQ queue was left paused (a resume crossing a worker's pause)", async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(3);
    await queue.enqueue(
      'unpause',
      to.map((t) => text(t)),
    );
    // What a worker refused by a pause does to BullMQ, landing after the person's resume: the ledger says running.
    const bull = await bullOf('unpause');
    await bull.pause();
    expect((await queue.status('unpause'))?.state).toBe('running');
    await workerOf(queue);
    await until(queue, 'unpause', 'finished');
    expect(sentTo().sort()).toEqual([...to].sort());
    expect(await bull.isPaused()).toBe(false);
  });

  it('holds the workers on RATE_001 for its retry_after, and sends each message once', async () => {
    // No limiter in the client and no retry of its own: the sandbox's RATE_001 reaches the workers.
    await start({ ratePerSecond: 8 });
    const queue = await queueOf();
    const to = recipients(24);
    await queue.enqueue(
      'rate',
      to.map((t) => text(t)),
    );
    await Promise.all([
      workerOf(queue, { gateway: await gatewayOf({ limit: false, maxRetries: 0 }) }),
      workerOf(await queueOf(), { gateway: await gatewayOf({ limit: false, maxRetries: 0 }) }),
    ]);
    await until(queue, 'rate', 'finished');
    expect(sandbox.simulator.answered['RATE_001'] ?? 0).toBeGreaterThan(0);
    expect(sentTo().sort()).toEqual([...to].sort());
    expect(await queue.status('rate')).toMatchObject({ accepted: 24, notSent: 0, inDoubt: 0 });
  });

  it.each([
    ['without a limiter: the campaign is held in the ledger', false],
    ['with the shared RedisRateLimiter, paused as well: a send outside the campaign waits too', true],
  ])("holds every worker, not only the one refused, for a RATE_001's retry_after (%s)", async (_, limit) => {
    await start();
    const queue = await queueOf();
    const to = recipients(20);
    const outsider = '998907777777';
    // The first message is refused RATE_001 (retry_after 3 s) once, by one worker; the gateway takes the rest.
    let refused = false;
    proxy.setMode((t) => {
      if (t !== to[0] || refused) return 'pass';
      refused = true;
      return 'rate-001';
    });
    const arrivals: number[] = [];
    sandbox.observe((e) => {
      if (e.type === 'send') arrivals.push(Date.now());
    });
    // With a limiter: one RedisRateLimiter on a connection of its own, shared by both workers' clients, whose
    // pause is seen as it is asked (the limiter itself does the work).
    const limiterRedis = await target().newClient();
    const shared = new RedisRateLimiter({ redis: limiterRedis, prefix: PREFIX, perSecond: 100_000 });
    let onPause = () => {};
    const paused = new Promise<void>((resolve) => {
      onPause = resolve;
    });
    const watched: SendLimiter = {
      perSecond: shared.perSecond,
      acquire: (signal, context) => shared.acquire(signal, context),
      pause: (ms) => {
        shared.pause(ms);
        onPause();
      },
      paymentRequired: (error) => shared.paymentRequired(error),
    };
    const client = () =>
      new GatewayClient({
        apiKey: 'sk_test_sandbox',
        baseUrl: proxy.url,
        maxRetries: 0,
        rateLimit: limit ? watched : false,
      });
    await queue.enqueue(
      'rate-hold',
      to.map((t) => text(t)),
    );
    await Promise.all([
      workerOf(queue, { concurrency: 2, gateway: client() }),
      workerOf(await queueOf(), { concurrency: 2, gateway: client() }),
    ]);
    if (limit) {
      const finished = until(queue, 'rate-hold', 'finished');
      await Promise.race([
        paused,
        finished.then(() => {
          throw new Error('the shared limiter was never paused');
        }),
      ]);
      // The pause is written to Redis by a script the limiter does not wait for: wait until it is there.
      const keys = KeySpace.for(limiterRedis, PREFIX);
      const pauseKey = keys.name('limit', keys.tag('gateway'), 'pause');
      await waitFor(async () => (await limiterRedis.pttl(pauseKey)) > 0, 'the shared pause written');
      const other = new GatewayClient({
        apiKey: 'sk_test_sandbox',
        baseUrl: proxy.url,
        maxRetries: 0,
        rateLimit: new RedisRateLimiter({
          redis: await target().newClient(),
          prefix: PREFIX,
          perSecond: 100_000,
        }),
      });
      await other.messages.send(text(outsider));
      // Held by the account's pause, read from Redis by another client: not before the retry_after ended.
      expect(Date.now()).toBeGreaterThanOrEqual(proxy.refusedAt[0]! + 2900);
    }
    await until(queue, 'rate-hold', 'finished');
    expect(proxy.refusedAt).toHaveLength(1);
    const at = proxy.refusedAt[0]!;
    // Sends already past their gate when the hold was written may still arrive just after the refusal (a second
    // is left for that on a busy machine); none starts after, in any worker, until the hold ends.
    expect(arrivals.filter((t) => t > at + 1000 && t < at + 3000)).toEqual([]);
    expect(arrivals.filter((t) => t >= at + 3000).length).toBeGreaterThan(0);
    expect(
      sentTo()
        .filter((t) => t !== outsider)
        .sort(),
    ).toEqual([...to].sort());
    expect(await queue.status('rate-hold')).toMatchObject({ accepted: 20, notSent: 0, inDoubt: 0 });
  });

  it('cancels: what never started is reported not sent, and the campaign takes nothing more', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(10);
    await queue.enqueue(
      'cx',
      to.map((t) => text(t)),
      { startAt: Date.now() + 3_600_000 },
    );
    await workerOf(queue);
    expect(await queue.cancel('cx', 'wrong template')).toBe(10);
    const report = await queue.report('cx');
    expect(report?.queue).toMatchObject({ state: 'cancelled', notSent: 10, cancelled: 10, queued: 0 });
    expect(report?.queue.hold).toMatchObject({
      code: 'CANCELLED',
      description: 'wrong template',
      by: 'person',
    });
    expect(report?.funnel.notSent).toBe(10);
    await expect(queue.enqueue('cx', [text('998901111111')])).rejects.toBeInstanceOf(CampaignQueueError);
    await expect(queue.resume('cx')).rejects.toMatchObject({ reason: 'cancelled' });
    expect(sandbox.simulator.sent).toHaveLength(0);
  });

  it('cancels a message whose attempt was out during the cancel and then refused unsent', async () => {
    await start();
    const queue = await queueOf();
    const [to] = recipients(1);
    await queue.enqueue('cx-flight', [text(to!)]);
    // The cancel runs (and scans the ledger) while the send is at the gateway; then the gateway refuses it.
    let stopped: number | undefined;
    proxy.setMode(() => 'auth-004');
    proxy.beforeRefusing(async () => {
      stopped ??= await queue.cancel('cx-flight', 'wrong template');
    });
    await workerOf(queue, { gateway: await gatewayOf({ maxRetries: 0 }) });
    await waitFor(
      async () => (await queue.status('cx-flight'))?.cancelled === 1,
      'the message to be recorded cancelled',
      DEADLINE,
    );
    expect(stopped).toBe(0);
    expect(await queue.status('cx-flight')).toMatchObject({
      state: 'cancelled',
      queued: 0,
      inFlight: 0,
      notSent: 1,
      cancelled: 1,
    });
    expect(sandbox.simulator.sent).toHaveLength(0);
  });

  it('never resends a message cut in flight: its status resolves it with its wamid', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(4);
    proxy.setMode((t) => (t === to[2] ? 'cut-after' : 'pass'));
    await queue.enqueue(
      'cut',
      to.map((t) => text(t)),
    );
    await workerOf(queue, { gateway: await gatewayOf() });
    await until(queue, 'cut', 'finished');
    await sandbox.idle();
    await waitFor(
      async () => (await queue.status('cut'))?.inDoubt === 0,
      'the status to resolve it',
      DEADLINE,
    );
    const status = await queue.status('cut');
    expect(status).toMatchObject({ accepted: 4, resolved: 1, inDoubt: 0 });
    expect(sentTo().filter((t) => t === to[2])).toHaveLength(1);
    const report = await queue.report('cut');
    expect(report?.funnel).toMatchObject({ accepted: 4, delivered: 4 });
  });

  it('lists what stays in doubt, and resend or drop decide it', async () => {
    await start();
    const queue = await queueOf({ inDoubtAfterMs: 1 });
    const to = recipients(3);
    // Cut before the sandbox saw it: nothing was sent, but the worker cannot know.
    proxy.setMode((t) => (t === to[0] || t === to[1] ? 'cut-before' : 'pass'));
    await queue.enqueue(
      'doubt',
      to.map((t) => text(t)),
    );
    await workerOf(queue);
    await waitFor(
      async () => (await queue.status('doubt'))?.inDoubt === 2,
      'two messages in doubt',
      DEADLINE,
    );
    await until(queue, 'doubt', 'finished');
    const report = await queue.report('doubt');
    expect(report?.inDoubt.map((m) => m.to).sort()).toEqual([to[0], to[1]]);
    expect(report?.inDoubt[0]).toMatchObject({ why: 'cut' });
    expect(sentTo()).toEqual([to[2]]);
    proxy.setMode(() => 'pass');
    await expect(queue.resend('doubt', to[2]!)).rejects.toMatchObject({ reason: 'not_in_doubt' });
    await queue.resend('doubt', to[0]!);
    await queue.drop('doubt', to[1]!);
    await waitFor(async () => (await queue.status('doubt'))?.inDoubt === 0, 'decided');
    await until(queue, 'doubt', 'finished');
    await waitFor(() => sentTo().length === 2, 'the resend');
    expect(sentTo().sort()).toEqual([to[0], to[2]].sort());
    expect(await queue.status('doubt')).toMatchObject({ accepted: 2, dropped: 1, inDoubt: 0 });
    expect(await queue.inDoubt('doubt')).toEqual([]);
    // The resent message's statuses count in the report like any other's.
    await sandbox.idle();
    await waitFor(
      async () => (await queue.report('doubt'))?.funnel.read === 2,
      'every read counted',
      DEADLINE,
    );
    expect((await queue.report('doubt'))?.funnel).toMatchObject({
      accepted: 2,
      delivered: 2,
      read: 2,
      maybeSent: 1,
    });
  });

  it('finds one message by its key: queued, accepted with its latest status (or none yet), not sent, in doubt, dropped', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(5);
    const keyed = { key: (m: { to?: unknown }) => `order-${String(m.to).slice(-1)}` };
    proxy.setMode((t) => (t === to[1] || t === to[3] ? 'cut-before' : 'pass'));
    sandbox.faults.failRecipients.set(to[2]!, { code: 131026, title: 'Message undeliverable' });
    await queue.enqueue(
      'one',
      to.slice(0, 4).map((t) => text(t)),
      keyed,
    );
    await workerOf(queue);
    await until(queue, 'one', 'finished');
    await sandbox.idle();
    await waitFor(async () => {
      const f = (await queue.report('one'))?.funnel;
      return f?.read === 1 && f.failed === 1;
    }, 'the read and the failure counted');
    // The last one's statuses never reach the queue: a lost receipt.
    applyTo = undefined;
    await queue.enqueue('one', [text(to[4]!)], keyed);
    await waitFor(async () => (await queue.status('one'))?.accepted === 3, 'the last one accepted');
    await sandbox.idle();
    await queue.drop('one', 'order-3');

    const read = await queue.message('one', 'order-0');
    expect(read).toMatchObject({
      campaign: 'one',
      key: 'order-0',
      to: to[0],
      position: 1,
      state: 'accepted',
    });
    expect(read?.state === 'accepted' && read.status).toBe('read');
    expect(read?.state === 'accepted' && read.wamid).toMatch(/^wamid\./);
    expect(Date.parse(read?.startedAt ?? '')).toBeGreaterThan(0);
    expect(await queue.message('one', 'order-2')).toMatchObject({
      state: 'accepted',
      status: 'failed',
      position: 3,
    });
    const silent = await queue.message('one', 'order-4');
    expect(silent).toMatchObject({ state: 'accepted', status: 'accepted', to: to[4], position: 5 });
    expect(await queue.message('one', 'order-1')).toMatchObject({
      state: 'in_doubt',
      why: 'cut',
      position: 2,
    });
    // A message in doubt holds its recipient in every campaign: another campaign's message to them waits, and says
    // behind which message.
    proxy.setMode(() => 'pass');
    await queue.enqueue('next', [text(to[1]!)]);
    expect(await queue.message('next', to[1]!)).toMatchObject({
      state: 'queued',
      waitsBehind: { campaign: 'one', key: 'order-1' },
    });
    expect(await queue.message('one', 'order-3')).toMatchObject({ state: 'dropped', to: to[3] });
    // Decided, it holds nobody: the other campaign's message goes.
    await queue.drop('one', 'order-1');
    await waitFor(
      async () => (await queue.status('next'))?.accepted === 1,
      "the other campaign's message sent",
    );
    expect(await queue.message('next', to[1]!)).toMatchObject({ state: 'accepted' });
    // Keyed by its key, not its recipient; a campaign never enqueued has none.
    expect(await queue.message('one', to[0]!)).toBeUndefined();
    expect(await queue.message('never', 'order-0')).toBeUndefined();

    await queue.enqueue('later', [text(to[0]!)], { startAt: Date.now() + 3_600_000 });
    expect(await queue.message('later', to[0]!)).toEqual({
      campaign: 'later',
      key: to[0],
      to: to[0],
      position: 1,
      startedAt: null,
      state: 'queued',
    });
    await queue.cancel('later');
    expect(await queue.message('later', to[0]!)).toMatchObject({ state: 'not_sent', code: 'CANCELLED' });
    await expect(queue.message('one', '')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(queue.message('', 'order-0')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(queue.message('one', 42 as never)).rejects.toBeInstanceOf(ConfigurationError);
  });

  /** Holds every write on the target (each primary of a cluster) for `ms`: a Redis that stalls. */
  const pauseWrites = async (ms: number) => {
    const redis = target().redis;
    const nodes = 'nodes' in redis ? redis.nodes('master') : [redis];
    await Promise.all(nodes.map((n) => n.call('CLIENT', 'PAUSE', String(ms), 'WRITE')));
  };

  it('a worker closed while its gate is being written sends nothing, and the message goes back queued', async () => {
    await start();
    const queue = await queueOf();
    const [to] = recipients(1);
    await queue.enqueue('closing', [text(to!)]);
    let worker: CampaignWorker | undefined;
    let closing: Promise<void> | undefined;
    // A shared limiter that grants at once; then Redis stalls the gate's write and the pod gets its SIGTERM.
    const limiter = {
      perSecond: 1000,
      async acquire() {
        if (closing === undefined) {
          await pauseWrites(1000);
          setTimeout(() => {
            closing = worker!.close();
          }, 200);
        }
        return () => {};
      },
      pause() {},
    };
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: proxy.url, rateLimit: limiter });
    worker = queue.work({ gateway, pollMs: 2, lockDurationMs: 5_000, recipientLeaseMs: 5_000 });
    open.push(worker);
    await waitFor(() => closing !== undefined, 'the worker to be closed');
    await closing;
    expect(sandbox.simulator.sent).toHaveLength(0);
    expect(await queue.status('closing')).toMatchObject({
      state: 'running',
      queued: 1,
      notSent: 0,
      inDoubt: 0,
    });
    // Another worker sends it, once.
    await workerOf(queue);
    await until(queue, 'closing', 'finished');
    expect(sentTo()).toEqual([to]);
    expect(await queue.status('closing')).toMatchObject({ accepted: 1, notSent: 0, inDoubt: 0 });
    await sandbox.idle();
  });

  it("a result whose reply was lost is counted once, and its wamid's pointer is written (on a cluster too)", async () => {
    await start();
    const queue = await queueOf();
    const [to] = recipients(1);
    await queue.enqueue('lost', [text(to!)]);
    const redis = await target().newClient();
    const core = queueCoreOf(redis, PREFIX);
    open.push(core);
    const kh = core.kh(to!);
    const rh = core.rh(to!);
    const queued = (await core.ledger.entry('lost', kh))!;
    const sending = { ...queued, state: 's' as const, token: 'attempt-1', startedAt: Date.now() };
    expect(
      await core.ledger.change('lost', kh, rh, queued, sending, { counts: { queued: -1, sending: 1 } }),
    ).toEqual({ outcome: 'ok', parked: [] });
    const accepted = { ...sending, state: 'a' as const, detail: 'wamid.LOST1' };
    const effects = {
      done: true,
      counts: { sending: -1, accepted: 1 },
      record: core.recordOf(sending, { index: 0, ok: true, messageId: 'wamid.LOST1', contacts: [] }),
    };
    // The result's step is made, and its reply lost (on a cluster the pointer, the step after, is not reached);
    // the worker tries the step again.
    await core.ledger.change('lost', kh, rh, sending, accepted, effects);
    expect(await core.change('lost', kh, rh, sending, accepted, effects)).toMatchObject({ outcome: 'ok' });
    expect(await core.explained('wamid.LOST1')).toBe(true);
    expect(await queue.status('lost')).toMatchObject({ state: 'finished', accepted: 1, inFlight: 0 });
  });

  it('refuses bad input with typed errors', async () => {
    await start();
    const queue = await queueOf();
    await expect(queue.enqueue('', [])).rejects.toThrow(/campaign id/);
    await expect(queue.enqueue('c', [text('998900000001')], { batchSize: 0 })).rejects.toThrow(/batchSize/);
    await expect(queue.enqueue('c', [text('998900000001')], { key: () => '' })).rejects.toThrow(/key/);
    // Refused before anything is written: not an iterable, not a message, not one the gateway takes, not JSON.
    await expect(queue.enqueue('c', null as never)).rejects.toBeInstanceOf(ConfigurationError);
    await expect(queue.enqueue('c', [null] as never)).rejects.toBeInstanceOf(MessageValidationError);
    await expect(queue.enqueue('c', [{ to: '998900000001', type: 'text' }] as never)).rejects.toThrow(
      /Invalid message 0/,
    );
    const unstorable = { ...text('998900000002'), biz_opaque_callback_data: 10n };
    await expect(queue.enqueue('c', [text('998900000003'), unstorable] as never)).rejects.toThrow(
      /message 1/,
    );
    expect(await queue.status('c')).toBeUndefined();
    await expect(queue.pause('c', 42 as never)).rejects.toBeInstanceOf(ConfigurationError);
    await expect(queue.pause('c', '')).rejects.toThrow(/reason/);
    await expect(queue.cancel('c', { why: 'x' } as never)).rejects.toThrow(/reason/);
    expect(await queue.status('c')).toBeUndefined();
    expect(() => queue.work({} as never)).toThrow(/GatewayClient/);
    const local = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: sandbox.url,
      rateLimit: new RateLimiter({ perSecond: 10 }),
    });
    expect(() => queue.work({ gateway: local })).toThrow(/RedisRateLimiter/);
    expect(await queue.status('never')).toBeUndefined();
    expect(await queue.report('never')).toBeUndefined();
    await expect(queue.drop('never', '998900000001')).rejects.toMatchObject({ reason: 'not_in_doubt' });
  });

  it('refuses pause, resume and cancel of a campaign never enqueued, writing nothing', async () => {
    await start();
    const queue = await queueOf();
    await expect(queue.pause('nope')).rejects.toMatchObject({ reason: 'unknown_campaign' });
    await expect(queue.resume('nope')).rejects.toMatchObject({ reason: 'unknown_campaign' });
    await expect(queue.cancel('nope')).rejects.toMatchObject({ reason: 'unknown_campaign' });
    await expect(queue.cancel('nope')).rejects.toBeInstanceOf(CampaignQueueError);
    expect(await queue.status('nope')).toBeUndefined();
    expect(await queue.tracker.campaigns()).not.toContain('nope');
    expect(await target().keys(`${PREFIX}*`)).toEqual([]);
    // The id is not blocked: a campaign enqueued under it later runs as any other.
    await queue.enqueue('nope', [text('998900000001')], { startAt: Date.now() + 3_600_000 });
    expect(await queue.status('nope')).toMatchObject({ state: 'scheduled', total: 1 });
  });

  it('refuses to resend a message in doubt of a cancelled campaign; drop still decides it', async () => {
    await start();
    const queue = await queueOf();
    const to = recipients(2);
    proxy.setMode((t) => (t === to[0] ? 'cut-before' : 'pass'));
    await queue.enqueue(
      'cx-doubt',
      to.map((t) => text(t)),
    );
    await workerOf(queue);
    await until(queue, 'cx-doubt', 'finished');
    expect(await queue.status('cx-doubt')).toMatchObject({ inDoubt: 1, accepted: 1 });
    await queue.cancel('cx-doubt');
    proxy.setMode(() => 'pass');
    await expect(queue.resend('cx-doubt', to[0]!)).rejects.toMatchObject({ reason: 'cancelled' });
    // Nothing moved: still in doubt, not queued in a campaign that sends nothing.
    expect(await queue.status('cx-doubt')).toMatchObject({ inDoubt: 1, queued: 0 });
    await queue.drop('cx-doubt', to[0]!);
    expect(await queue.status('cx-doubt')).toMatchObject({ inDoubt: 0, dropped: 1, queued: 0 });
  });

  it('refuses a startAt a Date cannot hold, or one its retention would expire before', async () => {
    await start();
    const queue = await queueOf({ retentionMs: 3_600_000 });
    const one = [text('998900000001')];
    for (const startAt of [1e16, -1e16, new Date(Number.NaN)]) {
      await expect(queue.enqueue('far', one, { startAt })).rejects.toThrow(/startAt.*valid Date/);
    }
    await expect(queue.enqueue('far', one, { startAt: Date.now() + 7_200_000 })).rejects.toThrow(
      /retentionMs/,
    );
    await expect(queue.enqueue('far', one, { startAt: Date.now() + 7_200_000 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    expect(await queue.status('far')).toBeUndefined();
    await queue.enqueue('far', one, { startAt: Date.now() + 1_800_000 });
    expect((await queue.status('far'))?.state).toBe('scheduled');
    // One stored before such times were refused: its status reads, with no start time to show.
    await queue.enqueue('stored', one);
    const counts = queueCoreOf(target().redis, PREFIX).ledger.keysOf('stored').counts;
    await target().redis.hset(counts, 'startAt', '9000000000000000');
    expect(await queue.status('stored')).toMatchObject({ state: 'scheduled', startAt: null, total: 1 });
    expect((await queue.report('stored'))?.queue.startAt).toBeNull();
  });

  it("later enqueues follow the campaign's startAt; another startAt is refused", async () => {
    await start();
    const queue = await queueOf();
    const inAnHour = Date.now() + 3_600_000;
    const to = recipients(4);
    await queue.enqueue(
      'sched',
      to.slice(0, 2).map((t) => text(t)),
      { startAt: inAnHour },
    );
    // The rest of an enqueue that was cut off, run again without its startAt.
    expect(
      await queue.enqueue(
        'sched',
        to.map((t) => text(t)),
      ),
    ).toEqual({ added: 2, existing: 2 });
    const bull = await bullOf('sched');
    expect(await bull.getJobCounts('delayed', 'wait', 'prioritized')).toEqual({
      delayed: 4,
      wait: 0,
      prioritized: 0,
    });
    expect(await queue.status('sched')).toMatchObject({
      state: 'scheduled',
      startAt: new Date(inAnHour).toISOString(),
      queued: 4,
    });
    await expect(
      queue.enqueue('sched', [text('998900000099')], { startAt: inAnHour + 60_000 }),
    ).rejects.toMatchObject({ reason: 'start_at_differs' });
    // The same time again is the same enqueue.
    expect(await queue.enqueue('sched', [text(to[0]!)], { startAt: new Date(inAnHour) })).toEqual({
      added: 0,
      existing: 1,
    });
    // A campaign that started at once: a startAt now would hold back only its later messages.
    await queue.enqueue('now', [text(to[0]!)]);
    await expect(queue.enqueue('now', [text(to[1]!)], { startAt: inAnHour })).rejects.toMatchObject({
      reason: 'start_at_differs',
    });
    expect((await queue.status('now'))?.total).toBe(1);
  });

  it('refuses durations beyond what a timer or Redis holds, naming the option and its maximum', async () => {
    await start();
    const redis = target().redis;
    expect(() => new CampaignQueue({ redis, prefix: PREFIX, retentionMs: 1e20 })).toThrow(
      /retentionMs` must be at most 315,360,000,000 ms/,
    );
    expect(() => new CampaignQueue({ redis, prefix: PREFIX, parkMs: 1e20 })).toThrow(ConfigurationError);
    expect(() => new CampaignQueue({ redis, prefix: PREFIX, inDoubtAfterMs: 1e20 })).toThrow(
      /inDoubtAfterMs/,
    );
    const queue = await queueOf();
    const gateway = await gatewayOf();
    for (const name of ['pollMs', 'lockDurationMs', 'recipientLeaseMs'] as const) {
      expect(() => queue.work({ gateway, [name]: 2 ** 31 })).toThrow(
        new RegExp(`${name}\` must be at most 2,147,483,647 ms`),
      );
    }
  });

  it('refuses every call after close with a typed error, opening nothing', async () => {
    await start();
    const queue = await queueOf();
    await queue.enqueue('shut', [text('998900000001')], { startAt: Date.now() + 3_600_000 });
    await queue.close();
    const calls: [string, () => Promise<unknown>][] = [
      ['enqueue', () => queue.enqueue('shut', [text('998900000002')])],
      ['status', () => queue.status('shut')],
      ['report', () => queue.report('shut')],
      ['inDoubt', () => queue.inDoubt('shut')],
      ['pause', () => queue.pause('shut')],
      ['resume', () => queue.resume('shut')],
      ['cancel', () => queue.cancel('shut')],
      ['resend', () => queue.resend('shut', '998900000001')],
      ['drop', () => queue.drop('shut', '998900000001')],
      ['apply', () => queue.apply({ id: 'wamid.x', status: 'sent' } as never)],
    ];
    for (const [name, run] of calls) {
      await expect(run(), name).rejects.toMatchObject({ name: 'CampaignQueueError', reason: 'closed' });
    }
    const gateway = await gatewayOf();
    expect(() => queue.work({ gateway })).toThrow(CampaignQueueError);
    // Nothing changed by the refused calls.
    const other = await queueOf();
    expect(await other.status('shut')).toMatchObject({ state: 'scheduled', total: 1 });
    // Closed while an enqueue runs (between two of its steps): the same typed error, not an outage of Redis.
    async function* closing() {
      yield text('998900000011');
      await other.close();
      yield text('998900000012');
    }
    await expect(other.enqueue('shut-mid', closing(), { batchSize: 1 })).rejects.toMatchObject({
      name: 'CampaignQueueError',
      reason: 'closed',
    });
  });

  it('refuses malformed options with a ConfigurationError saying which', async () => {
    await start();
    const queue = await queueOf();
    const one = [text('998900000001')];
    await expect(queue.enqueue('opts', one, null as never)).rejects.toThrow(/options must be an object/);
    await expect(queue.enqueue('opts', one, { key: 'abc' as never })).rejects.toThrow(
      /`key` must be a function/,
    );
    await expect(queue.inDoubt('opts', null as never)).rejects.toBeInstanceOf(ConfigurationError);
    for (const limit of [Number.NaN, 1.5, 0, Number.POSITIVE_INFINITY]) {
      await expect(queue.inDoubt('opts', { limit })).rejects.toThrow(/`limit`/);
    }
    // No upper bound: a large campaign cut by a failover may need every doubt listed.
    await expect(queue.inDoubt('opts', { limit: 100_000 })).resolves.toEqual([]);
    for (const olderThanMs of [Number.NaN, -1, '5' as never]) {
      await expect(queue.inDoubt('opts', { olderThanMs })).rejects.toThrow(/`olderThanMs`/);
    }
    expect(
      () =>
        new CampaignQueue({ redis: target().redis, prefix: PREFIX, retryableFailureCodes: 'abc' as never }),
    ).toThrow(/retryableFailureCodes/);
    expect(
      () =>
        new CampaignQueue({
          redis: target().redis,
          prefix: PREFIX,
          retryableFailureCodes: [131026, {}] as never,
        }),
    ).toThrow(ConfigurationError);
    expect(await queue.status('opts')).toBeUndefined();
  });

  it('refuses a reason with control characters; resume says whether it was paused; cancel answers the count', async () => {
    await start();
    const queue = await queueOf();
    await queue.enqueue(
      'steer',
      recipients(3).map((t) => text(t)),
      { startAt: Date.now() + 3_600_000 },
    );
    await expect(queue.pause('steer', 'red \u001b[31malert')).rejects.toThrow(/control characters/);
    await expect(queue.cancel('steer', 'line\rover')).rejects.toBeInstanceOf(ConfigurationError);
    expect(await queue.resume('steer')).toBe(false);
    expect(await queue.pause('steer', 'wrong price')).toBe(true);
    expect(await queue.pause('steer', 'again')).toBe(false);
    expect((await queue.status('steer'))?.hold?.description).toBe('wrong price');
    expect(await queue.resume('steer')).toBe(true);
    expect(await queue.resume('steer')).toBe(false);
    expect(await queue.cancel('steer')).toBe(3);
    // Cancelled again: still the campaign's count, not what this call found left.
    expect(await queue.cancel('steer')).toBe(3);
    expect((await queue.status('steer'))?.cancelled).toBe(3);
  });
}
