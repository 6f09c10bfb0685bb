/**
 * A status change stands only if `onChange` succeeds: when it fails, the handler answers 500 and the gateway's
 * retry finds the change again, so `onChange` runs again and the application's store gets the write.
 */
import { describe, expect, it } from 'vitest';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, StatusTracker, type TrackedStatus } from '../../src/webhooks/index.js';

const secret = 'status-onchange-secret-0123456789abc';

function delivery(id: string, status = 'delivered'): () => Request {
  const body = JSON.stringify(statusEnvelope(statusObject(status, { id })));
  return () =>
    new Request('https://hook.test/', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      body,
    });
}

describe('StatusTracker: onChange decides whether a change stands', () => {
  it('a synchronous onChange that throws once: the retry calls it again and the app store gets the write', async () => {
    const db = new Map<string, string>();
    let fail = true;
    const tracker = new StatusTracker({
      onChange: ({ current }) => {
        if (fail) {
          fail = false;
          throw new Error('db down');
        }
        db.set(current.wamid, current.status);
      },
    });
    const handler = createWebhookHandler({
      secret,
      logger: false,
      onEvent: (e) => {
        if (e.kind === 'status') tracker.update(e);
      },
    });
    const post = delivery('wamid.sync');
    expect((await handler(post())).status).toBe(500);
    expect(tracker.get('wamid.sync')).toBeUndefined(); // undone
    expect(tracker.billableCount).toBe(0);
    expect((await handler(post())).status).toBe(200); // the gateway's retry
    expect(db.get('wamid.sync')).toBe('delivered');
    expect(tracker.get('wamid.sync')?.status).toBe('delivered');
    expect(tracker.billableCount).toBe(1);
  });

  it('an async onChange that rejects once: update rejects, and the retry writes', async () => {
    const db = new Map<string, string>();
    let fail = true;
    const tracker = new StatusTracker({
      onChange: async ({ current }) => {
        await Promise.resolve();
        if (fail) {
          fail = false;
          throw new Error('db down');
        }
        db.set(current.wamid, current.status);
      },
    });
    const handler = createWebhookHandler({
      secret,
      logger: false,
      onEvent: async (e) => {
        if (e.kind === 'status') await tracker.update(e);
      },
    });
    const post = delivery('wamid.async');
    expect((await handler(post())).status).toBe(500);
    expect((await handler(post())).status).toBe(200);
    expect(db.get('wamid.async')).toBe('delivered');
  });

  it('a failed onChange does not undo a later update that already built on its change', async () => {
    let release!: (error?: Error) => void;
    const seen: TrackedStatus[] = [];
    const tracker = new StatusTracker({
      onChange: ({ current }) => {
        seen.push(current);
        if (current.status !== 'delivered') return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          release = (error) => (error ? reject(error) : resolve());
        });
      },
    });
    const delivered = tracker.update(statusObject('delivered', { id: 'wamid.race' }));
    await tracker.update(statusObject('read', { id: 'wamid.race' }));
    release(new Error('db down'));
    await expect(delivered).rejects.toThrow('db down');
    expect(tracker.get('wamid.race')?.status).toBe('read'); // the later state stays
    expect(seen.map((s) => s.status)).toEqual(['delivered', 'read']);
  });

  it.each(['sent', 'delivered'])(
    'a %s applied while onChange ran (a late event, a duplicate) does not make the failed change stand',
    async (between) => {
      const id = `wamid.between-${between}`;
      let release!: () => void;
      let fail = true;
      const db: string[] = [];
      const tracker = new StatusTracker({
        onChange: ({ current }) => {
          if (!fail) {
            db.push(current.status);
            return Promise.resolve();
          }
          fail = false;
          return new Promise<void>((_, reject) => {
            release = () => reject(new Error('db down'));
          });
        },
      });
      const first = tracker.update(statusObject('delivered', { id }));
      expect((await tracker.update(statusObject(between, { id }))).changed).toBe(false);
      release();
      await expect(first).rejects.toThrow('db down');
      // The gateway's retry of the failed delivery: the change is found again and announced.
      expect((await tracker.update(statusObject('delivered', { id }))).changed).toBe(true);
      expect(db).toEqual(['delivered']);
      expect(tracker.billableCount).toBe(1);
    },
  );
});
