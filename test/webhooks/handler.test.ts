import { describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import {
  buttonReplyMessage,
  change,
  entry,
  envelope,
  messageEnvelope,
  messagesChange,
  statusEnvelope,
  statusObject,
  textMessage,
  unknownTypeMessage,
} from '../../src/testing/webhook-fixtures.js';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  signUpstreamBody,
  type WebhookEvent,
  type WebhookEventContext,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { configurationMessage } from '../helpers/configuration-message.js';

const SECRET = 'wh_test_secret_0123456789abcdefghijkl';
const URL_ = 'https://app.example.test/webhooks/whatsapp';

function post(
  body: BodyInit | null,
  init: { auth?: string | null; headers?: Record<string, string> } = {},
): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
  const auth = init.auth === undefined ? `Bearer ${SECRET}` : init.auth;
  if (auth !== null) headers['authorization'] = auth;
  return new Request(URL_, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function recorder(options: Partial<WebhookHandlerOptions> = {}) {
  const seen: WebhookEvent[] = [];
  const contexts: WebhookEventContext[] = [];
  const logs: { level: string; message: string; meta: unknown }[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    onEvent: (event, ctx) => {
      seen.push(event);
      contexts.push(ctx);
    },
    logger: {
      warn: (message, meta) => logs.push({ level: 'warn', message, meta }),
      error: (message, meta) => logs.push({ level: 'error', message, meta }),
    },
    ...options,
  });
  return { handler, seen, contexts, logs };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The log lines the SDK writes for a failing onEvent and a passed deadline (asserted, never printed). */
const FAILED = expect.stringMatching(/^onEvent failed; answering 500 so the gateway retries the delivery/);
const DEADLINE = 'Webhook deadline passed before processing finished; answering 503 so the gateway retries';
const messages = (logs: { message: string }[]) => logs.map((l) => l.message);

describe('createWebhookHandler: status codes', () => {
  it('200 with every event handed to onEvent, sequentially, in document order', async () => {
    const m1 = textMessage();
    const m2 = buttonReplyMessage();
    const s1 = statusObject('delivered');
    const { handler, seen, contexts } = recorder();
    const body = envelope([
      entry([messagesChange({ messages: [m1, m2] }), messagesChange({ statuses: [s1] })]),
    ]);
    const res = await handler(post(json(body)));
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"ok":true}');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(seen.map((e) => e.idempotencyKey)).toEqual([m1.id, m2.id, `${s1.id}:delivered`]);
    expect(contexts.map((c) => [c.index, c.count])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
  });

  it('runs onEvent calls one after another, never overlapping', async () => {
    let running = 0;
    let maxRunning = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      onEvent: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(5);
        running--;
      },
    });
    const res = await handler(post(json(messageEnvelope([textMessage(), textMessage(), textMessage()]))));
    expect(res.status).toBe(200);
    expect(maxRunning).toBe(1);
  });

  it('405 for anything but POST, with Allow', async () => {
    const { handler, seen } = recorder();
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD']) {
      const res = await handler(
        new Request(URL_, { method, headers: { authorization: `Bearer ${SECRET}` } }),
      );
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    expect(seen).toHaveLength(0);
  });

  it('401 for a missing, wrong or malformed Authorization, before reading the body', async () => {
    const { handler, seen } = recorder();
    const cases: [string | null, string][] = [
      [null, 'authorization_missing'],
      [`Bearer ${SECRET}x`, 'authorization_mismatch'],
      [`Basic ${SECRET}`, 'authorization_malformed'],
      [SECRET, 'authorization_malformed'],
      ['Bearer', 'authorization_malformed'],
    ];
    for (const [auth, reason] of cases) {
      let pulled = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(new TextEncoder().encode(json(messageEnvelope(textMessage()))));
          controller.close();
        },
      });
      const request = post(stream, { auth });
      const res = await handler(request);
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.text()).toBe(`{"ok":false,"error":"${reason}"}`);
      expect(request.bodyUsed).toBe(false);
      expect(pulled).toBeLessThanOrEqual(1); // a stream may prefetch one chunk on creation, never read to the end
    }
    expect(seen).toHaveLength(0);
  });

  it('says in its log line whether the header was missing, malformed or another secret, and what to do', async () => {
    const { handler, logs } = recorder();
    const body = json(messageEnvelope(textMessage()));
    await handler(post(body, { auth: null }));
    await handler(post(body, { auth: SECRET }));
    await handler(post(body, { auth: 'Bearer wh_other_secret_0123456789abcdefghijkl' }));
    expect(logs.map((l) => (l.meta as { reason: string }).reason)).toEqual([
      'authorization_missing',
      'authorization_malformed',
      'authorization_mismatch',
    ]);
    const [missing, malformed, mismatch] = logs.map((l) => l.message);
    expect(missing).toMatch(/no Authorization header.*Bearer <WEBHOOK_SECRET>.*set the webhook secret/);
    expect(malformed).toMatch(/not `Bearer <secret>`.*must send `Authorization: Bearer <WEBHOOK_SECRET>`/);
    expect(mismatch).toMatch(
      /not this handler's secret.*same WEBHOOK_SECRET.*secret: \[newSecret, oldSecret\]/,
    );
    expect(JSON.stringify(logs)).not.toContain(SECRET);
    expect(JSON.stringify(logs)).not.toContain('wh_other_secret');
  });

  it('accepts every secret of a rotation', async () => {
    const other = 'wh_next_secret_abcdefghijklmnopqrstuvwxyz';
    const { handler } = recorder({ secret: [SECRET, other] });
    expect(
      (await handler(post(json(messageEnvelope(textMessage())), { auth: `Bearer ${other}` }))).status,
    ).toBe(200);
    expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(200);
  });

  it('413 for a declared or streamed body over maxBodyBytes', async () => {
    const { handler, seen } = recorder({ maxBodyBytes: 1000 });
    const big = json(messageEnvelope(textMessage({ text: { body: 'x'.repeat(2000) } })));
    expect((await handler(post(big))).status).toBe(413);
    const chunk = new TextEncoder().encode(big.slice(0, 600));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent++;
        if (sent > 10) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await handler(post(stream));
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(10);
    expect(seen).toHaveLength(0);
    expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(200);
  });

  it('400 for a body that is not an envelope; the log names the location only', async () => {
    const { handler, seen, logs } = recorder();
    for (const body of [
      '{not json',
      '',
      '[]',
      '{"entry":{}}',
      '{"entry":[{"changes":[{"field":"messages"}]}]}',
    ]) {
      const res = await handler(post(body));
      expect(res.status, body).toBe(400);
      expect(await res.text()).toBe('{"ok":false,"error":"invalid_body"}');
    }
    expect(seen).toHaveLength(0);
    expect(logs.at(-1)).toMatchObject({
      level: 'error',
      meta: { status: 400, path: ['entry', 0, 'changes', 0, 'value'] },
    });
  });

  it('200 for unknown message types and unknown change fields, which still reach onEvent', async () => {
    const { handler, seen } = recorder();
    const body = envelope([
      entry([messagesChange({ messages: [unknownTypeMessage('poll')] }), change('new_thing', { a: 1 })]),
    ]);
    const res = await handler(post(json(body)));
    expect(res.status).toBe(200);
    expect(seen.map((e) => e.kind)).toEqual(['message', 'unknown']);
  });

  it('200 for a duplicate delivery, without running onEvent again', async () => {
    const { handler, seen } = recorder();
    const body = json(statusEnvelope([statusObject('sent'), statusObject('read')]));
    expect((await handler(post(body))).status).toBe(200);
    expect((await handler(post(body))).status).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it('reads a Request body only once and answers 500 when it was already consumed', async () => {
    const { handler, logs } = recorder();
    const request = post(json(messageEnvelope(textMessage())));
    await request.text();
    const res = await handler(request);
    expect(res.status).toBe(500);
    // The log line says what to do, as the Node handler's does.
    expect(messages(logs)).toEqual([
      expect.stringContaining('pass the Request (or `request.clone()`) to the handler first'),
    ]);
  });
});

