import { HttpResponse, http } from 'msw';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConversationError,
  createRouter,
  MemorySessionStore,
  MemoryWindowStore,
  type MessageContext,
  type ReplyResult,
  type SessionStore,
} from '../../src/conversations/index.js';
import {
  ConfigurationError,
  defineTemplate,
  filledTemplate,
  GatewayClient,
  MessageValidationError,
  ServiceWindowClosedError,
  TemplateSendError,
  WaGatewayError,
} from '../../src/index.js';
import type { InboxWorkerOptions } from '../../src/redis/index.js';
import {
  accountUpdateEnvelope,
  buttonMessage,
  buttonReplyMessage,
  imageMessage,
  listReplyMessage,
  messageEnvelope,
  statusEnvelope,
  statusObject,
  templateStatusEnvelope,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import {
  createWebhookHandler,
  parseWebhook,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { API_KEY, envelope, GW, sendOk, useMswServer } from '../helpers/msw.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

const server = useMswServer();
const CUSTOMER = '998901234567';
const now = () => String(Math.floor(Date.now() / 1000));

/** The gateway: records every send body and answers each with a new wamid. */
function gateway() {
  const sent: Record<string, unknown>[] = [];
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      sent.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json(sendOk(`wamid.OUT${sent.length}`, CUSTOMER));
    }),
  );
  const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, maxRetries: 0 });
  return {
    gw,
    sent,
    bodies: () => sent.map((b) => (b.text as { body?: string } | undefined)?.body ?? b.type),
  };
}

function one(envelope: unknown): WebhookEvent {
  const [event] = parseWebhook(envelope as object);
  if (!event) throw new Error('no event');
  return event;
}
const text = (body: string, from = CUSTOMER, id?: string) =>
  one(messageEnvelope(textMessage({ text: { body }, from, timestamp: now(), ...(id ? { id } : {}) })));
const button = (id: string, from = CUSTOMER) =>
  one(messageEnvelope(buttonReplyMessage({ id, title: id }, { from, timestamp: now() })));

