/**
 * Every method of every platform resource takes the per-call options (`RequestOptions`: signal, timeoutMs, maxRetries,
 * headers) as its last parameter, and they reach the request: the compiler checks the parameter on every method of
 * every resource class, and each method is called here with a header, a timeout and a signal of its own.
 */
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigurationError, TimeoutError } from '../../src/core/errors.js';
import type { RequestOptions } from '../../src/index.js';
import type { Auth } from '../../src/platform/auth.js';
import type { Conversations } from '../../src/platform/conversations.js';
import type { Customers } from '../../src/platform/customers.js';
import { PlatformClient } from '../../src/platform/index.js';
import type { PlatformMessages } from '../../src/platform/messages.js';
import type { Reports } from '../../src/platform/reports.js';
import type { Stats } from '../../src/platform/stats.js';
import { useMswServer } from '../helpers/msw.js';
import { CONV, CUSTOMER, PLATFORM, STREAM, TOKEN } from '../helpers/platform.js';

const FROM = '2024-01-01T00:00:00Z';
const TO = '2024-01-02T00:00:00Z';

const server = useMswServer();

/** The last parameter of a function (of its last overload), optional or not. */
type LastParameter<F> = F extends (...args: infer A) => unknown
  ? Required<A> extends [...unknown[], infer L]
    ? NonNullable<L>
    : never
  : never;
type MethodNames<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];
/** `true`, or the names of the methods whose last parameter is not the call options (or a type extending them). */
type TakeCallOptions<T> = {
  [K in MethodNames<T>]: LastParameter<T[K]> extends RequestOptions
    ? keyof RequestOptions extends keyof LastParameter<T[K]>
      ? true
      : K
    : K;
}[MethodNames<T>];

const tokenClient = () => new PlatformClient({ platformUrl: PLATFORM, streamUrl: STREAM, token: TOKEN });
const loginClient = () =>
  new PlatformClient({
    platformUrl: PLATFORM,
    streamUrl: STREAM,
    username: 'agent',
    password: 'pw-123456789',
  });

async function drain(records: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of records) {
    // Only the request matters here.
  }
}

/** Each platform method, called with the given options (and arguments it accepts). */
const calls: [string, (options: RequestOptions) => Promise<unknown>][] = [
  ['auth.login', (o) => loginClient().auth.login(o)],
  ['stats.get', (o) => tokenClient().stats.get(o)],
  ['reports.get', (o) => tokenClient().reports.get({ data: 'messages' }, o)],
  ['reports.conversations', (o) => tokenClient().reports.conversations({}, o)],
  ['reports.feedbacks', (o) => tokenClient().reports.feedbacks({}, o)],
  ['reports.feedbacksRange', (o) => tokenClient().reports.feedbacksRange({ from: FROM, to: TO }, o)],
  ['messages.stream', (o) => drain(tokenClient().messages.stream({}, o))],
  ['messages.streamRange', (o) => drain(tokenClient().messages.streamRange({ from: FROM, to: TO }, o))],
  ['messages.send', (o) => tokenClient().messages.send(CONV, [{ type: 'text', content: 'Hi' }], o)],
  [
    'messages.batchSend',
    (o) => tokenClient().messages.batchSend({ message: 'Hi', conversations: [CONV] }, o),
  ],
  [
    'messages.batchSendAll',
    // It reports a failed chunk instead of rejecting: the chunk's error is the call's outcome here.
    async (o) => {
      const result = await tokenClient().messages.batchSendAll({ message: 'Hi', conversations: [CONV] }, o);
      const chunk = result.chunks[0];
      if (chunk && 'error' in chunk) throw chunk.error;
      return result;
    },
  ],
  ['conversations.archive', (o) => tokenClient().conversations.archive(CONV, o)],
  ['conversations.unarchive', (o) => tokenClient().conversations.unarchive(CONV, o)],
  ['conversations.assign', (o) => tokenClient().conversations.assign(CONV, { auto: true }, o)],
  ['conversations.assignToGroup', (o) => tokenClient().conversations.assignToGroup(CONV, 'Billing', o)],
  ['conversations.unassign', (o) => tokenClient().conversations.unassign(CONV, o)],
  ['conversations.setType', (o) => tokenClient().conversations.setType(CONV, { name: 'Question' }, o)],
  [
    'conversations.setCustomFields',
    (o) => tokenClient().conversations.setCustomFields(CONV, { vip: true }, o),
  ],
  ['customers.update', (o) => tokenClient().customers.update(CUSTOMER, { name: 'Aziza' }, o)],
  [
    'customers.setCustomFields',
    (o) => tokenClient().customers.setCustomFields(CUSTOMER, { tier: 'gold' }, o),
  ],
];

/** Answers every request to both hosts with `answer`, after noting its headers. */
function answerAll(answer: (request: Request) => Promise<Response> | Response): Headers[] {
  const seen: Headers[] = [];
  const handler = ({ request }: { request: Request }) => {
    seen.push(request.headers);
    return answer(request);
  };
  server.use(http.all(`${PLATFORM}/*`, handler), http.all(`${STREAM}/*`, handler));
  return seen;
}