describe('createWebhookHandler: failures and retries', () => {
  it('onEvent failure → 500; its claim is released; the retry processes it once and skips what succeeded', async () => {
    const [m1, m2, m3] = [textMessage(), textMessage(), textMessage()];
    const calls: string[] = [];
    let failOnce = true;
    const { handler, logs } = recorder({
      onEvent: (event) => {
        calls.push(event.idempotencyKey);
        if (event.idempotencyKey === m2.id && failOnce) {
          failOnce = false;
          throw new Error('database unavailable');
        }
      },
    });
    const body = json(messageEnvelope([m1, m2, m3]));
    const first = await handler(post(body));
    expect(first.status).toBe(500);
    expect(await first.text()).toBe('{"ok":false,"error":"processing_failed"}');
    expect(calls).toEqual([m1.id, m2.id, m3.id]);
    const retry = await handler(post(body));
    expect(retry.status).toBe(200);
    expect(calls).toEqual([m1.id, m2.id, m3.id, m2.id]);
    expect((await handler(post(body))).status).toBe(200);
    expect(calls).toHaveLength(4);
    expect(messages(logs)).toEqual([FAILED]);
  });

  it("never passes a thrown error's own status through (a 422 would drop the event for good)", async () => {
    for (const error of [
      Object.assign(new Error('validation'), { status: 422 }),
      Object.assign(new Error('bad'), { statusCode: 400 }),
      { status: 404, message: 'not an Error at all' },
      'a string',
    ]) {
      const { handler, logs } = recorder({
        onEvent: () => {
          throw error;
        },
      });
      const res = await handler(post(json(messageEnvelope(textMessage()))));
      expect(res.status).toBe(500);
      expect(messages(logs)).toEqual([FAILED]);
    }
    const rejecting = recorder({
      onEvent: async () => Promise.reject(Object.assign(new Error('x'), { status: 409 })),
    });
    expect((await rejecting.handler(post(json(messageEnvelope(textMessage()))))).status).toBe(500);
    expect(messages(rejecting.logs)).toEqual([FAILED]);
  });

  it('with dedupe off, a retry runs every event again', async () => {
    let calls = 0;
    let fail = true;
    const { handler, logs } = recorder({
      dedupe: false,
      onEvent: () => {
        calls++;
        if (fail) {
          fail = false;
          throw new Error('once');
        }
      },
    });
    const body = json(messageEnvelope([textMessage(), textMessage()]));
    expect((await handler(post(body))).status).toBe(500);
    expect((await handler(post(body))).status).toBe(200);
    expect(calls).toBe(4);
    expect(messages(logs)).toEqual([FAILED]);
  });

  it('a dedupeKey returning null runs that event without dedupe', async () => {
    const { handler, seen } = recorder({ dedupeKey: (e) => (e.kind === 'status' ? null : e.idempotencyKey) });
    const body = json(
      envelope([entry([messagesChange({ messages: [textMessage()], statuses: [statusObject('read')] })])]),
    );
    await handler(post(body));
    await handler(post(body));
    expect(seen.map((e) => e.kind)).toEqual(['message', 'status', 'status']);
  });

  it('an async dedupeKey is awaited: a key that needs a lookup dedupes as a plain one', async () => {
    const { handler, seen } = recorder({ dedupeKey: async (e) => `looked-up:${e.idempotencyKey}` });
    const body = json(messageEnvelope(textMessage()));
    expect((await handler(post(body))).status).toBe(200);
    expect((await handler(post(body))).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it.each([
    ['rejects', async () => Promise.reject(new Error('lookup failed'))],
    ['answers a number', () => 42],
    ['answers an object', () => ({ key: 'k' })],
  ])(
    'a dedupeKey that %s fails the event (500, onError) instead of running it without its dedupe',
    async (_, key) => {
      const errors: unknown[] = [];
      const { handler, seen } = recorder({
        dedupeKey: key as unknown as WebhookHandlerOptions['dedupeKey'],
        onError: (error) => void errors.push(error),
      });
      expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(500);
      expect(seen).toHaveLength(0);
      expect(errors).toHaveLength(1);
    },
  );

  it("store failures: a failed claim answers 500 (onStoreUnavailable: 'fail'); a failed complete still answers 200", async () => {
    const failingClaim: IdempotencyStore = {
      claim: () => Promise.reject(new Error('redis down')),
      release: () => undefined,
    };
    const a = recorder({ dedupe: failingClaim, onStoreUnavailable: 'fail' });
    expect((await a.handler(post(json(messageEnvelope(textMessage()))))).status).toBe(500);
    expect(a.seen).toHaveLength(0);
    const failingComplete: IdempotencyStore = {
      claim: () => true,
      complete: () => {
        throw new Error('write failed');
      },
      release: () => undefined,
    };
    const b = recorder({ dedupe: failingComplete });
    expect((await b.handler(post(json(messageEnvelope(textMessage()))))).status).toBe(200);
    expect(b.seen).toHaveLength(1);
  });

  it('a boolean store works: false is treated as already done', async () => {
    const keys = new Set<string>();
    const store: IdempotencyStore = {
      claim: (key) => {
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      },
      release: (key) => {
        keys.delete(key);
      },
    };
    const { handler, seen } = recorder({ dedupe: store });
    const body = json(messageEnvelope(textMessage()));
    await handler(post(body));
    await handler(post(body));
    expect(seen).toHaveLength(1);
  });

  it('concurrent deliveries of one event in one process: processed once, both answered 200 (slow store)', async () => {
    const inner = new MemoryIdempotencyStore();
    const slowStore: IdempotencyStore = {
      claim: async (key, ttl) => {
        await sleep(20);
        return inner.claim(key, ttl);
      },
      complete: (key, ttl) => inner.complete(key, ttl),
      release: (key) => inner.release(key),
    };
    let calls = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      dedupe: slowStore,
      onEvent: async () => {
        calls++;
        await sleep(20);
      },
    });
    const body = json(messageEnvelope(textMessage()));
    const statuses = await Promise.all([1, 2, 3].map(() => handler(post(body)).then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200]);
    expect(calls).toBe(1);
  });

  it('an event held in progress by another process answers 503 so the gateway comes back', async () => {
    const store = new MemoryIdempotencyStore();
    const msg = textMessage();
    store.claim(msg.id, 60_000);
    const { handler, seen } = recorder({ dedupe: store });
    const res = await handler(post(json(messageEnvelope(msg))));
    expect(res.status).toBe(503);
    expect(seen).toHaveLength(0);
    store.complete(msg.id, 60_000);
    expect((await handler(post(json(messageEnvelope(msg))))).status).toBe(200);
    expect(seen).toHaveLength(0);
  });

  it('onError receives the failure with its stage and event', async () => {
    const onError = vi.fn();
    const boom = new Error('boom');
    const { handler, logs } = recorder({
      onError,
      onEvent: () => {
        throw boom;
      },
    });
    await handler(post(json(messageEnvelope(textMessage()))));
    await handler(post('{bad'));
    // With onError set, the log line needs no advice about how to see the error.
    expect(logs.map((l) => l.message)).toEqual([
      'onEvent failed; answering 500 so the gateway retries the delivery',
      'Webhook body refused with 400; the gateway will not retry it: Webhook body is not valid JSON',
    ]);
    expect(onError).toHaveBeenCalledTimes(2);
    expect(onError.mock.calls[0]?.[0]).toBe(boom);
    expect(onError.mock.calls[0]?.[1]).toMatchObject({
      stage: 'onEvent',
      index: 0,
      event: { kind: 'message' },
    });
    expect(onError.mock.calls[1]?.[1]).toMatchObject({ stage: 'parse' });
  });
});

describe('createWebhookHandler: an onEvent failure without onError', () => {
  it('the log line points at onError and shows how to see the error', async () => {
    const { handler, logs } = recorder({
      onEvent: () => {
        throw new Error('private detail');
      },
    });
    expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(500);
    expect(logs).toEqual([
      {
        level: 'error',
        message:
          'onEvent failed; answering 500 so the gateway retries the delivery. The error is not logged (it may ' +
          'hold your data): to see it, pass `onError: (error, info) => console.error(info.stage, error)`',
        meta: { kind: 'message', type: 'text', index: 0, errorName: 'Error' },
      },
    ]);
  });
});

describe('createWebhookHandler: the deadline', () => {
  it('answers 503 at the deadline, aborts ctx.signal, starts no further event, hands the rest to waitUntil', async () => {
    const started: string[] = [];
    const finished: string[] = [];
    const kept: Promise<unknown>[] = [];
    let signal: AbortSignal | undefined;
    const [m1, m2] = [textMessage(), textMessage()];
    const store = new MemoryIdempotencyStore();
    // onEvent finishes only when the test says so: an answer that waited for it would never come (the test
    // would time out), whatever the machine's speed. No elapsed-time bound needed.
    let release: () => void = () => {};
    const { handler, logs } = recorder({
      deadlineMs: 100,
      dedupe: store,
      waitUntil: (p) => kept.push(p),
      onEvent: async (event, ctx) => {
        started.push(event.idempotencyKey);
        signal = ctx.signal;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        finished.push(event.idempotencyKey);
      },
    });
    const res = await handler(post(json(messageEnvelope([m1, m2]))));
    expect(res.status).toBe(503);
    expect(await res.text()).toBe('{"ok":false,"error":"deadline_exceeded"}');
    expect(signal?.aborted).toBe(true);
    expect(kept).toHaveLength(1);
    release();
    await kept[0];
    expect(started).toEqual([m1.id]);
    expect(finished).toEqual([m1.id]);
    expect(store.peek(m1.id)).toBe('done');
    expect(store.peek(m2.id)).toBeUndefined();
    // The gateway's retry: m1 is done, m2 runs now (and is again held past the deadline).
    const retry = await handler(post(json(messageEnvelope([m1, m2]))));
    expect(retry.status).toBe(503);
    release();
    await kept[1];
    expect(started).toEqual([m1.id, m2.id]);
    expect(store.peek(m2.id)).toBe('done');
    expect(messages(logs)).toEqual([DEADLINE, DEADLINE]);
  });

  it('a retry arriving while the timed-out run is still going waits for it instead of running it twice', async () => {
    let calls = 0;
    const { handler, logs } = recorder({
      deadlineMs: 150,
      onEvent: async () => {
        calls++;
        await sleep(200);
      },
    });
    const body = json(messageEnvelope(textMessage()));
    expect((await handler(post(body))).status).toBe(503);
    const retry = await handler(post(body));
    expect(retry.status).toBe(200);
    expect(calls).toBe(1);
    expect(messages(logs)).toEqual([DEADLINE]);
  });

  it('a retry that finds the timed-out run failing takes the event over', async () => {
    let calls = 0;
    const { handler, logs } = recorder({
      deadlineMs: 100,
      onEvent: async () => {
        calls++;
        if (calls === 1) {
          await sleep(150);
          throw new Error('slow failure');
        }
      },
    });
    const body = json(messageEnvelope(textMessage()));
    expect((await handler(post(body))).status).toBe(503);
    const retry = await handler(post(body));
    expect(retry.status).toBe(200);
    expect(calls).toBe(2);
    expect(messages(logs)).toEqual([DEADLINE, FAILED]);
  });

  it('an event still running for another delivery is waited for after the events behind it: a slow one holds none back', async () => {
    const [a, b, c] = [textMessage(), textMessage(), textMessage()];
    const ran: string[] = [];
    let releaseA: () => void = () => {};
    const aHeld = new Promise<void>((resolve) => {
      releaseA = resolve;
    });
    let aRunning: () => void = () => {};
    const aIsRunning = new Promise<void>((resolve) => {
      aRunning = resolve;
    });
    let cRan: () => void = () => {};
    const cHasRun = new Promise<void>((resolve) => {
      cRan = resolve;
    });
    const { handler } = recorder({
      dedupe: new MemoryIdempotencyStore(),
      onEvent: async (event) => {
        ran.push(event.idempotencyKey);
        if (event.idempotencyKey === a.id) {
          aRunning();
          await aHeld;
        }
        if (event.idempotencyKey === c.id) cRan();
      },
    });
    const body = json(messageEnvelope([a, b, c]));
    // The first delivery is held on A; a second one (the gateway's retry, or a duplicate) arrives meanwhile.
    const first = handler(post(body));
    await aIsRunning;
    const second = handler(post(body));
    // B and C run for the second delivery while A is still running: waiting for A first would spend the
    // second's deadline on it (4 s by default) and end it with 503 before B and C ever ran.
    const before = await Promise.race([cHasRun.then(() => 'C ran'), second.then((r) => `ended ${r.status}`)]);
    expect(before).toBe('C ran');
    expect(ran).toEqual([a.id, b.id, c.id]);
    releaseA();
    expect((await second).status).toBe(200); // A waited for once the rest was done: a duplicate for this one
    expect((await first).status).toBe(200); // B and C: duplicates for the first
    expect(ran).toEqual([a.id, b.id, c.id]);
  });

  it('at the deadline, the log line and onError say which event held the delivery and how many finished', async () => {
    const [a, b, c] = [textMessage(), textMessage(), textMessage()];
    const reports: { name: string; stage: string; index: number | undefined }[] = [];
    let release: () => void = () => {};
    const kept: Promise<unknown>[] = [];
    const { handler, logs } = recorder({
      deadlineMs: 50,
      waitUntil: (p) => kept.push(p),
      onEvent: async (event) => {
        if (event.idempotencyKey === b.id) {
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
      },
      onError: (error, info) =>
        void reports.push({ name: (error as Error).name, stage: info.stage, index: info.index }),
    });
    const res = await handler(post(json(messageEnvelope([a, b, c]))));
    expect(res.status).toBe(503);
    expect(logs).toEqual([
      {
        level: 'warn',
        message: DEADLINE,
        meta: { status: 503, deadlineMs: 50, events: 3, finished: 1, runningEvent: 1 },
      },
    ]);
    expect(reports).toEqual([{ name: 'WaGatewayError', stage: 'deadline', index: 1 }]);
    release();
    await kept[0];
  });

  it('an async waitUntil that rejects does not end the process (its rejection is handled)', async () => {
    let release: () => void = () => {};
    let handed: Promise<unknown> | undefined;
    const { handler } = recorder({
      deadlineMs: 50,
      // A wrapper of yours (a remote log, say) that fails: the rejection must not be left unhandled.
      waitUntil: async (p) => {
        handed = p;
        throw new Error('remote log down');
      },
      onEvent: () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    });
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(503);
      expect(handed).toBeDefined();
      release();
      await handed;
      // Unhandled rejections are reported after the microtask queue drains: one macrotask later.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', note);
    }
  });

  it('prefers the per-request waitUntil (Workers ctx) over the option', async () => {
    const fromOption = vi.fn();
    const ctx = {
      kept: [] as Promise<unknown>[],
      waitUntil(p: Promise<unknown>) {
        this.kept.push(p);
      },
    };
    const { handler, logs } = recorder({
      deadlineMs: 50,
      waitUntil: fromOption,
      onEvent: async () => {
        await sleep(100);
      },
    });
    expect((await handler(post(json(messageEnvelope(textMessage()))), ctx)).status).toBe(503);
    expect(ctx.kept).toHaveLength(1);
    expect(fromOption).not.toHaveBeenCalled();
    await ctx.kept[0];
    expect(messages(logs)).toEqual([DEADLINE]);
  });
});

describe('createWebhookHandler: upstream signature (optional)', () => {
  const appSecret = 'upstream_app_secret';

  it('verifies X-Hub-Signature-256 when present; 403 on mismatch; optional unless required', async () => {
    const body = json(messageEnvelope(textMessage()));
    const signature = await signUpstreamBody(body, appSecret);
    const { handler } = recorder({ upstreamAppSecret: appSecret });
    expect((await handler(post(body, { headers: { 'x-hub-signature-256': signature } }))).status).toBe(200);
    const other = json(messageEnvelope(textMessage()));
    expect((await handler(post(other, { headers: { 'x-hub-signature-256': signature } }))).status).toBe(403);
    expect((await handler(post(json(messageEnvelope(textMessage()))))).status).toBe(200);
    const strict = recorder({ upstreamAppSecret: appSecret, requireUpstreamSignature: true });
    expect((await strict.handler(post(json(messageEnvelope(textMessage()))))).status).toBe(401);
  });
});

describe('createWebhookHandler: configuration', () => {
  const onEvent = () => undefined;

  it('refuses unusable options at creation with ConfigurationError, without echoing the secret', () => {
    const bad: unknown[] = [
      { secret: '', onEvent },
      { secret: [], onEvent },
      { secret: ['ok_secret_ok_secret_ok_secret_ok_', ''], onEvent },
      { secret: 'has space in it', onEvent },
      { secret: 'tab\tsecret', onEvent },
      { secret: 42, onEvent },
      { secret: SECRET },
      { secret: SECRET, onEvent, deadlineMs: 5000 },
      { secret: SECRET, onEvent, deadlineMs: 0 },
      { secret: SECRET, onEvent, maxBodyBytes: 0 },
      { secret: SECRET, onEvent, dedupe: {} },
      { secret: SECRET, onEvent, requireUpstreamSignature: true },
      // Read from the environment: a string that would otherwise turn the signature check off.
      { secret: SECRET, onEvent, upstreamAppSecret: 'app-secret', requireUpstreamSignature: 'true' },
      { secret: SECRET, onEvent, upstreamAppSecret: 'app-secret', requireUpstreamSignature: 1 },
      null,
    ];
    for (const options of bad) {
      let thrown: unknown;
      try {
        createWebhookHandler(options as WebhookHandlerOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(ConfigurationError);
      expect(String((thrown as Error).message)).not.toContain('has space in it');
    }
  });

  it("the secret's ConfigurationError says what it got, what to do, and names the function called", () => {
    const message = configurationMessage;
    const unset = message(() =>
      createWebhookHandler({ secret: process.env['WA_TEST_UNSET_SECRET']!, onEvent }),
    );
    expect(unset).toMatch(/^createWebhookHandler: `secret` .*; got undefined\./);
    expect(unset).toContain('from the WEBHOOK_SECRET environment variable');
    expect(unset).toContain('WEBHOOK_SECRET is set where this code runs');
    const node = message(() => createNodeWebhookHandler({ secret: undefined as never, onEvent }));
    expect(node).toMatch(/^createNodeWebhookHandler: `secret` .*; got undefined\./);
    expect(message(() => createWebhookHandler({ secret: '', onEvent }))).toContain('got an empty string');
    expect(message(() => createWebhookHandler({ secret: 42 as never, onEvent }))).toContain('got a number');
    const pasted = message(() => createNodeWebhookHandler({ secret: `Bearer ${SECRET}`, onEvent }));
    expect(pasted).toMatch(/^createNodeWebhookHandler: /);
    expect(pasted).toContain('without the `Bearer ` prefix');
    expect(pasted).not.toContain(SECRET);
    const rotated = message(() => createWebhookHandler({ secret: [SECRET, `${SECRET}\n`], onEvent }));
    expect(rotated).toContain('`secret`[1]');
    expect(rotated).toContain('whitespace at an end');
    expect(rotated).toContain('.trim()');
    expect(rotated).not.toContain(SECRET);
    const upstream = message(() =>
      createWebhookHandler({ secret: SECRET, onEvent, upstreamAppSecret: 'has space' }),
    );
    expect(upstream).toMatch(/^createWebhookHandler: `upstreamAppSecret` .*got a string of 9 characters/);
    expect(upstream).not.toContain('has space');
    expect(message(() => createNodeWebhookHandler({ secret: SECRET, onEvent, deadlineMs: 0 }))).toMatch(
      /^createNodeWebhookHandler: `deadlineMs`/,
    );
  });

  it('warns through the logger about a secret under 32 characters', () => {
    const warn = vi.fn();
    createWebhookHandler({ secret: 'short_secret', onEvent, logger: { warn, error: vi.fn() } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(warn.mock.calls)).not.toContain('short_secret');
  });
});

describe('createWebhookHandler: nothing leaks', () => {
  it('the logger never receives payload content, keys or the secret; responses never echo the payload', async () => {
    const phone = '998901234567';
    const text = 'my very private message';
    const msg = textMessage({ from: phone, id: `wamid.${phone}.abc`, text: { body: text } });
    const body = json(messageEnvelope(msg));
    const logs: unknown[][] = [];
    const logger = {
      warn: (...args: unknown[]) => logs.push(args),
      error: (...args: unknown[]) => logs.push(args),
    };
    const bodies: string[] = [];
    const failing = createWebhookHandler({
      secret: SECRET,
      logger,
      deadlineMs: 100,
      upstreamAppSecret: 'upstream_app_secret',
      onEvent: async (event) => {
        if (event.kind === 'message' && event.message.type === 'text' && event.message.text.body === 'slow') {
          await sleep(150);
        }
        throw new Error(`failed on ${phone}: ${text}`);
      },
    });
    const requests = [
      post(body),
      post(body, { auth: `Bearer ${SECRET}wrong` }),
      post(body, { auth: `Bearer ${phone}` }),
      post(`{"entry": "${phone} ${text}"`),
      post(`{"entry": [{"changes": [{"value": "${text}"}]}]}`),
      post(body, { headers: { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } }),
      post(json(messageEnvelope(textMessage({ from: phone, text: { body: 'slow' } })))),
      post(json(messageEnvelope({ id: `wamid.${phone}`, type: 'text', text: { body: 7 } }))),
    ];
    for (const request of requests) bodies.push(await (await failing(request)).text());
    await sleep(100);
    expect(logs.length).toBeGreaterThanOrEqual(requests.length);
    const logged = JSON.stringify(logs);
    for (const forbidden of [phone, text, SECRET, 'upstream_app_secret', msg.id]) {
      expect(logged).not.toContain(forbidden);
      for (const b of bodies) expect(b).not.toContain(forbidden);
    }
  });
});