describe('routing', () => {
  it('routes by text (string, case-insensitive, or pattern), button and list id, type, and falls back', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    router.text('hi', (ctx) => ctx.reply(`hello ${ctx.match}`));
    router.text(/^order (\d+)$/, (ctx) => ctx.reply(`order ${ctx.match[1]}`));
    router.button(/^slot:(\w+)$/, (ctx) => ctx.reply(`slot ${ctx.match[1]}`));
    router.list('row_2', (ctx) => ctx.reply(`list ${ctx.match}`));
    router.on('image', (ctx) => ctx.reply(`image ${ctx.message.image.id}`));
    router.otherwise((ctx) => ctx.reply(`? ${ctx.text ?? ctx.message.type}`));

    await router.handle(text(' HI '));
    await router.handle(text('order 42'));
    await router.handle(button('slot:mon'));
    await router.handle(
      one(messageEnvelope(listReplyMessage({ id: 'row_2' }, { from: CUSTOMER, timestamp: now() }))),
    );
    await router.handle(one(messageEnvelope(imageMessage({ from: CUSTOMER, timestamp: now() }))));
    await router.handle(text('something else'));
    expect(bodies()).toEqual([
      'hello  HI ',
      'order 42',
      'slot mon',
      'list row_2',
      expect.stringMatching(/^image /),
      '? something else',
    ]);
  });

  it("reads a template quick-reply tap (type 'button'): ctx.choice is its payload, ctx.text its label", async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    router.on('button', (ctx) => ctx.reply(`${ctx.choice} / ${ctx.text}`));
    await router.handle(
      one(
        messageEnvelope(
          buttonMessage(
            { payload: 'STOP_PROMOS', text: 'Stop promotions' },
            { from: CUSTOMER, timestamp: now() },
          ),
        ),
      ),
    );
    expect(bodies()).toEqual(['STOP_PROMOS / Stop promotions']);
  });

  it("router.button matches a template's quick-reply tap by its payload, as it does a reply button by its id", async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    router.button('yes', (ctx) => ctx.reply(`yes via ${ctx.message.type}: ${ctx.choice} / ${ctx.text}`));
    router.button(/^slot:(\w+)$/, (ctx) => ctx.reply(`slot ${ctx.match[1]}`));
    router.otherwise((ctx) => ctx.reply(`otherwise ${ctx.message.type}`));
    const tap = (payload: string, label: string) =>
      one(messageEnvelope(buttonMessage({ payload, text: label }, { from: CUSTOMER, timestamp: now() })));
    await router.handle(button('yes'));
    await router.handle(tap('yes', 'Yes please'));
    await router.handle(tap('slot:tue', 'Tuesday'));
    await router.handle(tap('STOP', 'Stop'));
    expect(bodies()).toEqual([
      'yes via interactive: yes / yes',
      'yes via button: yes / Yes please',
      'slot tue',
      'otherwise button',
    ]);
  });

  it('types ctx.match and ctx.session from the route and the router', () => {
    const router = createRouter<{ step: number }>({
      gateway: new GatewayClient({ apiKey: API_KEY, baseUrl: GW }),
    });
    router.text(/x/, (ctx) => {
      expectTypeOf(ctx.match).toEqualTypeOf<RegExpExecArray>();
      expectTypeOf(ctx.session).toEqualTypeOf<{ step: number }>();
    });
    expectTypeOf(router.handle).toExtend<WebhookHandlerOptions['onEvent']>();
    expectTypeOf(router.handle).toExtend<InboxWorkerOptions['onEvent']>();
    router.button('yes', (ctx) => {
      expectTypeOf(ctx.match).toEqualTypeOf<string>();
      expectTypeOf(ctx.message.type).toEqualTypeOf<'interactive' | 'button'>();
      if (ctx.message.type === 'interactive') {
        expectTypeOf(ctx.message.interactive.type).toEqualTypeOf<'button_reply'>();
        expectTypeOf(ctx.message.interactive.button_reply.id).toEqualTypeOf<string>();
      } else expectTypeOf(ctx.message.button.payload).toEqualTypeOf<string>();
    });
  });

  it('routes statuses (failed with its error), template updates and account updates; middleware sees all', async () => {
    const { gw } = gateway();
    const router = createRouter({ gateway: gw });
    const seen: string[] = [];
    router.use(async (ctx, next) => {
      seen.push(`mw:${ctx.kind}`);
      await next();
    });
    router.status('failed', (ctx) => {
      seen.push(`failed:${ctx.error?.code}:${ctx.customer}`);
    });
    router.status('*', (ctx) => {
      seen.push(`status:${ctx.status.status}`);
    });
    router.templateStatus('REJECTED', (ctx) => {
      seen.push(`template:${ctx.template.message_template_name}`);
    });
    router.accountUpdate((ctx) => {
      seen.push(`account:${ctx.account.event}`);
    });
    await router.handle(one(statusEnvelope(statusObject('failed', { recipient_id: CUSTOMER }))));
    await router.handle(one(statusEnvelope(statusObject('read'))));
    await router.handle(
      one(
        templateStatusEnvelope({ event: 'REJECTED', message_template_name: 'promo', reason: 'x' } as never),
      ),
    );
    await router.handle(one(accountUpdateEnvelope({ event: 'DISABLED_UPDATE' } as never)));
    expect(seen).toEqual([
      'mw:status',
      `failed:131026:${CUSTOMER}`,
      'status:failed',
      'mw:status',
      'status:read',
      'mw:template_status',
      'template:promo',
      'mw:account_update',
      'account:DISABLED_UPDATE',
    ]);
  });

  it('refuses a route whose pattern or handler is not one, at registration, naming the argument', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    const reply = (ctx: MessageContext<unknown>) => ctx.reply('x');
    const bad: [() => unknown, RegExp][] = [
      [() => router.text(42 as never, reply), /router\.text: `pattern` must be a string or a RegExp; got 42/],
      [
        () => router.text('hi', undefined as never),
        /router\.text: `handler` must be a function; got undefined/,
      ],
      [
        () => router.button({} as never, reply),
        /router\.button: `id` must be a string or a RegExp; got an object/,
      ],
      [
        () => router.list('row', 'reply' as never),
        /router\.list: `handler` must be a function; got a string/,
      ],
      [() => router.on('text', null as never), /router\.on: `handler` must be a function; got null/],
      [() => router.on(7 as never, reply), /router\.on: `type` must be a message type/],
      [() => router.use(null as never), /router\.use: `middleware` must be a function; got null/],
      [() => router.status(undefined as never, () => {}), /router\.status: `value` must be a status/],
      [() => router.status('failed', 'x' as never), /router\.status: `handler` must be a function/],
      [
        () => router.templateStatus(['*'] as never, () => {}),
        /router\.templateStatus: `event` .* got an array/,
      ],
      [() => router.accountUpdate(undefined as never), /router\.accountUpdate: `handler` must be a function/],
      [() => router.otherwise({} as never), /router\.otherwise: `handler` must be a function; got an object/],
    ];
    for (const [register, message] of bad) {
      let thrown: unknown;
      try {
        register();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ConversationError);
      expect(thrown).toMatchObject({ reason: 'invalid_options', message: expect.stringMatching(message) });
    }
    // Nothing refused was registered: a text event still reaches `otherwise` (a number pattern failed every one).
    router.otherwise((ctx) => ctx.reply('fallback'));
    await router.handle(text('hello'));
    expect(bodies()).toEqual(['fallback']);
  });

  it('router.handle refuses a value that is not a webhook event with a ConversationError (invalid_event)', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    router.otherwise((ctx) => ctx.reply('fallback'));
    router.status('*', () => {});
    const bad: [unknown, string][] = [
      [undefined, 'got undefined'],
      [null, 'got null'],
      ['x', 'got a string'],
      [{}, 'without a valid `kind`'],
      [{ kind: 42 }, 'without a valid `kind`'],
      [{ kind: 'message' }, 'without a valid `message`'],
      [{ kind: 'message', message: {} }, 'without a valid `idempotencyKey`'],
      [{ kind: 'status' }, 'without a valid `status`'],
      [{ kind: 'template_status', template: null }, 'without a valid `template`'],
      [{ kind: 'account_update' }, 'without a valid `account`'],
    ];
    for (const [event, says] of bad) {
      const error = await router.handle(event as WebhookEvent).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConversationError);
      expect(error).toMatchObject({ reason: 'invalid_event', message: expect.stringContaining(says) });
    }
    expect(bodies()).toEqual([]);
    // A kind the router does not know yet (one added to the webhooks later, CONTRIBUTING.md's recipe) is an event.
    await expect(router.handle({ kind: 'added_later' } as never)).resolves.toBeUndefined();
  });

  it('middleware that does not call next stops the event', async () => {
    const { gw, sent } = gateway();
    const router = createRouter({ gateway: gw });
    router.use(() => undefined);
    router.otherwise((ctx) => ctx.reply('never'));
    await router.handle(text('hello'));
    expect(sent).toEqual([]);
  });
});

