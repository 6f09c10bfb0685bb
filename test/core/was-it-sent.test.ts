/**
 * "Was it sent?" is one rule read from each client's retry table: the codes answered before anything was done,
 * a 4xx from a server that checks before acting, and the SDK errors that know.
 */
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConnectionError,
  InvalidResponseError,
  NotSentError,
  PaymentRequiredError,
  RateLimitError,
} from '../../src/core/errors.js';
import { mayHaveBeenSent, retryDelay, settleAttempts } from '../../src/core/retry-policy.js';
import { GATEWAY_RETRY_RULES } from '../../src/gateway/retry-rules.js';
import { GatewayClient, type SendManyResult } from '../../src/index.js';
import { PlatformClient } from '../../src/platform/index.js';
import { PLATFORM_RETRY_RULES } from '../../src/platform/retry-rules.js';
import { API_KEY, envelope, GW, useMswServer } from '../helpers/msw.js';
import { CONV, PLATFORM, STREAM, TOKEN } from '../helpers/platform.js';

const api = (status: number, code: string | null) =>
  new ApiError({ status, code, group: null, description: 'd', body: null });

describe('mayHaveBeenSent', () => {
  it.each([
    ['RATE_001', 429, false],
    ['AUTH_004', 500, false],
    ['AUTH_001', 401, false],
    ['BILL_001', 402, false],
    ['WABA_001', 401, false],
    // The upstream refused the message (an unregistered recipient, a closed window...): it did not go out.
    ['GW_001', 502, false],
    // A 502 without the gateway's envelope (a proxy's page): nothing says what happened.
    [null, 502, true],
    // Every 4xx the spec lists comes before forwarding: a validation code it does not show, or none, too.
    ['VAL_001', 400, false],
    [null, 400, false],
    [null, 403, false],
    // Not every 4xx: a proxy's 408 may come after it forwarded the request, and a redirect says nothing.
    [null, 408, true],
    [null, 303, true],
    [null, 0, true],
  ] as const)('gateway %s (%i) → %s', (code, status, sent) => {
    expect(mayHaveBeenSent(api(status, code), GATEWAY_RETRY_RULES)).toBe(sent);
  });

  it('every code the gateway retries is one it did not send', () => {
    for (const code of GATEWAY_RETRY_RULES.retryableCodes)
      expect(mayHaveBeenSent(api(500, code), GATEWAY_RETRY_RULES)).toBe(false);
  });

  it('GW_001 is never repeated, on any method, and proves nothing was sent', () => {
    const ctx = { attempt: 0, maxRetries: 2, maxRetryWaitMs: 60_000, retryInFlight: true };
    for (const idempotent of [false, true])
      expect(retryDelay(api(502, 'GW_001'), { ...ctx, idempotent }, GATEWAY_RETRY_RULES)).toBeNull();
    expect(retryDelay(api(502, null), { ...ctx, idempotent: true }, GATEWAY_RETRY_RULES)).not.toBeNull();
  });

  // AUTH_005 and SEC_001 are 500s: a GET (a media download) repeated them with backoff, to meet the same answer.
  it('a refused code is never repeated, on any method, even where its status would be', () => {
    const ctx = { attempt: 0, maxRetries: 2, maxRetryWaitMs: 60_000, retryInFlight: true };
    const status: Record<string, number> = { AUTH_005: 500, SEC_001: 500, GW_001: 502 };
    for (const code of GATEWAY_RETRY_RULES.refusedCodes ?? [])
      for (const idempotent of [false, true])
        expect(
          retryDelay(api(status[code] ?? 500, code), { ...ctx, idempotent }, GATEWAY_RETRY_RULES),
          code,
        ).toBeNull();
    expect(
      retryDelay(api(500, 'AUTH_004'), { ...ctx, idempotent: true }, GATEWAY_RETRY_RULES),
    ).not.toBeNull();
  });

  it.each([
    [400, false],
    [404, false],
    [429, false],
    [408, true],
    [500, true],
    [503, true],
  ])('platform %i → %s', (status, sent) => {
    expect(mayHaveBeenSent(api(status, null), PLATFORM_RETRY_RULES)).toBe(sent);
  });

  it('SDK errors that know say so; anything else may have been sent', () => {
    const rules = GATEWAY_RETRY_RULES;
    expect(mayHaveBeenSent(new ConnectionError('x', { mayHaveBeenSent: false }), rules)).toBe(false);
    expect(mayHaveBeenSent(new ConnectionError('x', { mayHaveBeenSent: true }), rules)).toBe(true);
    expect(mayHaveBeenSent(new InvalidResponseError('x', { status: 200, bodyExcerpt: '' }), rules)).toBe(
      true,
    );
    expect(mayHaveBeenSent(new NotSentError('x'), rules)).toBe(false);
    expect(mayHaveBeenSent(new Error('x'), rules)).toBe(true);
    expect(
      mayHaveBeenSent(
        new RateLimitError({ status: 429, code: null, group: null, description: 'd', body: null }),
        PLATFORM_RETRY_RULES,
      ),
    ).toBe(false);
  });
});

