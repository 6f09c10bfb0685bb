/**
 * Runs examples/many-instances against the sandbox and a real redis-server: the sender sends through the sandbox
 * under the shared rate limiter,
 * the sandbox delivers the receipts to the Express receiver, the receiver stores them in Redis, the worker takes
 * them from there into its tracker.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createReceiver } from '../../examples/many-instances/receiver.js';
import { sendAll } from '../../examples/many-instances/sender.js';
import { startWorker } from '../../examples/many-instances/worker.js';
import type { InboxHandlerControls, InboxWorker } from '../../src/redis/index.js';
import { type Sandbox, startSandbox, textMessage } from '../../src/testing/index.js';
import { type MessageEvent, StatusTracker } from '../../src/webhooks/index.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';

const SECRET = 'many-instances-secret-0123456789abcdef';

describeRedis('examples/many-instances (sandbox + real redis-server)', () => {
  let redis: RedisServer;
  let server: Server;
  let inbox: InboxHandlerControls;
  let worker: InboxWorker;
  let sandbox: Sandbox;
  const tracker = new StatusTracker();
  const messages: MessageEvent[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const receiver = createReceiver({ redisUrl: redis.url, secret: SECRET });
    inbox = receiver.inbox;
    await inbox.ready();
    server = await new Promise<Server>((resolve) => {
      const s = receiver.app.listen(0, '127.0.0.1', () => resolve(s));
    });
    worker = startWorker({ redisUrl: redis.url, tracker, onMessage: (event) => void messages.push(event) });
    await worker.ready();
    sandbox = await startSandbox({
      webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      webhookSecret: SECRET,
      statusDelaysMs: [10, 30, 50],
    });
  });
  afterAll(async () => {
    await sandbox?.close();
    await new Promise((resolve) => {
      server?.closeAllConnections();
      server?.close(resolve);
    });
    await inbox?.close();
    await worker?.close();
    await redis?.dispose();
  });

  it('tracks every message sent by the sender up to read, through the receiver, Redis and the worker', async () => {
    const to = ['998901234567', '998901234568', '998901234569'];
    const ids = await sendAll({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, redisUrl: redis.url, to });
    expect(ids).toHaveLength(to.length);
    await sandbox.idle();
    expect(sandbox.deliveries).toHaveLength(to.length * 3);
    expect(sandbox.deliveries.every((d) => d.status === 200)).toBe(true);
    await vi.waitFor(
      () => {
        for (const id of ids) expect(tracker.get(id)).toMatchObject({ status: 'read', delivered: true });
      },
      { timeout: 15_000, interval: 20 },
    );
    // BullMQ records a completion after the processor returns, a moment after the tracker saw the event.
    await vi.waitFor(
      async () => expect(await worker.counts()).toMatchObject({ completed: to.length * 3, failed: 0 }),
      { timeout: 15_000, interval: 20 },
    );
    // The sends went through the shared limiter: its slots live in the same Redis.
    const probe = new Redis(redis.url);
    try {
      expect(await probe.exists('wa:limit:gateway:slots')).toBe(1);
    } finally {
      probe.disconnect();
    }
  });

  it('hands an incoming message to the worker once, even when the gateway delivers it twice', async () => {
    const message = textMessage({ text: { body: 'where is my order?' } });
    expect((await sandbox.injectMessage(message)).map((a) => a.status)).toEqual([200]);
    expect((await sandbox.injectMessage(message)).map((a) => a.status)).toEqual([200]);
    await vi.waitFor(() => expect(messages.map((m) => m.message.id)).toContain(message.id), {
      timeout: 15_000,
      interval: 20,
    });
    // The job stays active until its processor returns, just after it recorded the message.
    await vi.waitFor(
      async () => {
        const counts = await worker.counts();
        expect(counts.waiting + counts.active).toBe(0);
      },
      { timeout: 15_000, interval: 20 },
    );
    expect(messages.filter((m) => m.message.id === message.id)).toHaveLength(1);
  });
});
