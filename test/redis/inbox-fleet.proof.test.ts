/**
 * The durable inbox with real processes: receivers (node:http servers running `createNodeInboxHandler`) and
 * workers (`createInboxWorker`) as child processes sharing one real Redis (one redis-server, then a Redis Cluster
 * for the fleet run; a failover is test/redis/cluster-failover.proof.test.ts), a sender in this process that
 * delivers like the gateway. Every event is accounted for: completed exactly once, none lost, none twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { onTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import {
  type Child,
  completions,
  deliver,
  drain,
  eventKey,
  startReceiver,
  startWorker,
} from './fleet/fleet.js';

/** Stops a test's child processes and removes its scratch dir. */
async function cleanUp(children: Child[], dir: string | undefined): Promise<void> {
  await Promise.all(children.splice(0).map((c) => c.stop()));
  if (dir) rmSync(dir, { recursive: true, force: true });
}

for (const kind of TARGETS)
  describeRedis(`durable inbox fleet (child processes) ${onTarget(kind)}`, () => {
    const target = useRedisTarget(kind);
    const children: Child[] = [];
    let dir: string | undefined;
    afterEach(() => cleanUp(children, dir));

    // 10,000 on one node; 5,000 on the cluster, where the queue is one slot all the same (CI's time is counted).
    const total = kind === 'node' ? 10_000 : 5_000;
    it(`4 receivers, 2 workers, ${total.toLocaleString('en')} deliveries, onEvent failing 30%, a receiver SIGKILLed: 0 lost, 0 twice`, {
      timeout: 240_000,
    }, async () => {
      const url = target().url;
      dir = mkdtempSync(join(tmpdir(), 'wa-inbox-fleet-'));
      const queueName = `fleet-${kind}`;
      const receivers = await Promise.all(Array.from({ length: 4 }, () => startReceiver(url, queueName)));
      children.push(...receivers);
      const files = [join(dir, 'worker-0.log'), join(dir, 'worker-1.log')];
      const workers = await Promise.all(
        files.map((file) => startWorker(url, queueName, file, { failRate: 0.3, concurrency: 50 })),
      );
      children.push(...workers);

      const victim = receivers[1]!;
      const started = Date.now();
      let killedAt = -1;
      const stats = await deliver({
        count: total,
        // The gateway's deliveries in flight at once. More only queues them: on a busy machine deliveries would then
        // wait past the gateway's 5 s in the sender's own queue and be counted as timeouts.
        concurrency: 50,
        seed: 15,
        ports: () => receivers.map((r) => r.port),
        onAck: (acked) => {
          // Mid-run, with deliveries in flight to every receiver.
          if (killedAt < 0 && acked >= total * 0.3) {
            killedAt = acked;
            victim.process.kill('SIGKILL');
          }
        },
      });
      expect(killedAt).toBeGreaterThan(0);
      // The balancer saw the killed receiver fail and retried elsewhere.
      expect(stats.answers.get(0) ?? 0).toBeGreaterThan(0);
      const deliveredMs = Date.now() - started;
      const replayed = await drain(workers[0]!, 90_000);
      const drainedMs = Date.now() - started;

      const done = completions(files);
      const lost: string[] = [];
      const twice: string[] = [];
      for (let i = 0; i < total; i++) {
        const n = done.get(eventKey(i)) ?? 0;
        if (n === 0) lost.push(eventKey(i));
        if (n > 1) twice.push(eventKey(i));
      }
      const report = {
        acked: stats.acked.size,
        droppedByGateway: stats.dropped.length,
        answers: Object.fromEntries(stats.answers),
        replayedFromFailedSet: replayed,
        lost: lost.length,
        completedTwice: twice.length,
        deliveredMs,
        drainedMs,
      };
      console.log(`inbox fleet ${onTarget(kind)}: ${JSON.stringify(report)}`);
      expect(stats.dropped).toEqual([]);
      expect(stats.acked.size).toBe(total);
      expect(lost).toEqual([]);
      expect(twice).toEqual([]);
      expect(done.size).toBe(total);
      if (kind === 'cluster') {
        // The queue's keys carry its name as their hash tag: one slot, as BullMQ's scripts need.
        expect((await target().keys(`bull:{${queueName}}:*`)).length).toBeGreaterThan(0);
        expect(await target().keys(`bull:${queueName}:*`)).toEqual([]);
      }
      // With 3 attempts at 30% failure about 2.7% of events exhaust their attempts: the failed set and its replay
      // were exercised, not bypassed.
      expect(replayed).toBeGreaterThan(0);
      // Every process but the victim is still alive, and stops cleanly.
      for (const child of [...receivers.filter((r) => r !== victim), ...workers]) {
        expect(child.process.exitCode).toBeNull();
      }
      const codes = await Promise.all(children.splice(0).map((c) => c.stop()));
      expect(codes.filter((c) => c !== 0)).toEqual([null]);
    });
  });