describe('sessions and flows', () => {
  it('keeps a typed session per customer and runs a flow: ask, wait, validate, continue', async () => {
    const { gw, bodies } = gateway();
    const sessions = new MemorySessionStore();
    const build = () => {
      const router = createRouter<{ name?: string; age?: number }>({ gateway: gw, sessions });
      router.text('start', async (ctx) => {
        await ctx.reply('name?');
        ctx.enter('signup', 'name');
      });
      router.flow('signup', {
        steps: {
          name: async (ctx) => {
            ctx.session.name = ctx.text;
            await ctx.reply('age?');
            ctx.wait('age');
          },
          age: async (ctx) => {
            const age = Number(ctx.text);
            if (!Number.isInteger(age)) {
              await ctx.reply('a number, please');
              return ctx.wait('age');
            }
            ctx.session.age = age;
            await ctx.reply(`thanks ${ctx.session.name}, ${age}`);
          },
        },
      });
      router.otherwise((ctx) => ctx.reply('idle'));
      return router;
    };
    await build().handle(text('start'));
    await build().handle(text('Ann')); // a new router on the same store: the position survives a restart
    await build().handle(text('old'));
    await build().handle(text('30'));
    await build().handle(text('again'));
    expect(bodies()).toEqual(['name?', 'age?', 'a number, please', 'thanks Ann, 30', 'idle']);
    expect(await build().session(CUSTOMER)).toEqual({ name: 'Ann', age: 30 });
  });

  it('a flow whose wait ran out hands the next message to onTimeout', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    router.text('go', (ctx) => ctx.enter('f'));
    router.flow('f', {
      timeoutMs: 1,
      steps: { only: (ctx) => ctx.reply('in time') },
      onTimeout: (ctx) => ctx.reply('timed out'),
    });
    await router.handle(text('go'));
    await new Promise((r) => setTimeout(r, 5));
    await router.handle(text('late'));
    expect(bodies()).toEqual(['timed out']);
  });

  it('router.flow checks timeoutMs by the duration rule (ConfigurationError), and its steps and onTimeout', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    const steps = { name: (ctx: MessageContext<unknown>) => ctx.reply(`thanks ${ctx.text}`) };
    // Each of these made the step unreachable (expired at once), or the flow never time out ('900000' + now).
    for (const timeoutMs of [-5, 0, Number.NaN, Number.POSITIVE_INFINITY, '5m', '900000', null]) {
      expect(() => router.flow('booking', { timeoutMs: timeoutMs as number, steps })).toThrow(
        ConfigurationError,
      );
    }
    expect(() => router.flow('booking', { timeoutMs: '5m' as never, steps })).toThrow(
      "router.flow('booking'): `timeoutMs` must be a positive number of milliseconds; got a string.",
    );
    const invalid = { name: ConversationError.name, reason: 'invalid_options' };
    expect(() => router.flow('booking', { steps: { a: 'nope' as never } })).toThrow(
      expect.objectContaining({
        ...invalid,
        message: expect.stringContaining('`steps.a` must be a function'),
      }),
    );
    expect(() => router.flow('booking', { steps, onTimeout: 5 as never })).toThrow(
      expect.objectContaining({
        ...invalid,
        message: expect.stringContaining('`onTimeout` must be a function'),
      }),
    );
    expect(() => router.flow(3 as never, { steps })).toThrow(expect.objectContaining(invalid));
    // None was kept; a valid one is, and its step runs.
    router.text('book', async (ctx) => {
      ctx.enter('booking');
      await ctx.reply('name?');
    });
    router.otherwise((ctx) => ctx.reply('fallback'));
    await expect(router.handle(text('book', CUSTOMER, 'wamid.F0'))).rejects.toMatchObject({
      reason: 'unknown_flow',
    });
    router.flow('booking', { timeoutMs: 900_000, steps });
    await router.handle(text('book', CUSTOMER, 'wamid.F2'));
    await router.handle(text('Ali', CUSTOMER, 'wamid.F3'));
    expect(bodies()).toEqual(['name?', 'thanks Ali']);
  });

  it("a step name is one of the flow's own steps, never an Object.prototype method", async () => {
    const { gw } = gateway();
    const router = createRouter({ gateway: gw });
    router.flow('f', { steps: { only: () => {} } });
    router.otherwise((ctx) => ctx.enter('f', 'constructor'));
    await expect(router.handle(text('x'))).rejects.toMatchObject({ reason: 'unknown_flow' });
  });

  it('entering an unknown flow is a ConversationError', async () => {
    const { gw } = gateway();
    const router = createRouter({ gateway: gw });
    router.otherwise((ctx) => ctx.enter('nope'));
    await expect(router.handle(text('x'))).rejects.toMatchObject({ reason: 'unknown_flow' });
  });
});

