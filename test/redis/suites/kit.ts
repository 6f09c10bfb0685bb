/**
 * The Redis kit on a real Redis (one node: kit.test.ts; a cluster: cluster.proof.test.ts):
 * - a lease lost to expiry can neither renew nor release its successor's lease, nor write fenced by it;
 * - a compare-and-set that keeps losing ends in a typed error (a racing writer forced between read and write);
 * - every key a script writes has an expiry: every store's operations run with every script checked, by reading
 *   the TTL of every key in Redis after it ran.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { beforeEach, expect, it, vi } from 'vitest';
import { CampaignTracker } from '../../../src/index.js';
import { isCluster } from '../../../src/redis/client.js';
import { RedisStoreError } from '../../../src/redis/errors.js';
import {
  RedisCampaignStore,
  type RedisClient,
  RedisIdempotencyStore,
  RedisRateLimiter,
  RedisSessionStore,
  RedisStatusStore,
  RedisTokenStore,
  RedisWindowStore,
} from '../../../src/redis/index.js';
import { KeySpace } from '../../../src/redis/keys.js';
import { RedisLease } from '../../../src/redis/lease.js';
import { reads, Script, writes } from '../../../src/redis/script.js';
import { statusObject } from '../../../src/testing/webhook-fixtures.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

/** Resolves once `key` is gone from Redis (its expiry ran out): a condition, not a fixed sleep. */
async function expired(redis: RedisClient, key: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await redis.pttl(key)) !== -2) {
    if (Date.now() > deadline) throw new Error(`${key} did not expire`);
    await sleep(5);
  }
}

/** Writes ARGV[1] into KEYS[1] and increments KEYS[2]; fenced runs use it as the protected write. */
const WRITE_TWO = new Script(`
redis.call('SET', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[2])
return 1
`);

/** What the expiry check throws (a store reports it as the `causeName` of its `RedisStoreError`). */
class MissingExpiry extends Error {
  override name = 'MissingExpiry';
}