describeRedis('durable inbox fleet (child processes) on one redis-server that stops', () => {
  let server: RedisServer | undefined;
  let dir: string | undefined;
  const children: Child[] = [];

  afterEach(async () => {
    await cleanUp(children, dir);
    await server?.dispose();
  });

  it('Redis stopped mid-run: receivers answer 5xx while it is down, nothing crashes, work resumes by itself', {
    timeout: 240_000,
  }, async () => {
    const total = 2_000;
    // Append-only with an fsync per write: what Redis acknowledged survives the restart, as in production.
    server = await startRedis({ appendOnly: true });
    dir = mkdtempSync(join(tmpdir(), 'wa-inbox-down-'));
    const queueName = 'down';
    const receivers = await Promise.all(
      Array.from({ length: 2 }, () => startReceiver(server!.url, queueName)),
    );
    children.push(...receivers);
    const file = join(dir, 'worker.log');
    // A job handed over as Redis went down is noticed as stalled after one to two lock durations: 5 s, not 30.
    const worker = await startWorker(server.url, queueName, file, {
      failRate: 0,
      concurrency: 20,
      lockMs: 5000,
    });
    children.push(worker);

    const started = Date.now();
    let phase: 'before' | 'down' | 'after' = 'before';
    let outage: Promise<void> | undefined;
    let fivexxWhileDown = 0;
    const stats = await deliver({
      count: total,
      concurrency: 50,
      seed: 16,
      ports: () => receivers.map((r) => r.port),
      onAnswer: (status) => {
        if (phase === 'down' && status >= 500) fivexxWhileDown++;
      },
      onAck: (acked) => {
        if (phase === 'before' && acked >= total * 0.3) {
          phase = 'down';
          const running = server!;
          outage = (async () => {
            await running.stop();
            // Down until the receivers have been seen refusing deliveries, then back.
            const deadline = Date.now() + 10_000;
            while (fivexxWhileDown === 0 && Date.now() < deadline)
              await new Promise((r) => setTimeout(r, 20));
            await running.start();
            phase = 'after';
          })();
        }
      },
    });
    await outage;
    expect(phase).toBe('after');
    expect(fivexxWhileDown).toBeGreaterThan(0);
    const deliveredMs = Date.now() - started;
    await drain(worker, 90_000);
    const drainedMs = Date.now() - started;

    const done = completions([file]);
    expect(stats.dropped).toEqual([]);
    expect(stats.acked.size).toBe(total);
    const lost = [...stats.acked].filter((k) => !done.has(k));
    const twice = [...done].filter(([, n]) => n > 1).map(([k]) => k);
    console.log(
      `inbox redis outage: ${JSON.stringify({ answers: Object.fromEntries(stats.answers), fivexxWhileDown, lost: lost.length, twice: twice.length, deliveredMs, drainedMs })}`,
    );
    expect(lost).toEqual([]);
    expect(twice).toEqual([]);
    // The receivers said why they answered 5xx: Redis unreachable, events not stored, each once per outage.
    const logs = receivers.flatMap((r) => r.logs);
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) {
      expect(line).toMatch(
        /^(warn createNodeInboxHandler: (cannot reach Redis at|Redis at .* is reachable again|events are stored again)|error createNodeInboxHandler: an event was not stored)/,
      );
    }
    for (const child of children) expect(child.process.exitCode).toBeNull();
    const codes = await Promise.all(children.splice(0).map((c) => c.stop()));
    expect(codes).toEqual([0, 0, 0]);
  });
});
