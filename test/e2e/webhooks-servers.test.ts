/**
 * The webhook handlers on real sockets (127.0.0.1, port 0): node:http, Express 5 with and without a global
 * `express.json()`, and Hono on @hono/node-server through the Fetch handler. A small client plays the gateway,
 * including its retry schedule (attempt 1 at once, 2 after 1 s, 3 after 2 s on a connection error or 5xx; no retry
 * on 4xx).
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  messageEnvelope,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';

const SECRET = 'wh_e2e_secret_0123456789abcdefghijklm';
const FAIL_MARKER = 'please fail';
const FAIL_ONCE_MARKER = 'fail once';

interface Target {
  name: string;
  url: string;
  processed: Map<string, number>;
  close: () => Promise<void>;
}

/** What each server's handler logged, by its `processed` map: the tests assert it and take it out. */
const logsOf = new WeakMap<Map<string, number>, string[]>();

/** onEvent shared by every server: counts processing per idempotency key; fails on request. */
function options(processed: Map<string, number>): WebhookHandlerOptions {
  const failedOnce = new Set<string>();
  const logs: string[] = [];
  logsOf.set(processed, logs);
  return {
    secret: SECRET,
    logger: { warn: (m) => void logs.push(m), error: (m) => void logs.push(m) },
    onEvent: async (event: WebhookEvent) => {
      if (event.kind === 'message' && event.message.type === 'text') {
        const body = event.message.text.body;
        if (body === FAIL_MARKER) throw Object.assign(new Error('always failing'), { status: 422 });
        if (body === FAIL_ONCE_MARKER && !failedOnce.has(event.idempotencyKey)) {
          failedOnce.add(event.idempotencyKey);
          throw new Error('transient failure');
        }
      }
      // A little asynchronous work, as a real handler would do.
      await new Promise((resolve) => setImmediate(resolve));
      processed.set(event.idempotencyKey, (processed.get(event.idempotencyKey) ?? 0) + 1);
    },
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

async function nodeTarget(): Promise<Target> {
  const processed = new Map<string, number>();
  const server = http.createServer(createNodeWebhookHandler(options(processed)));
  return { name: 'node:http', url: `${await listen(server)}/`, processed, close: closer(server) };
}

async function expressTarget(withJson: boolean): Promise<Target> {
  const processed = new Map<string, number>();
  const app = express();
  if (withJson) app.use(express.json({ limit: '1mb' }));
  app.post('/webhooks/whatsapp', createNodeWebhookHandler(options(processed)));
  const server = http.createServer(app);
  const base = await listen(server);
  return {
    name: withJson ? 'express + express.json()' : 'express',
    url: `${base}/webhooks/whatsapp`,
    processed,
    close: closer(server),
  };
}

async function honoTarget(): Promise<Target> {
  const processed = new Map<string, number>();
  const handler = createWebhookHandler(options(processed));
  const app = new Hono();
  app.post('/webhooks/whatsapp', (c) => handler(c.req.raw));
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  return {
    name: 'hono (@hono/node-server)',
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/whatsapp`,
    processed,
    close: closer(server),
  };
}

// A bounded pool, as a real sender has: 1,000 deliveries in flight without 1,000 sockets per side.
const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });

/** One HTTP attempt. Resolves with the status, or `'connection_error'`; times out at the gateway's 5 s. */
function send(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number | 'connection_error'; text: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: 5000,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${SECRET}`,
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', () => resolve({ status: 'connection_error', text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 'connection_error', text: '' }));
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gateway's delivery: up to 3 attempts (0 s, +1 s, +2 s) on a connection error or 5xx; a 4xx is final. */
async function gatewayDeliver(url: string, body: string): Promise<(number | 'connection_error')[]> {
  const statuses: (number | 'connection_error')[] = [];
  for (const delay of [0, 1000, 2000]) {
    await sleep(delay);
    const { status } = await send(url, body);
    statuses.push(status);
    if (status !== 'connection_error' && status < 500) break;
  }
  return statuses;
}

const targets: Target[] = [];

beforeAll(async () => {
  targets.push(await nodeTarget(), await expressTarget(false), await expressTarget(true), await honoTarget());
});

afterAll(async () => {
  agent.destroy();
  await Promise.all(targets.map((t) => t.close()));
});

describe.each(['node:http', 'express', 'express + express.json()', 'hono (@hono/node-server)'])(
  '%s',
  (name) => {
    const target = () => targets.find((t) => t.name === name)!;
    /** The lines logged since the last call. */
    const logged = () => logsOf.get(target().processed)!.splice(0);

    it('200 for a valid delivery; 401 without or with a wrong Authorization; nothing processed for those', async () => {
      const msg = textMessage();
      const body = JSON.stringify(messageEnvelope(msg));
      expect(await send(target().url, body, { authorization: '' })).toMatchObject({ status: 401 });
      expect(await send(target().url, body, { authorization: `Bearer ${SECRET}x` })).toMatchObject({
        status: 401,
      });
      expect(await send(target().url, body, { authorization: `Basic ${SECRET}` })).toMatchObject({
        status: 401,
      });
      expect(target().processed.has(msg.id)).toBe(false);
      expect(logged()).toEqual([
        expect.stringMatching(/^Webhook request refused with 401: no Authorization header/),
        expect.stringMatching(
          /^Webhook request refused with 401: the Bearer token is not this handler's secret/,
        ),
        expect.stringMatching(
          /^Webhook request refused with 401: the Authorization header is not `Bearer <secret>`/,
        ),
      ]);
      const ok = await send(target().url, body);
      expect(ok).toEqual({ status: 200, text: '{"ok":true}' });
      expect(target().processed.get(msg.id)).toBe(1);
    });

    it('400 for malformed bodies', async () => {
      for (const body of ['{"entry": [', '[]', '{"entry":[{"changes":[{"field":"messages"}]}]}']) {
        const { status, text } = await send(target().url, body);
        expect(status, body).toBe(400);
        expect(text).not.toContain('entry');
      }
      // express.json() refuses the broken JSON itself, before the handler: two lines there, three elsewhere.
      const lines = logged();
      expect(lines.length).toBe(name === 'express + express.json()' ? 2 : 3);
      for (const line of lines)
        expect(line).toMatch(/^Webhook body refused with 400; the gateway will not retry it: /);
    });

    it("500 (never the error's own 422) when onEvent fails", async () => {
      const body = JSON.stringify(messageEnvelope(textMessage({ text: { body: FAIL_MARKER } })));
      const { status, text } = await send(target().url, body);
      expect(status).toBe(500);
      expect(text).not.toContain(FAIL_MARKER);
      expect(logged()).toEqual([expect.stringMatching(/^onEvent failed; answering 500/)]);
    });

    it('gateway retry schedule with a failing-once onEvent: processed exactly once in the end', async () => {
      const flaky = textMessage({ text: { body: FAIL_ONCE_MARKER } });
      const steady = statusObject('delivered');
      const body = JSON.stringify(messageEnvelope(flaky));
      const started = Date.now();
      const [attempts, statusAttempts] = await Promise.all([
        gatewayDeliver(target().url, body),
        gatewayDeliver(target().url, JSON.stringify(statusEnvelope(steady))),
      ]);
      expect(attempts).toEqual([500, 200]);
      expect(statusAttempts).toEqual([200]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(target().processed.get(flaky.id)).toBe(1);
      expect(target().processed.get(`${steady.id}:delivered`)).toBe(1);
      // A later duplicate delivery of the same event is acknowledged and not processed again.
      expect(await gatewayDeliver(target().url, body)).toEqual([200]);
      expect(target().processed.get(flaky.id)).toBe(1);
      expect(logged()).toEqual([expect.stringMatching(/^onEvent failed; answering 500/)]);
    });
  },
);

describe('load', () => {
  // Correctness under load, not speed: how fast each server answers is measured in bench/, not asserted here
  // (a busy CI machine makes any fixed bound flaky). Deliveries follow the gateway's retry schedule, as the real
  // one does, so a connection refused by a full accept backlog is retried rather than counted as lost.
  it('1,000 concurrent deliveries (100 of them duplicates) on each server: every one acknowledged, each event processed once', async () => {
    for (const target of targets) {
      const messages = Array.from({ length: 900 }, () => textMessage());
      const bodies = messages.map((m) => JSON.stringify(messageEnvelope(m)));
      const deliveries = [...bodies, ...bodies.slice(0, 100)];
      const before = target.processed.size;
      const finals = await Promise.all(
        deliveries.map(async (body) => (await gatewayDeliver(target.url, body)).at(-1)),
      );
      const statuses = new Map<string | number | undefined, number>();
      for (const status of finals) statuses.set(status, (statuses.get(status) ?? 0) + 1);
      expect(Object.fromEntries(statuses), target.name).toEqual({ 200: 1000 });
      expect(target.processed.size - before, target.name).toBe(900);
      for (const m of messages) expect(target.processed.get(m.id), target.name).toBe(1);
    }
    // 4,000 deliveries over four servers: a failure bound for a busy 2-core machine, not a speed claim.
  }, 120_000);
});
