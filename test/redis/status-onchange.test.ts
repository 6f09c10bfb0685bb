/**
 * RedisStatusStore: a change stands only if `onChange` succeeds. A failing `onChange` undoes the write (and the
 * billable count) so the gateway's retry, on any instance, finds the change and calls `onChange` again.
 */
import type { Redis } from 'ioredis';
import { beforeEach, expect, it } from 'vitest';
import { RedisStatusStore } from '../../src/redis/index.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';

const secret = 'status-onchange-secret-0123456789abc';
let redis: Redis;

describeRedis('RedisStatusStore onChange', () => {
  useRedis((_, r) => {
    redis = r;
  });
  beforeEach(async () => {
    await redis.flushall();
  });

  it('an onChange that rejects once: 500, the write is undone, and the retry on another instance writes', async () => {
    const db = new Map<string, string>();
    let fail = true;
    const onChange = async ({ current }: { current: { wamid: string; status: string } }) => {
      await Promise.resolve();
      if (fail) {
        fail = false;
        throw new Error('db down');
      }
      db.set(current.wamid, current.status);
    };
    const instance = () => {
      const statuses = new RedisStatusStore({ redis, onChange });
      return {
        statuses,
        handler: createWebhookHandler({
          secret,
          logger: false,
          dedupe: false,
          onEvent: async (e) => {
            if (e.kind === 'status') await statuses.update(e);
          },
        }),
      };
    };
    const a = instance();
    const b = instance();
    const body = JSON.stringify(statusEnvelope(statusObject('delivered', { id: 'wamid.redis' })));
    const post = () =>
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body,
      });
    expect((await a.handler(post())).status).toBe(500);
    expect(await a.statuses.get('wamid.redis')).toBeUndefined();
    expect(await a.statuses.billableCount()).toBe(0);
    expect((await b.handler(post())).status).toBe(200);
    expect(db.get('wamid.redis')).toBe('delivered');
    expect((await b.statuses.get('wamid.redis'))?.status).toBe('delivered');
    expect(await b.statuses.billableCount()).toBe(1);
  });

  it('the undo leaves alone a state another update already built on', async () => {
    let release!: () => void;
    const slow = new RedisStatusStore({
      redis,
      onChange: () =>
        new Promise<void>((_, reject) => {
          release = () => reject(new Error('db down'));
        }),
    });
    const fast = new RedisStatusStore({ redis });
    const delivered = slow.update(statusObject('delivered', { id: 'wamid.race' }));
    while ((await fast.get('wamid.race')) === undefined) await new Promise((r) => setImmediate(r));
    await fast.update(statusObject('read', { id: 'wamid.race' }));
    release();
    await expect(delivered).rejects.toThrow('db down');
    expect((await fast.get('wamid.race'))?.status).toBe('read');
    expect(await fast.billableCount()).toBe(1); // the delivered counted by the first write stays with the read
  });
  it.each(['sent', 'delivered'])(
    'a %s written by another instance while onChange ran does not make the failed change stand',
    async (between) => {
      const id = `wamid.redis-between-${between}`;
      let release!: () => void;
      const db: string[] = [];
      const slow = new RedisStatusStore({
        redis,
        onChange: () =>
          new Promise<void>((_, reject) => {
            release = () => reject(new Error('db down'));
          }),
      });
      const other = new RedisStatusStore({
        redis,
        onChange: ({ current }) => {
          db.push(current.status);
        },
      });
      const first = slow.update(statusObject('delivered', { id }));
      while ((await other.get(id)) === undefined) await new Promise((r) => setImmediate(r));
      expect((await other.update(statusObject(between, { id }))).changed).toBe(false);
      release();
      await expect(first).rejects.toThrow('db down');
      // Only the failed change is taken back: a sent that arrived meanwhile stays, a duplicate adds nothing.
      const undone = await other.get(id);
      if (between === 'sent') expect(undone).toMatchObject({ status: 'sent', billable: false, events: 1 });
      else expect(undone).toBeUndefined();
      // The gateway's retry, on the other instance: the change is found again and announced.
      expect((await other.update(statusObject('delivered', { id }))).changed).toBe(true);
      expect(db).toEqual(['delivered']);
      expect(await other.billableCount()).toBe(1);
    },
  );
});
