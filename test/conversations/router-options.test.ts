/**
 * What `createRouter` takes, checked when the router is made (an option it cannot use would otherwise fail every
 * event, and the gateway drop the customer's messages after its third attempt), and what a session may hold: plain
 * JSON data, refused before any store sees it, so that a session the in-memory default keeps is one Redis keeps too.
 */
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  ConversationError,
  createRouter,
  MemorySessionStore,
  MemoryWindowStore,
  type RouterOptions,
  type SessionStore,
} from '../../src/conversations/index.js';
import { GatewayClient } from '../../src/index.js';
import { messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import { parseWebhook, type WebhookEvent } from '../../src/webhooks/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const CUSTOMER = '998901234567';
/** The longest a Redis store keeps a key (`MAX_RETENTION_MS`): the router's TTLs may be as long, not longer. */
const FIVE_YEARS_MS = 5 * 365 * 24 * 60 * 60 * 1000;
let n = 0;

function gateway() {
  const sent: unknown[] = [];
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      sent.push(await request.json());
      return HttpResponse.json(sendOk(`wamid.OUT${sent.length}`, CUSTOMER));
    }),
  );
  return { gw: new GatewayClient({ apiKey: API_KEY, baseUrl: GW, maxRetries: 0 }), sent };
}

function text(body: string): WebhookEvent {
  const [event] = parseWebhook(
    messageEnvelope(
      textMessage({
        text: { body },
        from: CUSTOMER,
        id: `wamid.IN${++n}`,
        timestamp: String(Math.floor(Date.now() / 1000)),
      }),
    ),
  );
  if (!event) throw new Error('no event');
  return event;
}

