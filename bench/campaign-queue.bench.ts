/**
 * The campaign queue (issue 33), three figures; needs redis-server (skipped without it):
 *
 * 1. Bar: 4 worker processes sharing the default limit (a `RedisRateLimiter` of 80/s) sustain at least 0.95 × 80
 *    sends per second, counted as arrivals at a loopback gateway (a child process).
 * 2. Bar: the queue's own cost. Without a limit, against the sandbox (a child process on loopback), one worker
 *    (in this process, `concurrency` 16) delivers at least 0.8 × what an in-process `sendMany` does at the same
 *    concurrency. Interleaved rounds; the figure is the median of the per-round ratios.
 * 3. Informational: Redis memory per queued message (its ledger entry, its recipient's place in the order and its
 *    BullMQ job), and per ledger entry once sent (the entry, and the campaign report's pointer for its wamid), from
 *    `INFO memory` around 10,000 messages. Both are kept `retentionMs` (default 30 days) after the campaign's last
 *    write; a sent message's BullMQ job is removed at once.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { GatewayClient, type OutboundMessage } from '../src/index.js';
import { CampaignQueue } from '../src/redis/index.js';
import { sustained } from '../test/helpers/arrivals.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { available, redisServer } from '../test/helpers/system-servers.js';
import { spawnChild } from '../test/redis/fleet/fleet.js';
import { spawnFixture } from './fixtures/spawn.js';
import { median, QUICK, report, round } from './lib.js';

const N = 80;
const WORKERS = 4;
const LIMITED = QUICK ? 480 : 1200;
const ROUND = QUICK ? 500 : 1000;
const ROUNDS = QUICK ? 3 : 7;
const CONCURRENCY = 16;
const MEMORY_MESSAGES = 10_000;

function messages(n: number, offset: number): OutboundMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    to: `99890${String(offset + i).padStart(7, '0')}`,
    type: 'text',
    text: { body: `Spring sale ${i}` },
  }));
}

async function until(queue: CampaignQueue, campaign: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const s = await queue.status(campaign);
    if (s?.state === 'finished') return;
    if (Date.now() > deadline) throw new Error(`campaign ${campaign} not finished: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

/** 1: four worker processes at the default limit, counted at the gateway. */
async function limited(url: string): Promise<void> {
  const gateway = await spawnFixture('echo-gateway');
  const redis = new Redis(url);
  const queue = new CampaignQueue({ redis, prefix: 'b1:' });
  const env = {
    REDIS_URL: url,
    PREFIX: 'b1:',
    SANDBOX_URL: gateway.url,
    PER_SECOND: String(N),
    CONCURRENCY: '16',
  };
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () => spawnChild('campaign-worker.ts', env)),
  );
  try {
    await fetch(`${gateway.url}/__reset`);
    await queue.enqueue('limited', messages(LIMITED, 0));
    await until(queue, 'limited');
    const arrivals = (await (await fetch(`${gateway.url}/__arrivals`)).json()) as number[];
    if (arrivals.length !== LIMITED) throw new Error(`expected ${LIMITED} arrivals, got ${arrivals.length}`);
    const rate = sustained(arrivals);
    report({
      bench: 'campaign-queue',
      metric: `sustained arrival rate, ${WORKERS} worker processes sharing the default limit, as a share of ${N}/s`,
      value: rate / N,
      unit: 'x',
      bar: '>= 0.95x',
      pass: rate / N >= 0.95,
      detail: { sendsPerSecond: round(rate, 1), messages: LIMITED, workers: WORKERS },
    });
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await queue.close();
    redis.disconnect();
    gateway.stop();
  }
}

/** 2: one worker against `sendMany`, same concurrency, no limit, the sandbox in a child process. */
async function ownCost(url: string): Promise<void> {
  const sandbox = await spawnFixture('sandbox');
  const redis = new Redis(url);
  const queue = new CampaignQueue({ redis, prefix: 'b2:' });
  const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
  const worker = queue.work({
    gateway,
    concurrency: CONCURRENCY,
    pollMs: 5,
    onError: (error, info) => console.log(`worker ${info.stage}: ${String(error)}`),
  });
  try {
    await worker.ready();
    const ratios: number[] = [];
    const rates = { queue: [] as number[], sendMany: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const batch = messages(ROUND, r * ROUND);
      let t0 = performance.now();
      let ok = 0;
      for await (const x of gateway.messages.sendMany(batch, { concurrency: CONCURRENCY })) if (x.ok) ok++;
      const direct = performance.now() - t0;
      if (ok !== ROUND) throw new Error(`sendMany: only ${ok} of ${ROUND} accepted`);
      // A campaign per round, timed from its enqueue (which it includes) to its last result written.
      t0 = performance.now();
      await queue.enqueue(`round-${r}`, batch);
      await until(queue, `round-${r}`);
      const queued = performance.now() - t0;
      ratios.push(direct / queued);
      rates.sendMany.push((ROUND / direct) * 1000);
      rates.queue.push((ROUND / queued) * 1000);
    }
    const ratio = median(ratios);
    report({
      bench: 'campaign-queue',
      metric: `one worker vs in-process sendMany, concurrency ${CONCURRENCY}, no limit, loopback sandbox (median of ${ROUNDS} rounds)`,
      value: ratio,
      unit: 'x',
      bar: '>= 0.8x',
      pass: ratio >= 0.8,
      detail: {
        queuePerSecond: round(median(rates.queue), 1),
        sendManyPerSecond: round(median(rates.sendMany), 1),
        round: ROUND,
      },
    });
  } finally {
    await worker.close();
    await queue.close();
    redis.disconnect();
    sandbox.stop();
  }
}

/** 3: Redis memory per queued message and per sent ledger entry. */
async function memory(url: string): Promise<void> {
  const sandbox = await spawnFixture('sandbox');
  const redis = new Redis(url);
  await redis.flushall();
  const queue = new CampaignQueue({ redis, prefix: 'b3:' });
  try {
    // The queue's own keys first (the campaign registry, BullMQ's meta), so they are not counted per message.
    await queue.enqueue('warm', messages(1, 900_000));
    const before = await usedMemory(redis);
    await queue.enqueue('memory', messages(MEMORY_MESSAGES, 0));
    const queued = await usedMemory(redis);
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
    const worker = queue.work({ gateway, concurrency: 32, pollMs: 10 });
    await until(queue, 'memory');
    await until(queue, 'warm');
    await worker.close();
    const sent = await usedMemory(redis);
    report({
      bench: 'campaign-queue',
      metric: 'Redis memory per queued message (ledger entry, order, BullMQ job)',
      value: round((queued - before) / MEMORY_MESSAGES, 0),
      unit: 'B',
      bar: 'informational',
      pass: true,
      detail: { messages: MEMORY_MESSAGES },
    });
    report({
      bench: 'campaign-queue',
      metric: "Redis memory per sent message (ledger entry and the report's pointer; its job removed)",
      value: round((sent - before) / MEMORY_MESSAGES, 0),
      unit: 'B',
      bar: 'informational',
      pass: true,
      detail: { messages: MEMORY_MESSAGES, retention: '30 days after the last write (retentionMs)' },
    });
  } finally {
    await queue.close();
    redis.disconnect();
    sandbox.stop();
  }
}

if (!available(redisServer)) {
  console.log(`campaign-queue: skipped (${redisServer.enable})`);
} else {
  const server = await startRedis();
  try {
    await limited(server.url);
    await ownCost(server.url);
    await memory(server.url);
  } finally {
    await server.dispose();
  }
}