/** The kit's tests, on `target`. */
export function kitSuite(target: () => RedisTarget): void {
  let redis: RedisClient;
  let keys: KeySpace;
  beforeEach(async () => {
    redis = target().redis;
    keys = KeySpace.for(redis, 'kit:');
    await target().flush();
  });

  it("a lease lost to expiry cannot renew, release or write over its successor's", async () => {
    const tag = keys.tag('job-1');
    const leaseKey = keys.name('lease', tag);
    const record = keys.name('record', tag);
    const counter = keys.name('count', tag);
    const first = await RedisLease.acquire(redis, leaseKey, 50, 'kit');
    expect(first).toBeDefined();
    expect(await RedisLease.acquire(redis, leaseKey, 60_000, 'kit')).toBeUndefined(); // taken
    await expired(redis, leaseKey);
    const second = await RedisLease.acquire(redis, leaseKey, 60_000, 'kit');
    expect(second).toBeDefined();
    await second!.fenced(WRITE_TWO, [writes(record, 60_000), writes(counter, 60_000)], ['second']);

    expect(await first!.renew()).toBe(false);
    expect(await first!.release()).toBe(false);
    const refused = await first!
      .fenced(WRITE_TWO, [writes(record, 60_000), writes(counter, 60_000)], ['first'])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RedisStoreError);
    expect(refused).toMatchObject({ failure: 'lease_lost' });
    // The successor's lease and writes stand, its expiry untouched by the refused holder.
    expect(await redis.get(leaseKey)).toBe(second!.value);
    expect(await redis.get(record)).toBe('second');
    expect(await redis.get(counter)).toBe('1');
    expect(await redis.pttl(leaseKey)).toBeGreaterThan(50_000);

    expect(await second!.renew(90_000)).toBe(true);
    expect(await redis.pttl(leaseKey)).toBeGreaterThan(60_000);
    expect(await second!.release()).toBe(true);
    expect(await redis.exists(leaseKey)).toBe(0);
  });

  it('a lease whose renewal answers false is lost: the keeper says so and aborts its signal', async () => {
    const key = keys.name('lease', keys.tag('job-2'));
    // A lease long enough that its first renewal (a third of it in) is answered well before it could expire on a
    // busy machine: the renewal, not the clock, must find it taken.
    const lease = await RedisLease.acquire(redis, key, 3_000, 'kit');
    await redis.set(key, 'another holder', 'PX', 60_000); // taken over
    const lost: string[] = [];
    const keeper = lease!.keep({ onLost: (why) => lost.push(why) });
    await new Promise<void>((resolve) => keeper.signal.addEventListener('abort', () => resolve()));
    expect(lost).toEqual(['taken']);
    expect(keeper.lost).toBe('taken');
    expect(await redis.get(key)).toBe('another holder');
    keeper.stop();
  });

  it('a lease that stays taken makes the waiter give up with lock_timeout', async () => {
    const key = keys.name('lease', keys.tag('job-3'));
    await redis.set(key, 'someone', 'PX', 60_000);
    const error = await RedisLease.wait(redis, key, 1000, 'kit.wait', {
      waitMs: 50,
      timeoutMessage: 'someone holds it.',
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'RedisStoreError', failure: 'lock_timeout', operation: 'kit.wait' });
  });

  it('a compare-and-set that keeps losing ends in RedisStoreError contention, having written nothing', async () => {
    // A racing writer, forced between each read and its write: every round of the store's loop loses.
    const racer = await target().newClient();
    const racing = new Proxy(redis, {
      get(client, name, receiver) {
        const value = Reflect.get(client, name, receiver);
        if (name !== 'get' || typeof value !== 'function') return value;
        return async (key: string) => {
          const seen = await value.call(client, key);
          await racer.set(key, JSON.stringify({ ...JSON.parse(seen ?? '{}'), events: Math.random() }));
          return seen;
        };
      },
    }) as RedisClient;
    const statuses = new RedisStatusStore({ redis: racing, maxAttempts: 3 });
    const honest = new RedisStatusStore({ redis });
    await honest.update(statusObject('sent', { id: 'wamid.cas', timestamp: '100' }));
    const error = await statuses
      .update(statusObject('delivered', { id: 'wamid.cas', timestamp: '101' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ failure: 'contention', operation: 'RedisStatusStore.update' });
    expect(String((error as Error).message)).toMatch(/3 concurrent updates/);
    // Only the racer wrote: the message is still 'sent'.
    expect((await honest.get('wamid.cas'))?.status).toBe('sent');
  });

  it('the script helper refuses a write to a key it was not given, or given read-only; reads keep expiries', async () => {
    const key = keys.name('k', keys.tag('one'));
    const other = keys.name('other', keys.tag('one'));
    const undeclared = new Script(`redis.call('SET', '${other}', '1') return 1`);
    await expect(undeclared.run(redis, [writes(key, 1000)], [])).rejects.toThrow(/not given in KEYS/);
    const readOnly = new Script(`redis.call('SET', KEYS[1], '1') return 1`);
    await expect(readOnly.run(redis, [reads(key)], [])).rejects.toThrow(/declared read-only/);
    // Each command is known when the script is built: one reached through an alias, or one that writes a key other
    // than its first argument (whose expiry the helper could not vouch for), is refused before it can run.
    expect(() => new Script(`local call = redis.call call('SET', KEYS[1], '1') return 1`)).toThrow(
      /not named literally/,
    );
    expect(() => new Script(`redis.call('RENAME', KEYS[1], KEYS[2]) return 1`)).toThrow(/RENAME/);
    // A script's own expiry of a key it writes is its declared one, nothing else (not PEXPIRE k 0, nor NX).
    const oddExpiry = new Script(`redis.call('PEXPIRE', KEYS[1], 5000, 'NX') return 1`);
    await expect(oddExpiry.run(redis, [writes(key, 60_000)], [])).rejects.toThrow(/only refresh/);
    expect(await redis.exists(key, other)).toBe(0);
    // A script that only reads a key (or deletes from it) leaves its expiry as it was.
    await redis.set(key, 'v', 'PX', 5_000);
    const readOnlyScript = new Script(`return redis.call('GET', KEYS[1])`);
    expect(await readOnlyScript.run(redis, [writes(key, 600_000)], [])).toBe('v');
    expect(await redis.pttl(key)).toBeLessThanOrEqual(5_000);
  });

  it('a run sets a key’s expiry once, and again after anything that could have taken it away', async () => {
    const counter = keys.name('c', keys.tag('once'));
    const list = keys.name('l', keys.tag('once'));
    const text = keys.name('s', keys.tag('once'));
    const script = new Script(`
for _ = 1, 7 do redis.call('HINCRBY', KEYS[1], 'n', 1) end
redis.call('PEXPIRE', KEYS[1], 5)
redis.call('DEL', KEYS[1])
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('RPUSHX', KEYS[2], 'x')
redis.call('RPUSH', KEYS[2], 'y')
redis.call('SET', KEYS[3], 'a')
redis.call('PERSIST', KEYS[3])
redis.call('APPEND', KEYS[3], 'b')
return 1
`);
    const declared = [writes(counter, 60_000), writes(list, 60_000), writes(text, 60_000)];
    const run = () => script.run(redis, declared, []);
    if (isCluster(redis)) {
      await run();
    } else {
      // Counted on the server: the seven increments cost one PEXPIRE, the key recreated after DEL another, and
      // the script's own refresh of a key that already has its expiry none. RPUSHX on no list found nothing to
      // expire, so the RPUSH that created it is given its expiry again.
      const monitor = await target().newClient();
      const expiries: string[] = [];
      const watching = await (monitor as Redis).monitor();
      watching.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toUpperCase() === 'PEXPIRE') expiries.push(args[1] ?? '');
      });
      await run();
      // A command after the script, seen by the monitor once everything the script ran has been.
      const end = keys.name('end', keys.tag('once'));
      await redis.pexpire(end, 1000);
      await vi.waitFor(() => expect(expiries).toContain(end), { timeout: 30_000 });
      await watching.disconnect();
      monitor.disconnect();
      expect(expiries.filter((k) => k === counter)).toHaveLength(2);
      expect(expiries.filter((k) => k === list)).toHaveLength(2);
      expect(expiries.filter((k) => k === text)).toHaveLength(2);
    }
    // Whatever each command did to it, every key the run wrote ends with its declared expiry.
    for (const key of [counter, list, text]) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(5_000);
      expect(ttl, key).toBeLessThanOrEqual(60_000);
    }
    expect(await redis.hget(counter, 'n')).toBe('1');
    expect(await redis.lrange(list, 0, -1)).toEqual(['y']);
    expect(await redis.get(text)).toBe('ab');
  });

  it('a script that fails after a write leaves that key with its expiry (Redis keeps a failed script’s writes)', async () => {
    const first = keys.name('k', keys.tag('fail'));
    const text = keys.name('t', keys.tag('fail'));
    await redis.set(text, 'a string');
    const failing = new Script(`
redis.call('SET', KEYS[1], 'v')
redis.call('HINCRBY', KEYS[2], 'n', 1)
return 1
`);
    await expect(failing.run(redis, [writes(first, 60_000), writes(text, 60_000)], [])).rejects.toThrow(
      /WRONGTYPE/,
    );
    expect(await redis.get(first)).toBe('v');
    const ttl = await redis.pttl(first);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('every key a script writes has an expiry: each store, every script checked against Redis after it ran', async () => {
    const checked = { scripts: 0, keys: 0 };
    const client = await target().newClient();
    // After every script the stores run, every key in Redis must expire (the template catalogue, written by a
    // transaction and kept on purpose, is not among these stores).
    for (const method of ['evalsha', 'eval'] as const) {
      const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        const answer = await original(...args);
        checked.scripts++;
        for (const key of await target().keys('*')) {
          checked.keys++;
          const ttl = await redis.pttl(key);
          if (ttl <= 0) throw new MissingExpiry(`${key} has no expiry after a script (${ttl})`);
        }
        return answer;
      };
    }
    const dedup = new RedisIdempotencyStore({ redis: client });
    expect(await dedup.claim('e1', 1000)).toBe('claimed');
    expect(await dedup.renew('e1', 2000)).toBe(true);
    await dedup.release('e1');
    await dedup.claim('e2', 1000);
    await dedup.complete('e2');

    await new RedisTokenStore({ redis: client }).lock(async () => 'ok');

    const limiter = new RedisRateLimiter({ redis: client, name: 'kit', perSecond: 5 });
    (await limiter.acquire())();
    limiter.pause(1_000);
    const wa = KeySpace.for(redis, 'wa:');
    await expect.poll(() => redis.exists(wa.name('limit', wa.tag('kit'), 'pause'))).toBe(1);

    const statuses = new RedisStatusStore({
      redis: client,
      onChange: ({ current }) => {
        if (current.status === 'read') throw new Error('undo this one');
      },
    });
    await statuses.update(statusObject('delivered', { id: 'w1', pricing: { billable: true } as never }));
    await expect(statuses.update(statusObject('read', { id: 'w1' }))).rejects.toThrow('undo this one');

    const sessions = new RedisSessionStore({ redis: client });
    const lock = await sessions.lock('customer', 5_000);
    await lock.save?.({ step: 1 }, 60_000);
    await lock.release();
    await sessions.claim('reply-1', 60_000);
    await new RedisWindowStore({ redis: client }).recordInbound('customer', Date.now());

    const tracker = new CampaignTracker({ store: new RedisCampaignStore({ redis: client }) });
    const recorder = tracker.recorder('kit-campaign');
    await recorder.ready;
    await tracker.apply(statusObject('sent', { id: 'wamid.k2' })); // parked
    await tracker.record('kit-campaign', [
      { result: { index: 0, ok: true, messageId: 'wamid.k1', contacts: [] }, to: '998900000001' },
      { result: { index: 1, ok: true, messageId: 'wamid.k2', contacts: [] }, to: '998900000002' },
    ]);
    await tracker.apply(statusObject('delivered', { id: 'wamid.k1' }));
    await recorder.close();

    // Every store's scripts ran (and each check read every key).
    expect(checked.scripts).toBeGreaterThanOrEqual(15);
    expect(checked.keys).toBeGreaterThan(checked.scripts);
    // The check sees a key without an expiry: one written by hand makes the next script's check fail.
    await redis.set('wa:no-expiry', '1');
    await expect(new RedisWindowStore({ redis: client }).recordInbound('c', 1)).rejects.toMatchObject({
      causeName: 'MissingExpiry',
    });
  });
}
