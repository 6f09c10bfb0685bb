/**
 * Durable Objects bench (issue 38): one text message delivery in workerd (miniflare), through the webhook handler
 * and the router, on `wa-gateway-sdk/durable-objects`' stores against the in-memory defaults. Same Worker, same
 * isolate, same HTTP path from this process; the router's handler makes no reply, so the ratio is what the stores
 * cost: the claim and its completion, the customer's lock, record and window, each a call to a local object.
 * Deliveries are sent one at a time, for 100 customers, in rounds that alternate the two sides; each figure is the
 * median round. Reported, no bar: miniflare's objects are on this machine, Cloudflare's a network hop away from
 * the Worker (often in another location), which the figure cannot tell.
 *
 * Run: `npx tsx bench/durable-objects.bench.ts`
 */
import { messageEnvelope, textMessage } from '../src/testing/webhook-fixtures.js';
import { startWorkers } from '../test/helpers/workerd.js';
import { QUICK, report, round } from './lib.js';

const SECRET = 'wh_bench_durable_objects_0123456789abcdef';
const ROUNDS = QUICK ? 3 : 7;
const PER_ROUND = QUICK ? 50 : 200;

const fleet = await startWorkers(new URL('./workers/delivery.ts', import.meta.url).pathname, { isolates: 1 });
try {
  const base = fleet.urls[0]!;
  let seq = 0;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const deliver = async (path: string) => {
    const n = ++seq;
    const body = JSON.stringify(
      messageEnvelope(
        textMessage({ id: `wamid.BENCH${n}`, from: `99890${1_000_000 + (n % 100)}`, timestamp }),
      ),
    );
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  };
  const roundMs = async (path: string) => {
    const t0 = performance.now();
    for (let i = 0; i < PER_ROUND; i++) await deliver(path);
    return (performance.now() - t0) / PER_ROUND;
  };
  const calls = async () => ((await (await fetch(`${base}/calls`)).json()) as { calls: number }).calls;

  for (const path of ['/memory', '/durable']) await roundMs(path); // warm both
  const memory: number[] = [];
  const durable: number[] = [];
  const callsBefore = await calls();
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['/memory', '/durable'] as const) : (['/durable', '/memory'] as const);
    for (const path of order) (path === '/memory' ? memory : durable).push(await roundMs(path));
  }
  const perDelivery = ((await calls()) - callsBefore) / (ROUNDS * PER_ROUND);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const m = median(memory);
  const d = median(durable);
  report({
    bench: 'durable-objects',
    metric:
      'a message delivery (handler + router) in workerd, Durable Objects stores vs in-memory (time ratio)',
    value: d / m,
    unit: 'x',
    bar: 'reported',
    pass: true,
    detail: {
      memoryMs: round(m, 3),
      durableObjectsMs: round(d, 3),
      objectCallsPerDelivery: round(perDelivery, 2),
      deliveries: ROUNDS * PER_ROUND,
    },
  });
} finally {
  await fleet.dispose();
}
