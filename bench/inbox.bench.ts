/**
 * Inbox bench: what the durable inbox costs a delivery, against a real redis-server on loopback.
 *
 * - Acknowledgement latency: 1,000 deliveries in flight at once to a node:http server running
 *   `createNodeInboxHandler` (each answered 200 only once its job is in Redis), from send to answer; p50 and p99
 *   over several rounds. Baseline: the same server running `createNodeWebhookHandler` with an `onEvent` that does
 *   nothing (in-memory dedup), so the ratio shows what storing in Redis adds; every answer must be a 200. Bar: p99
 *   at most 2x the plain handler's. Absolute milliseconds depend on the machine (here both sides share its cores
 *   with the 1,000 clients); the ratio does not.
 * - Throughput: events per second stored (200s from the inbox, 100 deliveries in flight) and events per second
 *   stored and processed by one `createInboxWorker` (concurrency 50, an `onEvent` that does nothing). Bar: at least
 *   240 events/s, the status traffic of the gateway's 80 sends/s (sent, delivered, read for each).
 *
 * Needs redis-server (`apt-get install redis-server`); without it the figures are reported as not measured.
 *
 * Run: `npx tsx bench/inbox.bench.ts`
 */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInboxWorker, createNodeInboxHandler } from '../src/redis/index.js';
import { messageEnvelope, textMessage } from '../src/testing/webhook-fixtures.js';
import { createNodeWebhookHandler } from '../src/webhooks/index.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { redisServer } from '../test/helpers/system-servers.js';
import { report, round } from './lib.js';

const SECRET = 'bench-inbox-secret-0123456789abcdef0123';
const CONCURRENT = 1000;
const ROUNDS = 5;
const P99_RATIO_BAR = 2;
const THROUGHPUT_BAR = 240;

let seq = 0;
const body = () =>
  JSON.stringify(messageEnvelope(textMessage({ id: `wamid.BENCH${++seq}`, text: { body: `event ${seq}` } })));

async function listen(
  handler: (req: never, res: never) => unknown,
): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => void handler(req as never, res as never));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT });

function post(port: number, payload: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${SECRET}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(payload);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Latencies of ROUNDS rounds of CONCURRENT deliveries all in flight at once, after a warm-up round. */
async function latencies(port: number): Promise<{ p50: number; p99: number; non200: number }> {
  const all: number[] = [];
  let non200 = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const payloads = Array.from({ length: CONCURRENT }, body);
    const results = await Promise.all(payloads.map((p) => post(port, p)));
    if (round === 0) continue;
    for (const r of results) {
      all.push(r.ms);
      if (r.status !== 200) non200++;
    }
  }
  all.sort((a, b) => a - b);
  return { p50: percentile(all, 50), p99: percentile(all, 99), non200 };
}

async function throughput(port: number, count: number, inFlight: number): Promise<number> {
  let next = 0;
  let non200 = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        if ((await post(port, body())).status !== 200) non200++;
      }
    }),
  );
  if (non200 > 0) throw new Error(`${non200} deliveries were not acknowledged`);
  return count / ((performance.now() - t0) / 1000);
}

if (!redisServer.path) {
  console.log(`redis-server not found: inbox figures not measured (${redisServer.enable})`);
  report({
    bench: 'inbox',
    metric: 'not measured: redis-server missing',
    value: 0,
    unit: '',
    bar: 'needs redis-server',
    pass: true,
  });
} else {
  const redis = await startRedis();
  try {
    const inbox = createNodeInboxHandler({ connection: redis.url, secret: SECRET, queueName: 'bench' });
    await inbox.ready();
    const subject = await listen(inbox);
    const plain = await listen(createNodeWebhookHandler({ secret: SECRET, onEvent: () => {} }));

    const base = await latencies(plain.port);
    const ack = await latencies(subject.port);
    report({
      bench: 'inbox',
      metric: `ack latency p50, ${CONCURRENT} concurrent deliveries`,
      value: ack.p50,
      unit: 'ms',
      bar: 'figure',
      pass: ack.non200 === 0,
      detail: { baselineP50Ms: round(base.p50, 1), non200: ack.non200 },
    });
    report({
      bench: 'inbox',
      metric: `ack latency p99, ${CONCURRENT} concurrent deliveries`,
      value: ack.p99,
      unit: 'ms',
      bar: 'figure',
      pass: ack.non200 === 0,
      detail: { baselineP99Ms: round(base.p99, 1), non200: ack.non200 },
    });
    report({
      bench: 'inbox',
      metric: 'ack latency p99 vs the plain handler (time ratio)',
      value: ack.p99 / base.p99,
      unit: 'x',
      bar: `<= ${P99_RATIO_BAR}x`,
      pass: ack.non200 === 0 && ack.p99 / base.p99 <= P99_RATIO_BAR,
      detail: { inboxP99Ms: round(ack.p99, 1), baselineP99Ms: round(base.p99, 1) },
    });

    const stored = await throughput(subject.port, 5000, 100);
    report({
      bench: 'inbox',
      metric: 'events stored per second (100 in flight)',
      value: stored,
      unit: ' ev/s',
      bar: `>= ${THROUGHPUT_BAR} ev/s`,
      pass: stored >= THROUGHPUT_BAR,
    });

    // End to end: a fresh queue, a worker taking jobs as they arrive; timed until the last one completed.
    const e2e = createNodeInboxHandler({ connection: redis.url, secret: SECRET, queueName: 'bench-e2e' });
    await e2e.ready();
    const e2eServer = await listen(e2e);
    const total = 5000;
    let processed = 0;
    let allDone: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      allDone = resolve;
    });
    const worker = createInboxWorker({
      connection: redis.url,
      queueName: 'bench-e2e',
      concurrency: 50,
      onEvent: () => {
        if (++processed === total) allDone();
      },
    });
    await worker.ready();
    const t0 = performance.now();
    await throughput(e2eServer.port, total, 100);
    await finished;
    const endToEnd = total / ((performance.now() - t0) / 1000);
    report({
      bench: 'inbox',
      metric: 'events stored and processed per second (1 worker, concurrency 50)',
      value: endToEnd,
      unit: ' ev/s',
      bar: `>= ${THROUGHPUT_BAR} ev/s`,
      pass: endToEnd >= THROUGHPUT_BAR,
    });

    await worker.close();
    for (const s of [subject.server, plain.server, e2eServer.server]) {
      s.closeAllConnections();
      s.close();
    }
    await inbox.close();
    await e2e.close();
  } finally {
    agent.destroy();
    await redis.dispose();
  }
}