describe('retries', () => {
  it('a redelivered event is skipped whole: no second reply', async () => {
    const { gw, sent } = gateway();
    const router = createRouter({ gateway: gw });
    router.otherwise((ctx) => ctx.reply('once'));
    const event = text('hello');
    await router.handle(event);
    await router.handle(event);
    expect(sent).toHaveLength(1);
  });

  it('an event re-run after its save failed sends only the replies not sent yet', async () => {
    const { gw, bodies } = gateway();
    const memory = new MemorySessionStore();
    let failSave = true;
    const sessions: SessionStore = {
      get: (k) => memory.get(k),
      set: async (k, v, t) => {
        if (failSave) {
          failSave = false;
          throw new Error('store down');
        }
        return memory.set(k, v, t);
      },
      delete: (k) => memory.delete(k),
      lock: (k, l) => memory.lock(k, l),
      claim: (i, t) => memory.claim(i, t),
      unclaim: (i) => memory.unclaim(i),
    };
    const router = createRouter({ gateway: gw, sessions });
    let runs = 0;
    router.otherwise(async (ctx) => {
      runs++;
      const first = await ctx.reply('one');
      await ctx.reply('two');
      if (runs === 2) expect(first.skipped).toBe(true);
    });
    const event = text('hello');
    await expect(router.handle(event)).rejects.toThrow('store down');
    await router.handle(event);
    expect(runs).toBe(2);
    expect(bodies()).toEqual(['one', 'two']);
  });

  it('a reply refused before any request is not recorded, so the retry sends it', async () => {
    let calls = 0;
    const sent: unknown[] = [];
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        calls++;
        if (calls === 1) {
          return HttpResponse.json(
            {
              isSuccess: false,
              errors: { code: 'BILL_001', group: 'BILLING', description: 'Balance exhausted' },
            },
            { status: 402 },
          );
        }
        sent.push(await request.json());
        return HttpResponse.json(sendOk());
      }),
    );
    const router = createRouter({
      gateway: new GatewayClient({ apiKey: API_KEY, baseUrl: GW, maxRetries: 0 }),
    });
    router.otherwise((ctx) => ctx.reply('hi'));
    const event = text('hello');
    await expect(router.handle(event)).rejects.toBeInstanceOf(WaGatewayError);
    await router.handle(event);
    expect(sent).toHaveLength(1);
  });

  it("one customer's events run one at a time; other customers' do not wait", async () => {
    const { gw } = gateway();
    const router = createRouter<{ n: number }>({ gateway: gw, initialSession: () => ({ n: 0 }) });
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    router.otherwise(async (ctx) => {
      order.push(`start ${ctx.customer} ${ctx.text}`);
      if (ctx.text === 'slow') await gate;
      ctx.session.n++;
      order.push(`end ${ctx.customer} ${ctx.text}`);
    });
    const a1 = router.handle(text('slow', '111'));
    const a2 = router.handle(text('fast', '111'));
    await router.handle(text('other', '222')); // finishes while 111's first event still waits
    expect(order).toEqual(['start 111 slow', 'start 222 other', 'end 222 other']);
    release();
    await Promise.all([a1, a2]);
    expect(order.slice(3)).toEqual(['end 111 slow', 'start 111 fast', 'end 111 fast']);
    expect(await router.session('111')).toEqual({ n: 2 });
  });

  it("a lock whose release fails: the event's outcome stands (handled, or its own error), and a warning says so", async () => {
    const { gw, bodies } = gateway();
    const memory = new MemorySessionStore();
    // The store's own locks, whose release fails to answer (the connection dropped as it was let go): the test's
    // events need not wait for the lease to run out, the router cannot tell.
    const sessions: SessionStore = {
      get: (key) => memory.get(key),
      set: (key, value, ttlMs) => memory.set(key, value, ttlMs),
      delete: (key) => memory.delete(key),
      lock: async (key, leaseMs) => {
        const lock = await memory.lock(key, leaseMs);
        return {
          ...lock,
          release: async () => {
            await lock.release();
            throw new TypeError('store down');
          },
        };
      },
      claim: (id, ttlMs) => memory.claim(id, ttlMs),
      unclaim: (id) => memory.unclaim(id),
    };
    const { logger, lines } = captureLogger();
    const router = createRouter<{ n: number }>({
      gateway: gw,
      sessions,
      logger,
      initialSession: () => ({ n: 0 }),
    });
    router.otherwise(async (ctx) => {
      if (ctx.text === 'boom') throw new RangeError('handler failed');
      ctx.session.n++;
      await ctx.reply('ok');
    });
    await expect(router.handle(text('hi'))).resolves.toBeUndefined();
    expect(bodies()).toEqual(['ok']);
    expect(await router.session(CUSTOMER)).toEqual({ n: 1 });
    // A failed handler keeps its own error, not the release's.
    await expect(router.handle(text('boom'))).rejects.toBeInstanceOf(RangeError);
    // takeOver saves under the lock too.
    await expect(router.takeOver(CUSTOMER)).resolves.toBeUndefined();
    expect(await router.isTakenOver(CUSTOMER)).toBe(true);
    const warned = lines.filter((l) => l.message.includes("could not release a customer's lock"));
    expect(warned).toHaveLength(3);
    expect(warned[0]).toMatchObject({ level: 'warn', meta: { errorName: 'TypeError' } });
    expect(JSON.stringify(lines)).not.toContain(CUSTOMER);
  });

  it('with a bounded MemorySessionStore: a redelivery is skipped within maxKeys, and past it runs again', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter<{ n: number }>({
      gateway: gw,
      sessions: new MemorySessionStore({ maxKeys: 3 }),
      initialSession: () => ({ n: 0 }),
    });
    router.otherwise(async (ctx) => {
      ctx.session.n++;
      await ctx.reply(`${ctx.customer} ${ctx.session.n}`);
    });
    const first = text('hi', '111', 'wamid.A1');
    await router.handle(first);
    await router.handle(text('hi', '222', 'wamid.B1'));
    await router.handle(text('hi', '333', 'wamid.C1'));
    await router.handle(first); // 111's record and reply are among the last three: skipped
    expect(bodies()).toEqual(['111 1', '222 1', '333 1']);
    await router.handle(text('hi', '444', 'wamid.D1')); // 111's record and its reply are dropped
    await router.handle(first);
    // The documented trade: the customer starts again, and the redelivered event's reply goes out again.
    expect(bodies()).toEqual(['111 1', '222 1', '333 1', '444 1', '111 1']);
  });
});