/**
 * "May have been sent" sticks across the attempts of one call: once an attempt was cut in flight (and repeated
 * under `retryInFlightSends`), neither a later refusal that alone proves nothing was done nor a stop during the
 * backoff may report the call as not sent.
 */
describe('an attempt cut in flight keeps its call "may have been sent"', () => {
  const server = useMswServer();
  const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
  const bill = () =>
    HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'balance exhausted'), { status: 402 });
  const warnings: string[] = [];
  const client = () =>
    new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      retryInFlightSends: true,
      logger: { warn: (m) => warnings.push(m) },
    });
  /** Attempt 1 is cut in flight; then each request gets `then` (or hangs when it is undefined). */
  function cutThen(then?: () => Response) {
    const seen = { count: 0 };
    server.use(
      http.post(`${GW}/v1/wa/message`, () => {
        seen.count++;
        if (seen.count === 1) return HttpResponse.error();
        return then ? then() : new Promise<Response>(() => {});
      }),
    );
    return seen;
  }
  /** Resolves once the transport starts its backoff after attempt 1 (the retry warning is logged first). */
  const backoffStarted = async () => {
    while (!warnings.includes('wa-gateway-sdk: retrying request')) await new Promise((r) => setTimeout(r, 5));
  };

  it('send: cut in flight, then 402 BILL_001 → PaymentRequiredError that says it may have been sent', async () => {
    warnings.length = 0;
    const seen = cutThen(bill);
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(seen.count).toBe(2);
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect(e).toMatchObject({ earlierAttemptMayHaveBeenSent: true });
    expect((e as Error).message).toMatch(/earlier attempt .* may have reached the server/);
    expect(mayHaveBeenSent(e, GATEWAY_RETRY_RULES)).toBe(true);
    expect(warnings).toEqual(['wa-gateway-sdk: retrying request']);
  });

  it('sendMany: cut in flight, then 402 BILL_001 → notSent: false', async () => {
    warnings.length = 0;
    cutThen(bill);
    const results: SendManyResult[] = [];
    for await (const r of client().messages.sendMany([text])) results.push(r);
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toBeInstanceOf(PaymentRequiredError);
    expect(r.notSent).toBe(false);
  });

  it('sendMany: cut in flight, then aborted during the backoff → the ConnectionError, notSent: false', async () => {
    warnings.length = 0;
    const seen = cutThen();
    const controller = new AbortController();
    const results: SendManyResult[] = [];
    const run = (async () => {
      for await (const r of client().messages.sendMany([text], { signal: controller.signal }))
        results.push(r);
    })();
    await backoffStarted();
    const reason = new Error('stop');
    controller.abort(reason);
    await run;
    expect(seen.count).toBe(1);
    const r = results[0]!;
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).not.toBeInstanceOf(NotSentError);
    expect(r.error).toBeInstanceOf(ConnectionError);
    expect(r.error).toMatchObject({ mayHaveBeenSent: true });
    expect(r.notSent).toBe(false);
    // Why the batch stopped is the error's cause: the batch's own "not sent", holding the caller's reason.
    const stop = r.error.cause;
    expect(stop).toBeInstanceOf(NotSentError);
    expect((stop as NotSentError).cause).toBe(reason);
  });

  it('send: cut in flight, then aborted during the backoff → the ConnectionError (may have been sent)', async () => {
    warnings.length = 0;
    cutThen();
    const controller = new AbortController();
    const p = client()
      .messages.send(text, { signal: controller.signal })
      .catch((x: unknown) => x);
    await backoffStarted();
    const reason = new Error('stop');
    controller.abort(reason);
    const e = await p;
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ mayHaveBeenSent: true });
    // The stop is not lost: its reason is the error's cause, and the message says the call was stopped.
    expect((e as Error).cause).toBe(reason);
    expect((e as Error).message).toMatch(/stopped before another attempt/);
  });

  it('a stop before anything may have gone out still ends with the caller’s reason', async () => {
    warnings.length = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        HttpResponse.json(envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow down', { retry_after: '30s' }), {
          status: 429,
        }),
      ),
    );
    const controller = new AbortController();
    const reason = new Error('stop');
    const p = client()
      .messages.send(text, { signal: controller.signal })
      .catch((x: unknown) => x);
    await backoffStarted();
    controller.abort(reason);
    expect(await p).toBe(reason);
  });
});