describe('per-call options on every platform method', () => {
  it('the last parameter of every resource method is the call options (checked by the compiler)', () => {
    expectTypeOf<TakeCallOptions<Auth>>().toEqualTypeOf<true>();
    expectTypeOf<TakeCallOptions<Stats>>().toEqualTypeOf<true>();
    expectTypeOf<TakeCallOptions<Reports>>().toEqualTypeOf<true>();
    expectTypeOf<TakeCallOptions<PlatformMessages>>().toEqualTypeOf<true>();
    expectTypeOf<TakeCallOptions<Conversations>>().toEqualTypeOf<true>();
    expectTypeOf<TakeCallOptions<Customers>>().toEqualTypeOf<true>();
    // The check itself can fail: a method without them is named.
    expectTypeOf<TakeCallOptions<{ login(o?: { signal?: AbortSignal }): void }>>().toEqualTypeOf<'login'>();
  });

  it.each(calls)('%s sends the per-call headers', async (name, call) => {
    // Whatever the answer's shape, the request went out first; a refusal here is not what is tested.
    const seen = answerAll(() => HttpResponse.json({}, { status: 400 }));
    await call({ headers: { 'x-call': name } }).catch(() => undefined);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]?.get('x-call')).toBe(name);
  });

  it.each(calls)('%s reads null options as none, as JavaScript callers pass them', async (_name, call) => {
    // A 400: what matters is that the request went out, not a TypeError.
    const seen = answerAll(() => HttpResponse.json({}, { status: 400 }));
    const error = await call(null as unknown as RequestOptions).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(TypeError);
    expect(seen.length).toBeGreaterThan(0);
  });

  it.each(calls)('%s times out after the per-call timeoutMs', async (_name, call) => {
    // The server never answers: only this call's timeout (the client's is 30 s) can end the call in time.
    const seen = answerAll(async () => {
      await delay('infinite');
      return HttpResponse.json({});
    });
    const error = await call({ timeoutMs: 50, maxRetries: 0 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen.length).toBeGreaterThan(0);
    const timeout = error instanceof TimeoutError ? error : (error as { cause?: unknown } | undefined)?.cause;
    expect(timeout).toBeInstanceOf(TimeoutError);
    expect((timeout as TimeoutError).timeoutMs).toBe(50);
  });

  it.each(calls)(
    '%s refuses a signal that is not an AbortSignal, before any request',
    async (_name, call) => {
      const seen = answerAll(() => HttpResponse.json({}));
      for (const signal of [{}, 'x', null]) {
        const error = await call({ signal: signal as unknown as AbortSignal }).then(
          () => undefined,
          (e: unknown) => e,
        );
        // The rule `messages.send` applies (core's `checkSignal`), not a bare TypeError from the transport.
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as Error).message).toMatch(/signal must be an AbortSignal/);
      }
      expect(seen).toHaveLength(0);
    },
  );

  it.each(calls)('%s stops when the per-call signal is aborted mid-request', async (_name, call) => {
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    answerAll(async () => {
      controller.abort(reason);
      await delay('infinite');
      return HttpResponse.json({});
    });
    const error = await call({ signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The reason itself, or (batchSendAll's chunk report) an error whose cause it is.
    expect(error === reason || (error as { cause?: unknown } | undefined)?.cause === reason).toBe(true);
  });
});

describe("a per-call option's near-miss key, from a caller with no type checker", () => {
  /** What the call ends with: its rejection, or the throw of a stream's arguments at the call. */
  const outcome = (run: () => Promise<unknown>): Promise<unknown> =>
    Promise.resolve()
      .then(run)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
  const refusal = (error: unknown) => [(error as Error).constructor, (error as Error).message];

  it.each(calls)('%s refuses timeout_ms, naming timeoutMs, before any request', async (name, call) => {
    const seen = answerAll(() => HttpResponse.json({}));
    const error = await outcome(() => call({ timeout_ms: 50 } as RequestOptions));
    expect(refusal(error)).toEqual([
      ConfigurationError,
      `${name}: unknown option 'timeout_ms': did you mean 'timeoutMs'?`,
    ]);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['messages.batchSendAll', 'chunk_size', 'chunkSize'],
    ['reports.feedbacksRange', 'windowdays', 'windowDays'],
    ['messages.stream', 'idleTimeoutMS', 'idleTimeoutMs'],
    ['messages.streamRange', 'skip_ids', 'skipIds'],
    ['messages.streamRange', 'retries', 'maxRetries'],
  ])('%s refuses %s, one of its own options mistyped, naming %s', async (name, key, meant) => {
    const seen = answerAll(() => HttpResponse.json({}));
    const [, call] = calls.find(([n]) => n === name)!;
    const error = await outcome(() => call({ [key]: 1 } as RequestOptions));
    expect(refusal(error)).toEqual([
      ConfigurationError,
      `${name}: unknown option '${key}': did you mean '${meant}'?`,
    ]);
    expect(seen).toHaveLength(0);
  });

  it.each(calls)(
    "%s leaves a key close to no option alone (an object of the caller's spread in)",
    async (name, call) => {
      const seen = answerAll(() => HttpResponse.json({}, { status: 400 }));
      const options = { headers: { 'x-call': name }, requestContext: { user: 7 }, batch: 1 };
      await outcome(() => call(options as RequestOptions));
      expect(seen[0]?.get('x-call')).toBe(name);
    },
  );
});
