/**
 * A failover, measured: on a Redis Cluster of its own (three primaries, three replicas), a run of store writes
 * (idempotency `complete`, a plain SET; window `recordInbound`, a script) and of the durable inbox (two receivers,
 * one worker, 3,000 deliveries on the gateway's retry schedule) is under way when the primary holding the inbox's
 * queue is SIGKILLed; its replica is promoted (cluster-node-timeout 1 s). Once every slot is served again, the
 * test counts what was lost (writes Redis acknowledged and no longer has; events acknowledged to the gateway and
 * never processed) and what held (every failure typed, no process crashed, writes and deliveries resumed by
 * themselves). Run twice: every node with append-only files (fsync always), and without. The figures are printed
 * and written down in docs/running-many-instances.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import {
  type RedisClient,
  RedisIdempotencyStore,
  RedisStoreError,
  RedisWindowStore,
} from '../../src/redis/index.js';
import { type RedisCluster, startRedisCluster } from '../helpers/redis-cluster.js';
import { describeRedis } from '../helpers/redis-server.js';
import { type Child, completions, deliver, drain, startReceiver, startWorker } from './fleet/fleet.js';

interface Writes {
  acked: string[];
  /** When each acknowledged write was sent. */
  sentAt: Map<string, number>;
  failures: Map<string, number>;
  firstFailureAt: number;
  lastFailureAt: number;
}