const thrownBy = (make: () => unknown): unknown => {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('createRouter checks every option when the router is made', () => {
  it('refuses an option it cannot use with a ConfigurationError naming the option and what it takes', () => {
    const { gw } = gateway();
    const bad: [Partial<RouterOptions<unknown>>, RegExp][] = [
      [
        { initialSession: { orders: 0 } as never },
        /^createRouter: `initialSession` must be a function returning a new customer's session.*; got an object\.$/,
      ],
      [{ initialSession: null as never }, /`initialSession` must be a function .*; got null/],
      [{ sessions: 5 as never }, /^createRouter: `sessions` must be a SessionStore .*; got 5\.$/],
      [
        { sessions: { get() {}, set() {} } as never },
        /`sessions` must be a SessionStore .*; got an object without delete, lock, claim, unclaim\.$/,
      ],
      // A Redis client given for the store: it has get and set, not what a WindowStore has.
      [
        { window: { get() {}, set() {} } as never },
        /^createRouter: `window` must be a WindowStore .*; got an object without recordInbound, lastInbound\.$/,
      ],
      [{ window: 'redis://localhost' as never }, /`window` must be a WindowStore .*; got a string\.$/],
      [{ onError: 'log' as never }, /^createRouter: `onError` must be a function; got a string\.$/],
      [
        { logger: 'console' as never },
        /^createRouter: `logger` must be a Logger .* or false; got a string\.$/,
      ],
      [{ logger: true as never }, /`logger` must be a Logger .*; got a boolean/],
      [{ logger: null as never }, /`logger` must be a Logger .*; got null/],
      [{ sessionTtlMs: '30d' as never }, /^createRouter: `sessionTtlMs` must be a positive number/],
      [{ replyLedgerTtlMs: 0 }, /^createRouter: `replyLedgerTtlMs` must be a positive number.*; got 0\.$/],
      [{ lockLeaseMs: Number.NaN }, /^createRouter: `lockLeaseMs` must be a positive number/],
      // A lease is renewed on a timer while held: past the timer's maximum every lock would fail.
      [{ lockLeaseMs: 2 ** 31 }, /^createRouter: `lockLeaseMs` must be at most 2,147,483,647 ms/],
      // A TTL Redis's stores refuse (past their 5-year cap) would fail every save later: refused now.
      [
        { sessionTtlMs: FIVE_YEARS_MS + 1 },
        /^createRouter: `sessionTtlMs` must be at most 157,680,000,000 ms; got 157,680,000,001\.$/,
      ],
      [
        { replyLedgerTtlMs: 10 * FIVE_YEARS_MS },
        /^createRouter: `replyLedgerTtlMs` must be at most 157,680,000,000 ms/,
      ],
      [{ sessionTtlMs: Number.MAX_SAFE_INTEGER }, /`sessionTtlMs` must be at most/],
    ];
    for (const [options, message] of bad) {
      const error = thrownBy(() => createRouter({ gateway: gw, ...options }));
      expect(error, JSON.stringify(Object.keys(options))).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it.each([
    ['session_ttl_ms', 'sessionTtlMs'],
    ['onerror', 'onError'],
    ['fallback_template', 'fallbackTemplate'],
    ['replyLedgerTTLMs', 'replyLedgerTtlMs'],
    ['sesions', 'sessions'],
  ])("refuses %s, a near miss, naming %s: a JavaScript caller's typo is not ignored", (key, meant) => {
    const { gw, sent } = gateway();
    const error = thrownBy(() => createRouter({ gateway: gw, [key]: 1000 } as never));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(`createRouter: unknown option '${key}': did you mean '${meant}'?`);
    expect(sent).toHaveLength(0);
  });

  it('names a mistyped gateway as the near miss it is, not as a missing gateway; leaves a key close to none alone', () => {
    const { gw, sent } = gateway();
    const error = thrownBy(() => createRouter({ Gateway: gw } as never));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe("createRouter: unknown option 'Gateway': did you mean 'gateway'?");
    expect(thrownBy(() => createRouter({ gateway: gw, tenant: 'acme', db: {} } as never))).toBeUndefined();
    expect(sent).toHaveLength(0);
  });

  it('a missing gateway stays a ConversationError (invalid_options)', () => {
    for (const gateway of [undefined, {}, { messages: {} }, 'gw'])
      expect(thrownBy(() => createRouter({ gateway } as never))).toMatchObject({
        name: 'ConversationError',
        reason: 'invalid_options',
      });
  });

  it('takes every option given as documented, or as undefined, and the router then handles events', async () => {
    const { gw, sent } = gateway();
    const { logger } = captureLogger();
    const routers = [
      createRouter({ gateway: gw }),
      createRouter({
        gateway: gw,
        sessions: new MemorySessionStore(),
        window: new MemoryWindowStore(),
        initialSession: () => ({ orders: 0 }),
        sessionTtlMs: FIVE_YEARS_MS,
        lockLeaseMs: 2 ** 31 - 1,
        replyLedgerTtlMs: FIVE_YEARS_MS,
        onError: () => {},
        logger,
      }),
      createRouter({ gateway: gw, logger: false }),
      createRouter({
        gateway: gw,
        sessions: undefined,
        window: undefined,
        initialSession: undefined,
        onError: undefined,
        logger: undefined,
      }),
    ];
    for (const router of routers) {
      router.otherwise((ctx) => ctx.reply('hi'));
      await router.handle(text('hello'));
    }
    expect(sent).toHaveLength(routers.length);
  });
});

describe('a session is plain JSON data, whatever the store', () => {
  /** A store over a MemorySessionStore that counts the writes of a customer's record (set, or the fenced save). */
  function countingStore() {
    const inner = new MemorySessionStore();
    const writes = { count: 0 };
    const store: SessionStore = {
      get: (key) => inner.get(key),
      set: (key, value, ttlMs) => {
        writes.count++;
        return inner.set(key, value, ttlMs);
      },
      delete: (key) => inner.delete(key),
      lock: (key, leaseMs) => inner.lock(key, leaseMs),
      claim: (id, ttlMs) => inner.claim(id, ttlMs),
      unclaim: (id) => inner.unclaim(id),
    };
    return { store, writes };
  }

  class Cart {
    items = ['tea'];
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();

  // What JSON cannot write at all: refused before the save, whatever the store.
  const unwritable: [string, string, unknown, string][] = [
    ['a BigInt', 'total', 10n, 'session.total (a bigint)'],
    [
      'a BigInt inside a class instance',
      'cart',
      Object.assign(new Cart(), { total: 1n }),
      'session.cart.total (a bigint)',
    ],
    ['a cycle', 'deep', cyclic, 'session.deep.self (a cycle)'],
    ['a revoked proxy', 'p', revoked.proxy, 'session.p (unreadable'],
  ];

  for (const [what, key, value, where] of unwritable) {
    it(`a session holding ${what} fails the event with ConversationError (invalid_session), naming where; nothing is saved`, async () => {
      const { gw, sent } = gateway();
      const { store, writes } = countingStore();
      const router = createRouter<Record<string, unknown>>({
        gateway: gw,
        sessions: store,
        initialSession: () => ({ orders: 0 }),
      });
      let replied = 0;
      router.otherwise(async (ctx) => {
        await ctx.reply('noted');
        replied++;
        ctx.session[key] = value;
      });
      const event = text('hello');
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = await router.handle(event).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConversationError);
        expect(error).toMatchObject({ reason: 'invalid_session' });
        expect((error as Error).message).toContain('the session cannot be saved');
        expect((error as Error).message).toContain(where);
      }
      // Refused before the store was written (whatever the store), and the retry sent no second reply.
      expect(writes.count).toBe(0);
      expect(await router.session(CUSTOMER)).toBeUndefined();
      expect(replied).toBe(2);
      expect(sent).toHaveLength(1);
    });
  }

  // What JSON changes: saved as JSON makes it (what Redis gives back), with one warning per router naming where.
  const changed: [string, string, unknown, unknown, string][] = [
    [
      'a Date',
      'booked',
      { at: new Date(0) },
      { at: '1970-01-01T00:00:00.000Z' },
      'session.booked.at: a Date',
    ],
    ['a Map', 'cart', new Map([['tea', 1]]), {}, 'session.cart: a Map'],
    ['a function', 'format', () => 'x', undefined, 'session.format: a function'],
    ['NaN', 'orders', [1, Number.NaN], [1, null], 'session.orders[1]: NaN'],
    ['undefined in an array', 'orders', [1, undefined], [1, null], 'session.orders[1]: undefined'],
  ];

  for (const [what, key, value, readBack, where] of changed) {
    it(`a session holding ${what} is saved as JSON makes it, and the router warns once, naming where`, async () => {
      const { gw } = gateway();
      const warnings: string[] = [];
      const router = createRouter<Record<string, unknown>>({
        gateway: gw,
        logger: { warn: (m) => void warnings.push(m) },
      });
      router.otherwise((ctx) => {
        ctx.session[key] = value;
      });
      await router.handle(text('hello'));
      await router.handle(text('again'));
      expect((await router.session(CUSTOMER))?.[key]).toStrictEqual(readBack);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(where);
    });
  }

  it('plain JSON data is saved and read back as it was: nested objects, arrays, null, a property left undefined', async () => {
    const { gw } = gateway();
    const router = createRouter<Record<string, unknown>>({ gateway: gw });
    const session = { name: 'Ali', orders: [1, 2.5, -3], flags: { vip: true, note: null }, gone: undefined };
    router.otherwise((ctx) => {
      ctx.session = session;
    });
    await router.handle(text('hello'));
    expect(await router.session(CUSTOMER)).toStrictEqual({
      name: 'Ali',
      orders: [1, 2.5, -3],
      flags: { vip: true, note: null },
    });
  });

  it('a Proxy over plain data is kept as its data (it used to fail structuredClone on every retry)', async () => {
    const { gw } = gateway();
    const router = createRouter<Record<string, unknown>>({ gateway: gw });
    router.otherwise((ctx) => {
      ctx.session = new Proxy({ step: 'ask-date', people: [2] }, {});
    });
    await router.handle(text('hello'));
    expect(await router.session(CUSTOMER)).toStrictEqual({ step: 'ask-date', people: [2] });
  });
});

describe('MemorySessionStore keeps values as JSON, as the Redis and Durable Object stores do', () => {
  it('gives back what JSON gives back, a copy each time', async () => {
    const store = new MemorySessionStore();
    await store.set(
      'k',
      { at: new Date(0), cart: new Map([['tea', 1]]), fn: () => 1, n: Number.NaN },
      60_000,
    );
    const first = (await store.get('k')) as Record<string, unknown>;
    expect(first).toStrictEqual({ at: '1970-01-01T00:00:00.000Z', cart: {}, n: null });
    first.at = 'changed';
    expect(await store.get('k')).toStrictEqual({ at: '1970-01-01T00:00:00.000Z', cart: {}, n: null });
  });

  it('refuses what JSON cannot hold with ConversationError (invalid_session) naming where, as the Redis and Durable Object stores do', async () => {
    const store = new MemorySessionStore();
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    for (const [value, where] of [
      [{ s: { total: 1n } }, 'value.s.total (a bigint)'],
      [{ s: cyclic }, 'value.s.me (a cycle)'],
      [undefined, 'value (undefined)'],
      [() => 1, 'value (a function)'],
    ] as const) {
      const error = await store.set('k', value, 60_000).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConversationError);
      expect(error).toMatchObject({ reason: 'invalid_session' });
      expect((error as Error).message).toBe(
        `MemorySessionStore.set: the value cannot be saved: the stores keep JSON, which cannot write ${where}.`,
      );
    }
    expect(await store.get('k')).toBeUndefined();
  });

  it('checks lockWaitMs by the duration rule', () => {
    for (const lockWaitMs of ['30s', 0, -1, Number.POSITIVE_INFINITY, 2 ** 31])
      expect(() => new MemorySessionStore({ lockWaitMs: lockWaitMs as number })).toThrow(
        /new MemorySessionStore: `lockWaitMs` must be/,
      );
  });
});
