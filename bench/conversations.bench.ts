/**
 * Conversations bench.
 *
 * - Routing overhead: a message event through `router.handle` (memory stores: the customer's lock, record load
 *   and save, window record, reply ledger, the route's match) whose handler replies once, against the same reply
 *   sent by a handler called directly with the event. Both reply through one GatewayClient to a loopback gateway
 *   in a child process, so the figure is what the router adds to a real handler. Bar: <= 1.2x.
 * - Events per second on Redis: 4 processes share one redis-server and 200 customers, each handling its events
 *   16 at a time through a router on `RedisSessionStore` and `RedisWindowStore`, every event replying once.
 *   Reported, no bar (it is the Redis round trips and the loopback sends of this machine).
 *
 * Both sides run from src/ through tsx; the router's side carries the loader's wrappers too, so the ratio is, if
 * anything, pessimistic. Needs redis-server for the second figure.
 *
 * Run: `npx tsx bench/conversations.bench.ts`
 */
import { createRouter } from '../src/conversations/index.js';
import { GatewayClient } from '../src/index.js';
import { messageEnvelope, textMessage } from '../src/testing/webhook-fixtures.js';
import { type MessageEvent, parseWebhook } from '../src/webhooks/index.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { available, redisServer } from '../test/helpers/system-servers.js';
import { forkFleet } from '../test/redis/fixtures/processes.js';
import { spawnFixture } from './fixtures/spawn.js';
import { compare, QUICK, report, round } from './lib.js';

const BAR = 1.2;
const PROCESSES = 4;

const gatewayFixture = await spawnFixture('echo-gateway');
try {
  const gw = new GatewayClient({
    apiKey: 'pk_live_bench_0123456789abcdef',
    baseUrl: gatewayFixture.url,
    rateLimit: false,
  });
  const template = parseWebhook(
    messageEnvelope(textMessage({ from: '998901000000', timestamp: String(Math.floor(Date.now() / 1000)) })),
  )[0] as MessageEvent;
  let seq = 0;
  // A new event each time (a retried one would be skipped), for one of 100 customers; the same on both sides.
  const nextEvent = (): MessageEvent => {
    const id = `wamid.BENCH${++seq}`;
    const from = `99890${1000000 + (seq % 100)}`;
    return {
      ...template,
      idempotencyKey: id,
      message: { ...template.message, id, from } as MessageEvent['message'],
    };
  };
  const router = createRouter({ gateway: gw });
  router.text('never', (ctx) => ctx.reply('no'));
  router.otherwise(async (ctx) => {
    await ctx.reply(`Hello ${ctx.customer}`);
  });
  const direct = async (event: MessageEvent) => {
    const to = (event.message as { from: string }).from;
    await gw.messages.send({ to, type: 'text', text: { body: `Hello ${to}` } });
  };
  const r = await compare(
    () => router.handle(nextEvent()),
    () => direct(nextEvent()),
    { iterations: 50, rounds: QUICK ? 21 : 81 },
  );
  report({
    bench: 'conversations',
    metric: 'router.handle (memory stores) replying once vs the handler called directly (time ratio)',
    value: r.ratio,
    unit: 'x',
    bar: `<= ${BAR}x`,
    limit: BAR,
    pass: r.ratio <= BAR,
    detail: { routerMsPerEvent: round(r.subjectMs), directMsPerEvent: round(r.baselineMs) },
  });

  if (!available(redisServer)) {
    console.log(`conversations: Redis events/s skipped (${redisServer.enable})`);
  } else {
    const redis = await startRedis();
    const count = QUICK ? 250 : 1000;
    const fleet = await forkFleet('conversation-worker', PROCESSES, {
      REDIS_URL: redis.url,
      GATEWAY_URL: gatewayFixture.url,
      COUNT: String(count),
      CUSTOMERS: '200',
    });
    try {
      const t0 = performance.now();
      const results = await fleet.round<{ handled: number; ms: number }>('go');
      const wall = performance.now() - t0;
      const handled = results.reduce((s, x) => s + x.handled, 0);
      const perSecond = handled / (wall / 1000);
      report({
        bench: 'conversations',
        metric: `events handled per second on Redis, ${PROCESSES} processes, 200 customers (reported)`,
        value: perSecond,
        unit: ' events/s',
        bar: 'reported',
        pass: true,
        higherIsBetter: true,
        detail: {
          events: handled,
          wallMs: round(wall),
          perProcessMs: results.map((x) => round(x.ms)).join(' '),
        },
      });
    } finally {
      fleet.stop();
      await redis.dispose();
    }
  }
} finally {
  gatewayFixture.stop();
}