/** Writes unique keys through two stores as fast as `parallel` loops go, until `stop()`; records what was acked. */
function writeLoop(redis: RedisClient, parallel: number) {
  const dedup = new RedisIdempotencyStore({ redis, prefix: 'fo:' });
  const window = new RedisWindowStore({ redis, prefix: 'fo:' });
  const writes: Writes = {
    acked: [],
    sentAt: new Map(),
    failures: new Map(),
    firstFailureAt: 0,
    lastFailureAt: 0,
  };
  let stopped = false;
  let n = 0;
  const loops = Array.from({ length: parallel }, async () => {
    while (!stopped) {
      const k = n++;
      const id = `w${k}`;
      const sentAt = Date.now();
      try {
        if (k % 2 === 0) await dedup.complete(id, 600_000);
        else await window.recordInbound(id, 1);
        writes.acked.push(id);
        writes.sentAt.set(id, sentAt);
      } catch (error) {
        const failure = error instanceof RedisStoreError ? error.failure : `untyped ${String(error)}`;
        writes.failures.set(failure, (writes.failures.get(failure) ?? 0) + 1);
        writes.lastFailureAt = Date.now();
        writes.firstFailureAt ||= writes.lastFailureAt;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  return {
    writes,
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(loops);
    },
    /** The acked writes Redis no longer has. */
    async lost(): Promise<string[]> {
      const missing: string[] = [];
      for (const id of writes.acked) {
        const n = Number(id.slice(1));
        const there =
          n % 2 === 0 ? (await dedup.peek(id)) === 'done' : (await window.lastInbound(id)) !== undefined;
        if (!there) missing.push(id);
      }
      return missing;
    },
  };
}

describeRedis('a primary killed mid-run and its replica promoted', () => {
  let cluster: RedisCluster | undefined;
  let dir: string | undefined;
  const children: Child[] = [];
  const clients: RedisClient[] = [];
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.stop()));
    for (const c of clients.splice(0)) c.disconnect();
    await cluster?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const appendOnly of [true, false]) {
    it(`append-only files ${appendOnly ? 'on (fsync always)' : 'off'}: what a failover loses, measured`, {
      timeout: 240_000,
    }, async () => {
      cluster = await startRedisCluster({ appendOnly });
      const redis = await cluster.client({ redisOptions: { maxRetriesPerRequest: 1 } });
      clients.push(redis);
      dir = mkdtempSync(join(tmpdir(), 'wa-failover-'));
      const queueName = 'failover';
      const receivers = await Promise.all([0, 1].map(() => startReceiver(cluster!.url, queueName)));
      children.push(...receivers);
      const file = join(dir, 'worker.log');
      const worker = await startWorker(cluster.url, queueName, file, {
        failRate: 0,
        concurrency: 20,
        lockMs: 5000,
      });
      children.push(worker);

      // The primary that holds the inbox's queue (one slot): the worst one to lose.
      const slot = Number(await redis.cluster('KEYSLOT', `bull:{${queueName}}:id`));
      const victim = (await cluster.primaries()).find((p) =>
        p.slots.some(([a, b]) => slot >= a && slot <= b),
      )!.port;
      const replica = await cluster.replicaOf(victim);

      const writer = writeLoop(redis, 8);
      const total = 3_000;
      let killedAt = 0;
      let exitedAt = 0;
      const eventSentAt = new Map<string, number>();
      let lastRefusalAt = 0;
      let servedAgainAt = 0;
      const kill = { done: Promise.resolve() };
      const stats = await deliver({
        count: total,
        concurrency: 50,
        seed: 34,
        ports: () => receivers.map((r) => r.port),
        key: (i) => `wamid.FAILOVER${String(i).padStart(6, '0')}`,
        onAnswer: (status) => {
          if (status !== 200) lastRefusalAt = Date.now();
        },
        onAck: (acked, key, sentAt) => {
          eventSentAt.set(key, sentAt);
          if (killedAt || acked < total * 0.3) return;
          killedAt = Date.now();
          // Until every slot is served again (the replica promoted), timed from the kill.
          kill.done = cluster!
            .kill(victim)
            .then(() => {
              exitedAt = Date.now();
              return cluster!.settled(30_000);
            })
            .then(() => {
              servedAgainAt = Date.now();
            });
        },
      });
      await kill.done;
      await writer.stop();
      await drain(worker, 120_000);

      const done = completions([file]);
      const lostEvents = [...stats.acked].filter((k) => !done.has(k));
      const twice = [...done].filter(([, n]) => n > 1).map(([k]) => k);
      const lostWrites = await writer.lost();
      const figures = {
        appendOnly,
        victim,
        promoted: replica,
        servedAgainAfterMs: servedAgainAt - killedAt,
        writes: {
          acked: writer.writes.acked.length,
          lost: lostWrites.length,
          failures: Object.fromEntries(writer.writes.failures),
          failingForMs: writer.writes.lastFailureAt - writer.writes.firstFailureAt,
        },
        inbox: {
          deliveries: total,
          acked: stats.acked.size,
          droppedByGateway: stats.dropped.length,
          answers: Object.fromEntries(stats.answers),
          lost: lostEvents.length,
          processedTwice: twice.length,
          refusedForMs: lastRefusalAt ? Math.max(0, lastRefusalAt - killedAt) : 0,
        },
      };
      console.log(`failover: ${JSON.stringify(figures)}`);

      // What held: the replica took over; every store failure was a typed one; writes and deliveries went on by
      // themselves; no process crashed; every event the gateway did not give up on was acknowledged.
      expect((await cluster.primaries()).map((p) => p.port)).toContain(replica);
      expect([...writer.writes.failures.keys()].filter((f) => f.startsWith('untyped'))).toEqual([]);
      expect(writer.writes.acked.length).toBeGreaterThan(0);
      expect(servedAgainAt).toBeGreaterThan(killedAt);
      expect(stats.acked.size + stats.dropped.length).toBe(total);
      for (const child of children) expect(child.process.exitCode).toBeNull();
      // What a failover can lose is measured above, not bounded here: how much the replica lagged depends on the
      // machine. What it cannot lose is a write or an event sent once the old primary had exited: only the
      // promoted replica or another primary could have acknowledged it.
      expect(lostWrites.filter((id) => writer.writes.sentAt.get(id)! >= exitedAt)).toEqual([]);
      expect(lostEvents.filter((k) => eventSentAt.get(k)! >= exitedAt)).toEqual([]);
    });
  }
});
