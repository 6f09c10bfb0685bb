import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisIdempotencyStore, type RedisLike } from '../../examples/redis-idempotency-store.js';
import { messageEnvelope, textMessage } from '../../src/webhooks/fixtures.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';

/** SET NX PX / GET / DEL with expiry, the way Redis answers them. */
class FakeRedis implements RedisLike {
  private readonly data = new Map<string, { value: string; expiresAt: number }>();
  private live(key: string) {
    const slot = this.data.get(key);
    if (slot && slot.expiresAt <= Date.now()) this.data.delete(key);
    return this.data.get(key);
  }
  async set(key: string, value: string, options: { NX?: true; PX: number }): Promise<string | null> {
    if (options.NX && this.live(key)) return null;
    this.data.set(key, { value, expiresAt: Date.now() + options.PX });
    return 'OK';
  }
  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }
  async del(key: string): Promise<number> {
    return this.data.delete(key) ? 1 : 0;
  }
}

describe('examples/redis-idempotency-store', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('claim, complete, release and lease expiry follow the store contract', async () => {
    const store = new RedisIdempotencyStore(new FakeRedis(), { leaseMs: 1000 });
    expect(await store.claim('k', 60_000)).toBe('claimed');
    expect(await store.claim('k', 60_000)).toBe('in_progress');
    await store.release('k');
    expect(await store.claim('k', 60_000)).toBe('claimed');
    await store.complete('k', 60_000);
    expect(await store.claim('k', 60_000)).toBe('done');
    // A crashed worker's claim frees itself after the lease.
    expect(await store.claim('crashed', 60_000)).toBe('claimed');
    vi.advanceTimersByTime(1000);
    expect(await store.claim('crashed', 60_000)).toBe('claimed');
  });

  it('dedupes across two handler instances sharing one Redis (two processes)', async () => {
    const redis = new FakeRedis();
    const calls: string[] = [];
    const make = () =>
      createWebhookHandler({
        secret: 'wh_shared_secret_0123456789abcdefghij',
        dedupe: new RedisIdempotencyStore(redis),
        onEvent: (event) => {
          calls.push(event.idempotencyKey);
        },
      });
    const [a, b] = [make(), make()];
    const body = JSON.stringify(messageEnvelope(textMessage()));
    const request = () =>
      new Request('https://x.test/', {
        method: 'POST',
        headers: { authorization: 'Bearer wh_shared_secret_0123456789abcdefghij' },
        body,
      });
    expect((await a(request())).status).toBe(200);
    expect((await b(request())).status).toBe(200);
    expect(calls).toHaveLength(1);
  });
});