describe('human takeover', () => {
  it('keeps the bot silent for a customer until released; middleware still runs', async () => {
    const { gw, bodies } = gateway();
    const router = createRouter({ gateway: gw });
    const forwarded: string[] = [];
    router.use(async (ctx, next) => {
      if (ctx.kind === 'message' && ctx.human) forwarded.push(ctx.text ?? '');
      await next();
    });
    router.text('agent', async (ctx) => {
      await ctx.reply('a person will answer');
      ctx.takeOver();
    });
    router.otherwise((ctx) => ctx.reply('bot'));
    await router.handle(text('agent'));
    await router.handle(text('are you there?'));
    expect(await router.isTakenOver(CUSTOMER)).toBe(true);
    await router.release(CUSTOMER);
    await router.handle(text('back'));
    expect(bodies()).toEqual(['a person will answer', 'bot']);
    expect(forwarded).toEqual(['are you there?']);
  });
});

describe('the customer of takeOver, release, isTakenOver and session', () => {
  it('is refused unless it is an id (MessageValidationError, rule customer.required), writing nothing', async () => {
    const { gw } = gateway();
    const sessions = new MemorySessionStore();
    const router = createRouter({ gateway: gw, sessions });
    for (const customer of [undefined, null, 42, '', '  ']) {
      for (const call of [
        () => router.takeOver(customer as string),
        () => router.release(customer as string),
        () => router.isTakenOver(customer as string),
        () => router.session(customer as string),
      ]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(MessageValidationError);
        expect((error as MessageValidationError).issues[0]).toMatchObject({
          path: ['customer'],
          rule: 'customer.required',
        });
      }
    }
    for (const key of ['conv:undefined', 'conv:null', 'conv:42'])
      expect(await sessions.get(key)).toBeUndefined();
    await router.takeOver(CUSTOMER);
    expect(await router.isTakenOver(CUSTOMER)).toBe(true);
  });
});

