/**
 * `work({ replicas })` on a real redis-server with a real replica: the ledger's "being sent" mark must be held by a
 * replica (Redis `WAIT`) before the request goes out, so a failover cannot lose it and send the message again. With
 * the replica gone, nothing is sent and nothing is in doubt: the messages wait, and go out once each when it is back.
 * Counted at the sandbox, over real sockets.
 */
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigurationError, GatewayClient } from '../../src/index.js';
import { CampaignQueue } from '../../src/redis/index.js';
import { hashId } from '../../src/redis/keys.js';
import { queuePrefix } from '../../src/redis/queue-keys.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { waitFor } from '../helpers/manual-clock.js';
import { queueCoreOf } from '../helpers/queue-core.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';

const PREFIX = 'cqr:';
const DEADLINE = 60_000;
const to = (i: number) => `99891${String(i).padStart(7, '0')}`;
const text = (i: number) => ({ to: to(i), type: 'text' as const, text: { body: `hi ${i}` } });

describeRedis('CampaignQueue waits for a replica to hold the mark before each request', () => {
  let primary: RedisServer;
  let replica: RedisServer;
  let sandbox: Sandbox;
  const clients: Redis[] = [];
  const client = (url: string, options = {}) => {
    const c = new Redis(url, { lazyConnect: false, ...options });
    clients.push(c);
    return c;
  };
  /** Makes `replica` a replica of `primary` and waits for the link (a full copy of an almost empty primary). */
  const follow = async () => {
    // A client of its own, closed at once: the replica is stopped later, and a client left on it would reconnect.
    const link = new Redis(replica.url);
    try {
      await link.replicaof('127.0.0.1', String(primary.port));
    } finally {
      link.disconnect();
    }
    const info = client(primary.url);
    await waitFor(
      async () => /connected_slaves:1/.test(await info.info('replication')),
      'the replica to connect',
      DEADLINE,
    );
  };

  beforeAll(async () => {
    primary = await startRedis();
    replica = await startRedis();
    await follow();
    sandbox = await startSandbox({ ratePerSecond: 100_000, statusDelaysMs: [0, 0, 0] });
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await sandbox?.close();
    await replica?.dispose();
    await primary?.dispose();
  });

  it('sends once the replica holds the mark; with it gone sends nothing, doubts nothing; once back, each once', async () => {
    const queue = new CampaignQueue({ redis: client(primary.url), prefix: PREFIX, logLevel: 'off' });
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
    const worker = queue.work({
      gateway,
      concurrency: 4,
      pollMs: 2,
      replicas: { count: 1, timeoutMs: 200 },
    });
    try {
      await worker.ready();
      await queue.enqueue(
        'with-replica',
        Array.from({ length: 5 }, (_, i) => text(i)),
      );
      await waitFor(
        async () => (await queue.status('with-replica'))?.accepted === 5,
        'five accepted',
        DEADLINE,
      );
      expect(sandbox.simulator.sent).toHaveLength(5);

      // The replica goes away: WAIT answers 0 within its 200 ms, and no request goes out.
      await replica.stop();
      await queue.enqueue(
        'replica-gone',
        Array.from({ length: 3 }, (_, i) => text(100 + i)),
      );
      // Each message's gate has refused at least once (its job delayed for a later try).
      const bullName = `cq-${hashId('replica-gone').slice(0, 22)}`;
      const connection = client(primary.url, { maxRetriesPerRequest: null });
      const bull = new Queue(bullName, {
        connection,
        prefix: queuePrefix(connection, `${PREFIX}bull`, bullName),
      });
      try {
        await waitFor(
          async () => (await bull.getDelayedCount()) === 3,
          'three refused by the gate',
          DEADLINE,
        );
      } finally {
        await bull.close();
      }
      // Its status says why it stands still, while refusals go on (each renews the wait).
      await waitFor(
        async () => (await queue.status('replica-gone'))?.waiting?.reason === 'replicas',
        'the status says it waits for replicas',
        DEADLINE,
      );
      // A job whose delay ran out may be at its gate again (in flight, its mark written, waiting for WAIT).
      const waiting = await queue.status('replica-gone');
      expect(waiting).toMatchObject({ inDoubt: 0, accepted: 0, notSent: 0 });
      expect((waiting?.queued ?? 0) + (waiting?.inFlight ?? 0)).toBe(3);
      expect(sandbox.simulator.sent).toHaveLength(5);

      // Back: a fresh replica copies the primary, and the three go out, once each.
      await replica.start();
      await follow();
      await waitFor(
        async () => (await queue.status('replica-gone'))?.accepted === 3,
        'the three accepted',
        DEADLINE,
      );
      const sent = sandbox.simulator.sent.map((s) => s.to);
      expect(sent).toHaveLength(8);
      expect(new Set(sent).size).toBe(8);
      expect(await queue.status('replica-gone')).toMatchObject({
        inDoubt: 0,
        notSent: 0,
        state: 'finished',
        waiting: undefined,
      });
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 120_000);

  it('a WAIT that counts replicas of a mark that is not there (as after a failover) does not let the send out', async () => {
    const redis = client(primary.url);
    const queue = new CampaignQueue({ redis, prefix: PREFIX, logLevel: 'off' });
    const core = queueCoreOf(redis, PREFIX);
    try {
      // Queued, never marked: the replica is there and WAIT counts it, but no mark of this attempt is.
      await queue.enqueue('unmarked', [text(200)]);
      const kh = core.kh(to(200));
      expect(await redis.wait(1, 1000)).toBe(1);
      expect(await core.replicasHold('unmarked', kh, 'attempt-1', 1, 200)).toBe(false);
      // The same entry marked by this attempt: held.
      const ledger = core.ledger.keysOf('unmarked').ledger;
      const entry = (await redis.hget(ledger, kh)) as string;
      await redis.hset(ledger, kh, entry.replace(/^q\|(\d*)\|([^|]*)\|\|/, 's|$1|$2|attempt-1|'));
      expect(await core.replicasHold('unmarked', kh, 'attempt-1', 1, 200)).toBe(true);
      expect(await core.replicasHold('unmarked', kh, 'attempt-2', 1, 200)).toBe(false);
    } finally {
      await core.close();
      await queue.close();
    }
  });

  it('refuses a replicas option it cannot honour: a count below 1, a timeout of 0 (WAIT would wait for ever) or above 1 s', () => {
    const queue = new CampaignQueue({ redis: client(primary.url), prefix: PREFIX, logLevel: 'off' });
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
    for (const replicas of [
      { count: 0 },
      { count: 1.5 },
      { count: 1, timeoutMs: 0 },
      { count: 1, timeoutMs: 5000 },
      null,
    ]) {
      expect(() => queue.work({ gateway, replicas: replicas as never })).toThrow(ConfigurationError);
    }
    return queue.close();
  });
});
