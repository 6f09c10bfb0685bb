/**
 * The claim lease is short (it must end before the gateway's next attempt, 1 s after a failed one) and renewed
 * while `onEvent` runs, so a live holder keeps its claim and a dead one loses it in time.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deliverWebhook } from '../../src/testing/index.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  MemoryIdempotencyStore,
} from '../../src/webhooks/index.js';

const secret = 'claim-lease-secret-0123456789abcdef';
const LEASE = 800;

function request(id: string): Request {
  return new Request('https://hook.test/', {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    body: JSON.stringify(statusEnvelope(statusObject('read', { id }))),
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('claim leases', () => {
  it('MemoryIdempotencyStore.renew extends an in-progress claim only', () => {
    vi.useFakeTimers();
    const store = new MemoryIdempotencyStore();
    expect(store.renew('free', LEASE)).toBe(false);
    store.claim('k', LEASE);
    vi.advanceTimersByTime(LEASE - 1);
    expect(store.renew('k', LEASE)).toBe(true);
    vi.advanceTimersByTime(LEASE - 1);
    expect(store.peek('k')).toBe('in_progress'); // 2 leases after the claim, held thanks to the renewal
    vi.advanceTimersByTime(1);
    expect(store.peek('k')).toBeUndefined();
    expect(store.renew('k', LEASE)).toBe(false); // expired: not revived
    store.claim('d', LEASE);
    store.complete('d', 60_000);
    expect(store.renew('d', LEASE)).toBe(false);
  });

  it('a live holder keeps its claim for 3 leases: a concurrent duplicate on another instance is answered 503', async () => {
    vi.useFakeTimers();
    const store = new MemoryIdempotencyStore();
    let release!: () => void;
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    const a = createWebhookHandler({
      secret,
      logger: false,
      dedupe: store,
      claimLeaseMs: LEASE,
      onEvent: () => holding,
    });
    let runsOnB = 0;
    const b = createWebhookHandler({
      secret,
      logger: false,
      dedupe: store,
      claimLeaseMs: LEASE,
      onEvent: () => void runsOnB++,
    });
    const first = a(request('wamid.live'));
    await vi.advanceTimersByTimeAsync(3 * LEASE);
    const duplicate = await b(request('wamid.live'));
    expect(duplicate.status).toBe(503);
    expect(await duplicate.json()).toEqual({ ok: false, error: 'in_progress' });
    release();
    expect((await first).status).toBe(200);
    expect(runsOnB).toBe(0);
  });

  it('a failed release: the claim ends within the lease and the next attempt (1 s later) processes the event', async () => {
    let releaseFails = true;
    class FlakyStore extends MemoryIdempotencyStore {
      override release(key: string): void {
        if (releaseFails) {
          releaseFails = false;
          throw new Error('ECONNRESET');
        }
        super.release(key);
      }
    }
    const logged: string[] = [];
    let runs = 0;
    const handler = createNodeWebhookHandler({
      secret,
      logger: { error: (message) => void logged.push(message) },
      dedupe: new FlakyStore(),
      onEvent: () => {
        runs++;
        if (runs === 1) throw new Error('db down');
      },
    });
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const body = JSON.stringify(statusEnvelope(statusObject('delivered', { id: 'wamid.release' })));
      const attempts = await deliverWebhook(body, { url: `http://127.0.0.1:${port}/`, secret });
      expect(attempts.map((x) => x.status)).toEqual([500, 200]);
      expect(runs).toBe(2);
      expect(logged.find((m) => m.includes('failed to release'))).toMatch(
        /ends within claimLeaseMs \(800 ms\)/,
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
