/**
 * The claim lease against the gateway's real retry schedule (attempt 2 comes 1 s after a failed attempt 1), with
 * two handler instances sharing one real Redis (one node, or a cluster), each with a client of its own (as two
 * processes would).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { type RedisClient, RedisIdempotencyStore } from '../../../src/redis/index.js';
import { deliverWebhook } from '../../../src/testing/index.js';
import { statusEnvelope, statusObject } from '../../../src/testing/webhook-fixtures.js';
import { createNodeWebhookHandler, createWebhookHandler } from '../../../src/webhooks/index.js';
import { connect, type RedisTarget } from '../../helpers/redis-target.js';

const secret = 'claim-lease-secret-0123456789abcdef';
// Long enough that a stalled event loop on a busy machine (renewals come every third of it) does not lose it.
const LEASE = 2_000;

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The claim-lease tests, on `target` (one redis-server, or a cluster). */
export function claimLeaseSuite(target: () => RedisTarget): void {
  const clients: RedisClient[] = [];
  const servers: Server[] = [];
  /** A client of its own, as another process would have. */
  const client = (): RedisClient => {
    const redis = connect(target().url, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };
  beforeEach(async () => {
    await target().flush();
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
    for (const c of clients.splice(0)) c.disconnect();
  });

  it('renew extends only the holder’s own claim', async () => {
    const admin = client();
    const a = new RedisIdempotencyStore({ redis: client() });
    const b = new RedisIdempotencyStore({ redis: client() });
    expect(await a.claim('evt', LEASE)).toBe('claimed');
    const [key] = await target().keys('wa:dedup:*');
    expect(await a.renew('evt', 60_000)).toBe(true);
    expect(await admin.pttl(key!)).toBeGreaterThan(LEASE); // extended past the lease it was claimed with
    expect(await b.renew('evt', 60_000)).toBe(false); // b never held it
    await admin.del(key!); // the lease ran out
    expect(await b.claim('evt', LEASE)).toBe('claimed');
    expect(await a.renew('evt', 60_000)).toBe(false); // a's claim is gone: it cannot extend b's
  });

  it("an instance that dies mid-onEvent loses the claim before the gateway's next attempt, which processes the event", async () => {
    const entered = deferred();
    const redisA = client();
    const instanceA = createNodeWebhookHandler({
      secret,
      logger: false,
      dedupe: new RedisIdempotencyStore({ redis: redisA }),
      onEvent: () => {
        entered.resolve();
        return new Promise(() => {}); // never finishes: the process dies here
      },
    });
    let processedByB = 0;
    const instanceB = createNodeWebhookHandler({
      secret,
      logger: false,
      dedupe: new RedisIdempotencyStore({ redis: client() }),
      onEvent: () => {
        processedByB++;
      },
    });
    // A load balancer: attempt 1 reaches A, which dies once its onEvent runs (it stops talking to Redis, its socket
    // closes); the retries reach B.
    let requests = 0;
    const front = createServer((req, res) => {
      if (requests++ > 0) return void instanceB(req, res);
      void instanceA(req, res);
      void entered.promise.then(() => {
        redisA.disconnect();
        req.socket.destroy();
      });
    });
    servers.push(front);
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const { port } = front.address() as AddressInfo;

    const body = JSON.stringify(statusEnvelope(statusObject('delivered', { id: 'wamid.crash' })));
    const attempts = await deliverWebhook(body, { url: `http://127.0.0.1:${port}/`, secret });

    expect(attempts.map((a) => a.outcome)).toEqual(['retrying', 'delivered']);
    expect(attempts[0]!.error).toBe('connection error');
    expect(processedByB).toBe(1);
  });

  it('a live holder whose onEvent outlasts the lease keeps the claim: a concurrent duplicate is answered 503', async () => {
    const entered = deferred();
    const finish = deferred();
    const request = () =>
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify(statusEnvelope(statusObject('read', { id: 'wamid.slow' }))),
      });
    const instanceA = createWebhookHandler({
      secret,
      logger: false,
      claimLeaseMs: LEASE,
      // The longest the gateway allows: the event outlasts its lease well inside the delivery's deadline.
      deadlineMs: 4_900,
      dedupe: new RedisIdempotencyStore({ redis: client() }),
      onEvent: async () => {
        entered.resolve();
        await finish.promise;
      },
    });
    let runsOnB = 0;
    const instanceB = createWebhookHandler({
      secret,
      logger: false,
      claimLeaseMs: LEASE,
      dedupe: new RedisIdempotencyStore({ redis: client() }),
      onEvent: () => {
        runsOnB++;
      },
    });
    const first = instanceA(request());
    await entered.promise;
    await sleep(1.25 * LEASE); // past its lease: without renewal the claim would be gone
    const duplicate = await instanceB(request());
    expect(duplicate.status).toBe(503);
    expect(await duplicate.json()).toEqual({ ok: false, error: 'in_progress' });
    finish.resolve();
    expect((await first).status).toBe(200);
    const again = await instanceB(request());
    expect(again.status).toBe(200);
    expect(again.headers.get('x-wa-gateway-duplicates')).toBe('1');
    expect(runsOnB).toBe(0);
  });
}