describe('ctx.replyTemplate with a definition and its values', () => {
  const orderShipped = defineTemplate(orderShippedDefinition);
  const values = { header: '#1042', body: ['Ali', '#1042'], buttons: { 0: '1042' } } as const;

  it('sends what sendTemplate sends for the same definition and values', async () => {
    const { gw, sent } = gateway();
    await gw.messages.sendTemplate(CUSTOMER, orderShipped, values);
    const router = createRouter({ gateway: gw });
    router.otherwise(async (ctx) => {
      await ctx.replyTemplate(orderShipped, values);
      await ctx.replyTemplate(filledTemplate(orderShipped, values));
    });
    await router.handle(text('hi'));
    expect(sent).toHaveLength(3);
    expect(sent[1]).toEqual(sent[0]);
    expect(sent[2]).toEqual(sent[0]);
  });

  it('a mismatch rejects with TemplateSendError and sends nothing; the next reply is not skipped', async () => {
    const { gw, sent } = gateway();
    const router = createRouter({ gateway: gw });
    const replyTemplate = (ctx: MessageContext<unknown>) =>
      (ctx.replyTemplate as (t: unknown, v?: unknown) => Promise<ReplyResult>).bind(ctx);
    let refused: unknown;
    let after: ReplyResult | undefined;
    router.otherwise(async (ctx) => {
      refused = await replyTemplate(ctx)(orderShipped, { ...values, body: ['Ali'] }).catch((e: unknown) => e);
      after = await ctx.reply('sorry');
    });
    await router.handle(text('hi'));
    expect(refused).toBeInstanceOf(TemplateSendError);
    expect(refused).toMatchObject({ rule: 'template.parameters.count', component: 'body' });
    expect(after).toMatchObject({ skipped: false });
    expect(sent.map((b) => b.type)).toEqual(['text']);
  });

  it('the fallback template, built with filledTemplate from the context', async () => {
    const { gw, sent } = gateway();
    const router = createRouter<{ order?: string }>({
      gateway: gw,
      initialSession: () => ({ order: '#7' }),
      fallbackTemplate: (ctx) =>
        filledTemplate(orderShipped, { ...values, body: [ctx.customer, ctx.session.order ?? '?'] }),
    });
    router.otherwise((ctx) => ctx.reply('late'));
    const old = String(Math.floor(Date.now() / 1000) - 25 * 60 * 60);
    await router.handle(one(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old }))));
    expect(sent).toMatchObject([
      {
        type: 'template',
        template: {
          name: 'order_shipped',
          components: expect.arrayContaining([
            {
              type: 'body',
              parameters: [
                { type: 'text', text: CUSTOMER },
                { type: 'text', text: '#7' },
              ],
            },
          ]),
        },
      },
    ]);
  });
});

