/**
 * A status that arrives before its send's result is parked, and the step that records the result finds it. If the
 * worker dies right after that step, before applying it, the status must not be lost: the step notes it with the
 * campaign (kept as long as the campaign, not `parkMs`), and another worker's poll applies it. Real processes: a worker SIGKILLed at that moment, then a second worker, one
 * redis-server, the sandbox over real sockets behind a proxy that holds the send's answer until its statuses are
 * parked (so the order is certain, not a race).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { CampaignQueue } from '../../src/redis/index.js';
import { hashId } from '../../src/redis/keys.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { waitFor } from '../helpers/manual-clock.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { connect } from '../helpers/redis-target.js';
import { type Child, spawnChild } from './fleet/fleet.js';

const SECRET = 'campaign-parked-secret-0123456789abcdef';
const PREFIX = 'parked:';
const TO = '998901112233';

describeRedis('campaign queue: a worker that dies before applying the statuses parked for its send', () => {
  const closing: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it('leaves them noted for another worker, and the report counts them', { timeout: 120_000 }, async () => {
    const server: RedisServer = await startRedis();
    closing.push(() => server.dispose());
    const redis = connect(server.url, { maxRetriesPerRequest: null });
    closing.push(() => redis.disconnect());
    const queue = new CampaignQueue({ redis, prefix: PREFIX, logger: { warn: () => {}, error: () => {} } });
    closing.push(() => queue.close());

    const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (event) => queue.apply(event) });
    const receiver = createServer((req, res) => void handler(req, res));
    const sandbox: Sandbox = await startSandbox({
      webhookUrl: `http://127.0.0.1:${await listen(receiver)}/`,
      webhookSecret: SECRET,
      ratePerSecond: 100_000,
      statusDelaysMs: [0, 0, 0],
    });
    closing.push(() => close(receiver));
    closing.push(() => sandbox.close());

    // The send's answer goes back only once its three statuses are parked (their result not written yet).
    const proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const answer = await fetch(`${sandbox.url}${req.url}`, {
          method: req.method ?? 'GET',
          headers: {
            authorization: String(req.headers.authorization ?? ''),
            'content-type': 'application/json',
          },
          ...(req.method === 'GET' ? {} : { body: Buffer.concat(chunks) }),
        });
        const text = await answer.text();
        const sent = sandbox.simulator.sent.find((s) => s.to === TO);
        if (sent) {
          const parking = `${PREFIX}camp:p:${hashId(sent.wamid)}`;
          await waitFor(async () => (await redis.llen(parking)) >= 3, 'the statuses to be parked', 60_000);
        }
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    const proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
    closing.push(() => close(proxy));

    const env = {
      REDIS_URL: server.url,
      PREFIX,
      SANDBOX_URL: proxyUrl,
      PER_SECOND: '1000',
      CONCURRENCY: '1',
      LOCK_MS: '2000',
    };
    const dying: Child = await spawnChild('campaign-worker-dies-applying.ts', env);
    const died = new Promise((resolve) => dying.process.once('exit', (_code, signal) => resolve(signal)));
    closing.push(() => dying.stop());
    await queue.enqueue('parked', [{ to: TO, type: 'text', text: { body: 'spring sale' } }]);
    expect(await died).toBe('SIGKILL');
    expect(sandbox.simulator.sent.map((s) => s.to)).toEqual([TO]);
    expect(await queue.status('parked')).toMatchObject({ accepted: 1, inFlight: 0 });
    // The statuses left the parking list (which lasts only `parkMs`) for the campaign's notes, kept with it.
    const wamid = sandbox.simulator.sent[0]!.wamid;
    expect(await redis.exists(`${PREFIX}camp:p:${hashId(wamid)}`)).toBe(0);
    expect(await redis.hlen(`${PREFIX}cq:pk:parked`)).toBe(1);

    // Another worker's poll, once the dead worker's lock has expired, applies what was noted.
    const next = await spawnChild('campaign-worker.ts', env);
    closing.push(() => next.stop());
    await waitFor(
      async () => (await queue.report('parked'))?.funnel.read === 1,
      'the parked statuses applied',
      60_000,
    );
    expect((await queue.report('parked'))?.funnel).toMatchObject({
      accepted: 1,
      sent: 1,
      delivered: 1,
      read: 1,
    });
    expect(sandbox.simulator.sent.map((s) => s.to)).toEqual([TO]);
    await waitFor(async () => (await redis.hlen(`${PREFIX}cq:pk:parked`)) === 0, 'the note to go', 60_000);
  });
});

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