describe('the sentence settleAttempts adds reaches util.inspect, even after the stack was read', () => {
  const rules = { retryableCodes: [], neverRetryCodes: [], refusedCodes: ['BILL_001'] };
  const cut = () =>
    new ConnectionError('Connection was cut.', { mayHaveBeenSent: true, errno: 'ECONNRESET' });

  it('a refusal after an attempt cut in flight', () => {
    const refusal = new PaymentRequiredError({
      status: 402,
      code: 'BILL_001',
      group: 'BILLING',
      description: 'Balance is zero',
      body: null,
    });
    // An onResponse hook or an error reporter read it first: V8 fixed the stack's first line then.
    expect(refusal.stack).not.toContain('may have reached the server');
    const settled = settleAttempts(refusal, cut(), false, rules) as Error;
    expect(settled.message).toMatch(/may have reached the server: check before sending it again\.$/);
    expect(inspect(settled).split('\n')[0]).toBe(`PaymentRequiredError: ${settled.message}`);
    expect(settled.stack!.split('\n')[1]).toMatch(/^\s+at /);
  });

  it('a stop after an attempt cut in flight, the stack never read before', () => {
    const earlier = cut();
    const settled = settleAttempts(new Error('stopped'), earlier, true, rules) as Error;
    expect(settled).toBe(earlier);
    expect(inspect(settled).split('\n')[0]).toBe(`ConnectionError: ${settled.message}`);
    expect(settled.message.match(/The call was then stopped/g)).toHaveLength(1);
    expect(settled.stack!.match(/The call was then stopped/g)).toHaveLength(1);
  });
});

/**
 * What a caller reads: the error a call ends with says itself whether it may have been sent, by the table of the
 * service that answered, so a `catch` need not know the table.
 */
describe('ApiError.mayHaveBeenSent, set by the call', () => {
  const server = useMswServer();
  const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
  const gateway = () => new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, maxRetries: 0 });
  const answer = (body: () => Response) => server.use(http.post(`${GW}/v1/wa/message`, body));

  it.each([
    ['GW_001', 502, false],
    ['BILL_001', 402, false],
    ['AUTH_001', 401, false],
    ['RATE_001', 429, false],
    ['VAL_001', 400, false],
  ] as const)('gateway %s (%i) → %s', async (code, status, sent) => {
    answer(() => HttpResponse.json(envelope(code, 'G', 'd', { retry_after: '90s' }), { status }));
    const e = await gateway()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).mayHaveBeenSent).toBe(sent);
    expect((e as ApiError).toJSON()).toMatchObject({ mayHaveBeenSent: sent });
  });

  it('a 502 page without the gateway’s envelope may have been sent', async () => {
    answer(() => new HttpResponse('<html>Bad Gateway</html>', { status: 502 }));
    const e = await gateway()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ status: 502, code: null, mayHaveBeenSent: true });
  });

  it('a refusal after an attempt cut in flight says true', async () => {
    let seen = 0;
    answer(() =>
      ++seen === 1
        ? HttpResponse.error()
        : HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'balance exhausted'), { status: 402 }),
    );
    const client = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      retryInFlightSends: true,
      logger: { warn: () => {} },
    });
    const e = await client.messages.send(text).catch((x: unknown) => x);
    expect(seen).toBe(2);
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect(e).toMatchObject({ earlierAttemptMayHaveBeenSent: true, mayHaveBeenSent: true });
  });

  it.each([
    [400, false],
    [500, true],
  ])('platform send answered %i → %s', async (status, sent) => {
    server.use(http.post(`${PLATFORM}/v2/messages/`, () => HttpResponse.json({ detail: 'no' }, { status })));
    const platform = new PlatformClient({
      platformUrl: PLATFORM,
      streamUrl: STREAM,
      token: TOKEN,
      maxRetries: 0,
    });
    const e = await platform.messages
      .send(CONV, [{ type: 'text', content: 'Hello' }])
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).mayHaveBeenSent).toBe(sent);
  });

  it('is carried by the details a clearer error is built from, and true on one built by hand', () => {
    const answered = api(400, 'VAL_001');
    expect(answered.mayHaveBeenSent).toBe(true);
    const refused = new ApiError({ ...answered.details, mayHaveBeenSent: false });
    expect(new ApiError(refused.details).mayHaveBeenSent).toBe(false);
  });
});