describe('service window', () => {
  const old = String(Math.floor(Date.now() / 1000) - 25 * 60 * 60);

  it('refuses a free-form reply to a customer who wrote over 24 h ago, before any request', async () => {
    const { gw, sent } = gateway();
    const router = createRouter({ gateway: gw });
    let caught: unknown;
    router.otherwise(async (ctx) => {
      await ctx.reply('late').catch((e: unknown) => {
        caught = e;
      });
      await ctx.replyTemplate({ name: 'reminder', language: { code: 'en_US' } });
    });
    await router.handle(one(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old }))));
    expect(caught).toBeInstanceOf(ServiceWindowClosedError);
    expect(caught).toBeInstanceOf(WaGatewayError);
    const closedAt = (caught as ServiceWindowClosedError).closedAt?.getTime() ?? 0;
    expect(closedAt).toBe((Number(old) + 24 * 60 * 60) * 1000);
    expect((caught as Error).message).toContain('template');
    expect(sent.map((b) => b.type)).toEqual(['template']);
  });

  it('sends the fallback template instead when one is configured', async () => {
    const { gw, sent } = gateway();
    const router = createRouter({
      gateway: gw,
      fallbackTemplate: () => ({ name: 'we_missed_you', language: { code: 'en_US' } }),
    });
    const results: unknown[] = [];
    router.otherwise(async (ctx) => {
      results.push(await ctx.reply('late'));
    });
    await router.handle(one(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old }))));
    expect(sent).toMatchObject([{ type: 'template', to: CUSTOMER, template: { name: 'we_missed_you' } }]);
    expect(results).toMatchObject([{ fallback: true, skipped: false }]);
  });

  it('takes the fallback as a template object, or as a function of the context (sync or async)', async () => {
    const { gw, sent } = gateway();
    const asObject = createRouter({
      gateway: gw,
      fallbackTemplate: { name: 'we_missed_you', language: { code: 'en_US' } },
    });
    const asAsync = createRouter({
      gateway: gw,
      fallbackTemplate: async (ctx) => ({
        name: 'reminder',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: ctx.customer }] }],
      }),
    });
    const results: unknown[] = [];
    for (const router of [asObject, asAsync]) {
      router.otherwise(async (ctx) => {
        results.push(await ctx.reply('late'));
      });
      await router.handle(one(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old }))));
    }
    expect(sent).toMatchObject([
      { type: 'template', to: CUSTOMER, template: { name: 'we_missed_you', language: { code: 'en_US' } } },
      {
        type: 'template',
        to: CUSTOMER,
        template: { name: 'reminder', components: [{ parameters: [{ text: CUSTOMER }] }] },
      },
    ]);
    expect(results).toMatchObject([{ fallback: true }, { fallback: true }]);
  });

  it('refuses a fallbackTemplate that is neither a template nor a function, at createRouter, with a ConfigurationError', () => {
    const { gw } = gateway();
    const hostile = {
      get name(): string {
        throw new Error('getter');
      },
    };
    const cases: [unknown, string][] = [
      ['we_missed_you', 'got a string'],
      [42, 'got 42'],
      [null, 'got null'],
      [[{ name: 'x' }], 'got an array'],
      [{ language: { code: 'en_US' } }, 'its name must be a non-empty string'],
      [{ name: 'x', language: 'en_US' }, "did you mean language: { code: 'en_US' }?"],
      [{ name: 'x', language: {} }, 'its language must be { code }'],
      [{ name: 'x', language: { code: 'en' }, components: {} }, 'its components must be an array'],
      [hostile, 'it could not be read'],
    ];
    for (const [fallbackTemplate, problem] of cases) {
      let caught: unknown;
      try {
        createRouter({ gateway: gw, fallbackTemplate: fallbackTemplate as never });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigurationError);
      expect((caught as Error).message).toContain('createRouter fallbackTemplate must be a template');
      expect((caught as Error).message).toContain(problem);
    }
  });

  it('a refusal a handler lets through ends the event (resolved, handled once) and goes to onError, session unchanged', async () => {
    const { gw, sent } = gateway();
    const refusals: { error: unknown; customer: string }[] = [];
    const router = createRouter<{ n: number }>({
      gateway: gw,
      initialSession: () => ({ n: 0 }),
      onError: (error, ctx) => void refusals.push({ error, customer: ctx.customer }),
    });
    let runs = 0;
    router.otherwise(async (ctx) => {
      runs++;
      ctx.session.n++;
      await ctx.reply('too late');
    });
    const late = one(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old })));
    await expect(router.handle(late)).resolves.toBeUndefined();
    await router.handle(late); // redelivered: handled already
    expect(runs).toBe(1);
    expect(refusals).toMatchObject([{ error: expect.any(ServiceWindowClosedError), customer: CUSTOMER }]);
    expect(sent).toEqual([]);
    expect(await router.session(CUSTOMER)).toBeUndefined(); // the handler did not finish: its change is not saved
    await router.handle(text('hi again')); // the window is open again: the next message is handled as usual
    expect(runs).toBe(2);
    expect(await router.session(CUSTOMER)).toEqual({ n: 1 });
  });

  it('a reply to a customer known only by a user id is refused before sending, saying there is no number to reply to', async () => {
    const { gw, sent } = gateway();
    const refusals: unknown[] = [];
    const router = createRouter({ gateway: gw, onError: (error) => void refusals.push(error) });
    const customers: string[] = [];
    router.otherwise(async (ctx) => {
      customers.push(ctx.customer);
      await ctx.reply('hello');
    });
    const message: Record<string, unknown> = textMessage({ timestamp: now() });
    delete message.from;
    message.from_user_id = 'US.13491208655302741918';
    const delivery = messageEnvelope(message as never);
    // The contact names the user by id too (a contact's wa_id would give the customer a number).
    delivery.entry[0]!.changes[0]!.value.contacts = [
      { user_id: 'US.13491208655302741918', profile: { name: 'X' } },
    ];
    await router.handle(one(delivery));
    expect(customers).toEqual(['US.13491208655302741918']);
    expect(sent).toEqual([]);
    expect(refusals).toHaveLength(1);
    const error = refusals[0] as MessageValidationError;
    expect(error).toBeInstanceOf(MessageValidationError);
    expect(error.message).toContain('known only by a business-scoped user id');
    expect(error.message).toContain('no number to reply to');
    expect(error.issues.map((i) => i.rule)).toEqual(['to.digits_only']);
  });

  it('without onError, a refusal is a warning through the logger (no phone number in it); onError may still fail the event', async () => {
    const { gw } = gateway();
    const log = captureLogger();
    const router = createRouter({ gateway: gw, logger: log.logger });
    router.otherwise((ctx) => ctx.reply('too late'));
    const late = messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old }));
    await router.handle(one(late));
    expect(log.lines).toMatchObject([
      {
        level: 'warn',
        message: expect.stringContaining(
          "a reply was refused: the customer's 24-hour service window is closed",
        ),
        meta: { closedAt: expect.any(String) },
      },
    ]);
    expect(JSON.stringify(log.lines)).not.toContain(CUSTOMER);
    // Nor the message's id: a wamid encodes the customer's number.
    expect(Object.keys(log.lines[0]?.meta ?? {})).toEqual(['closedAt']);
    expect(JSON.stringify(log.lines)).not.toContain('wamid');
    const strict = createRouter({
      gateway: gw,
      onError: (error) => {
        throw error;
      },
    });
    strict.otherwise((ctx) => ctx.reply('too late'));
    await expect(strict.handle(one(late))).rejects.toBeInstanceOf(ServiceWindowClosedError);
  });

  it('every refusal a redelivery cannot change goes to onError: a template or message refused before sending, a GW_001', async () => {
    const { gw, sent } = gateway();
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        const body = (await request.json()) as { text?: { body?: string } };
        if (body.text?.body === 'upstream says no')
          return HttpResponse.json(envelope('GW_001', 'UPSTREAM_ERROR', 'Recipient not registered'), {
            status: 502,
          });
        if (body.text?.body === 'gateway down') return new HttpResponse('Bad gateway', { status: 502 });
        return HttpResponse.json(sendOk('wamid.OK', CUSTOMER));
      }),
    );
    const orderShipped = defineTemplate(orderShippedDefinition);
    const refusals: unknown[] = [];
    const router = createRouter({ gateway: gw, onError: (error) => void refusals.push(error) });
    const loose = (ctx: MessageContext<unknown>) =>
      (ctx.replyTemplate as (t: unknown, v?: unknown) => Promise<ReplyResult>).bind(ctx);
    router.text('template', (ctx) => loose(ctx)(orderShipped, { body: ['only one'] }));
    router.text('invalid', (ctx) => ctx.reply({ type: 'text', text: { body: '' } }));
    router.text('upstream', (ctx) => ctx.reply('upstream says no'));
    router.text('down', (ctx) => ctx.reply('gateway down'));
    await router.handle(text('template'));
    await router.handle(text('invalid'));
    await router.handle(text('upstream'));
    expect(refusals.map((e) => (e as Error).name)).toEqual([
      'TemplateSendError',
      'MessageValidationError',
      'UpstreamError',
    ]);
    expect(refusals[2]).toMatchObject({ code: 'GW_001' });
    // A bare 502 may have been sent, and may pass on a redelivery: it still fails the event.
    await expect(router.handle(text('down'))).rejects.toBeInstanceOf(WaGatewayError);
    expect(refusals).toHaveLength(3);
    expect(sent).toEqual([]);
  });

  it('through a webhook handler, a refused reply is answered 200 (not retried); another failure still 500', async () => {
    const { gw } = gateway();
    const router = createRouter({ gateway: gw, logger: false });
    router.text('boom', () => {
      throw new Error('bug');
    });
    router.otherwise((ctx) => ctx.reply('too late'));
    const secret = 'router-webhook-secret-0123456789abcdef';
    const handler = createWebhookHandler({ secret, onEvent: router.handle, logger: false });
    const deliver = (body: object) =>
      handler(
        new Request('http://localhost/webhooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    expect((await deliver(messageEnvelope(textMessage({ from: CUSTOMER, timestamp: old })))).status).toBe(
      200,
    );
    expect(
      (await deliver(messageEnvelope(textMessage({ from: CUSTOMER, text: { body: 'boom' } })))).status,
    ).toBe(500);
  });

  it('guards plain GatewayClient sends with the serviceWindow option; templates pass', async () => {
    const { sent } = gateway();
    const window = new MemoryWindowStore();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, serviceWindow: window });
    const textTo = (to: string) => gw.messages.send({ to, type: 'text', text: { body: 'hi' } });
    await expect(textTo(CUSTOMER)).rejects.toMatchObject({
      name: 'ServiceWindowClosedError',
      closedAt: undefined,
    });
    await window.recordInbound(CUSTOMER, Date.now() - 25 * 60 * 60 * 1000);
    await expect(textTo(CUSTOMER)).rejects.toBeInstanceOf(ServiceWindowClosedError);
    expect(sent).toEqual([]);
    await window.recordInbound(CUSTOMER, Date.now());
    await textTo(CUSTOMER);
    await gw.messages.send({
      to: '998900000000',
      type: 'template',
      template: { name: 't', language: { code: 'en' } },
    });
    expect(sent).toHaveLength(2);
    const results = [];
    for await (const r of gw.messages.sendMany([{ to: '998900000001', type: 'text', text: { body: 'x' } }]))
      results.push(r);
    expect(results).toMatchObject([{ ok: false, notSent: true }]);
  });

  it('replies through anything with messages.send (a runtime without the main entry), window still guarded', async () => {
    const sent: unknown[] = [];
    const gateway = {
      messages: {
        send: async (message: unknown) => {
          sent.push(message);
          return { messageId: `wamid.PLAIN${sent.length}` };
        },
      },
    };
    const router = createRouter({ gateway });
    router.otherwise(async (ctx) => {
      expect(await ctx.reply('hi')).toEqual({ messageId: 'wamid.PLAIN1', skipped: false, fallback: false });
    });
    await router.handle(text('hello'));
    expect(sent).toEqual([{ type: 'text', text: { body: 'hi' }, to: CUSTOMER }]);
  });

  it('a router without a gateway is a ConversationError', () => {
    expect(() => createRouter({} as never)).toThrow(ConversationError);
  });
});
