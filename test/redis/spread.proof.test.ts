/**
 * Keys that spread, and dedup across processes, with 10,000 events (2,000 on one node): four receiver processes (the ordinary webhook
 * handler with `RedisIdempotencyStore`, applying statuses, inbound times and sessions: fixtures/dedup-receiver.ts)
 * share one Redis (one redis-server, then a Redis Cluster). Every event is delivered twice at the same moment, to
 * two different receivers, and again after any 5xx, as the gateway retries: each `onEvent` runs exactly once across
 * the four. On the cluster the run's keys land on every primary, none of them with most of the load, and no
 * command is refused with CROSSSLOT (checked by useRedisTarget).
 */
import { expect, it } from 'vitest';
import { messageEnvelope, statusEnvelope, statusObject, textMessage } from '../../src/testing/index.js';
import { parseWebhook, type WebhookEnvelope } from '../../src/webhooks/index.js';
import { describeRedis } from '../helpers/redis-server.js';
import { onTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import { forkFleet } from './fixtures/processes.js';

const SECRET = 'spread-proof-secret-0123456789abcdef';

/** Event `i`: a text from one of 1,000 customers, or a status of a message of one of them. */
function event(i: number): { key: string; body: string } {
  const customer = `99890${String(1_000_000 + ((i >> 1) % 1000))}`;
  if (i % 2 === 0) {
    const id = `wamid.SPREAD-IN-${i}`;
    const message = textMessage({ id, from: customer, timestamp: '1700000000', text: { body: `m${i}` } });
    const envelope = messageEnvelope(message, { contacts: [{ wa_id: customer, profile: { name: 'C' } }] });
    return { key: id, body: JSON.stringify(envelope) };
  }
  const status = statusObject('delivered', { id: `wamid.SPREAD-OUT-${i}`, recipient_id: customer });
  const envelope: WebhookEnvelope = statusEnvelope(status);
  // A status's idempotency key is the parser's (the wamid with its status), as the handler dedupes it.
  return { key: parseWebhook(envelope)[0]!.idempotencyKey, body: JSON.stringify(envelope) };
}

/** Posts until the receiver answers 200, waiting as the gateway does after a 5xx (a claim held elsewhere). */
async function deliver(port: number, body: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      body,
    }).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 200) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no 200 after 100 attempts');
}

for (const kind of TARGETS) {
  // 10,000 on the cluster, where the keys land is the point; 2,000 on one node (dedup across processes).
  const TOTAL = kind === 'cluster' ? 10_000 : 2_000;
  describeRedis(`${TOTAL.toLocaleString('en')} events through four receivers ${onTarget(kind)}`, () => {
    const target = useRedisTarget(kind);

    it('each event runs once across the processes, delivered twice at once; on a cluster keys land on every primary', async () => {
      const prefix = `spread-${kind}-${Date.now()}:`;
      const fleet = await forkFleet('dedup-receiver', 4, {
        REDIS_URL: target().url,
        PREFIX: prefix,
        WEBHOOK_SECRET: SECRET,
      });
      try {
        const ports = await fleet.round<number>('port');
        const started = Date.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: 32 }, async () => {
            for (let i = next++; i < TOTAL; i = next++) {
              const { body } = event(i);
              await Promise.all([deliver(ports[i % 4]!, body), deliver(ports[(i + 1) % 4]!, body)]);
            }
          }),
        );
        const deliveredMs = Date.now() - started;
        const runs = new Map<string, number>();
        for (const counts of await fleet.round<Record<string, number>>('counts'))
          for (const [key, n] of Object.entries(counts)) runs.set(key, (runs.get(key) ?? 0) + n);
        const keys = Array.from({ length: TOTAL }, (_, i) => event(i).key);
        const notRun = keys.filter((k) => !runs.has(k));
        const twice = keys.filter((k) => (runs.get(k) ?? 0) > 1);
        const perPrimary = await target().keysPerPrimary(`${prefix}*`);
        const stored = perPrimary.reduce((a, b) => a + b, 0);
        const byKind: Record<string, number> = {};
        for (const kindOfKey of ['dedup', 'status', 'status-billable', 'window', 'conv']) {
          byKind[kindOfKey] = (await target().keys(`${prefix}${kindOfKey}:*`)).length;
        }
        console.log(
          `spread ${onTarget(kind)}: ${JSON.stringify({ events: TOTAL, notRun: notRun.length, twice: twice.length, keys: stored, byKind, perPrimary, deliveredMs })}`,
        );
        expect(notRun).toEqual([]);
        expect(twice).toEqual([]);
        expect(runs.size).toBe(TOTAL);
        // Per event a dedup key; per customer a record and an inbound time; per status a record, and the counts.
        expect(byKind).toMatchObject({ dedup: TOTAL, window: 1000, conv: 1000 });
        expect(byKind['status']).toBe(TOTAL / 2);
        if (kind === 'cluster') {
          expect(perPrimary).toHaveLength(3);
          // On every primary, and none holding more than half: the load is spread, not in one slot.
          for (const n of perPrimary) {
            expect(n).toBeGreaterThan(stored * 0.2);
            expect(n).toBeLessThan(stored * 0.5);
          }
        }
      } finally {
        fleet.stop();
      }
    }, 240_000);
  });
}
