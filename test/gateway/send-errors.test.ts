import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  type ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  GatewayClient,
  InternalServerError,
  InvalidResponseError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  UpstreamError,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { API_KEY, envelope, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
const client = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
  new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, ...extra });

/** Answers each request with the next response of the list (the last one repeats) and counts requests. */
function sequence(...responses: (() => Response)[]) {
  const seen = { count: 0 };
  server.use(
    http.post(`${GW}/v1/wa/message`, () => {
      const next = responses[Math.min(seen.count, responses.length - 1)]!;
      seen.count++;
      return next();
    }),
  );
  return seen;
}
const err = (status: number, code: string, group: string, params?: object) => () =>
  HttpResponse.json(envelope(code, group, `${code} happened`, params), { status });
const ok = () => HttpResponse.json(sendOk());
const RETRYING = 'wa-gateway-sdk: retrying request';

describe('gateway error table: each code becomes its class and is retried (or not) as the spec allows', () => {
  it.each([
    ['AUTH_001', 401, 'UNAUTHORIZED', AuthenticationError],
    ['AUTH_002', 401, 'UNAUTHORIZED', AuthenticationError],
    ['AUTH_003', 401, 'UNAUTHORIZED', AuthenticationError],
    ['AUTH_005', 500, 'INTERNAL_ERROR', InternalServerError],
    ['BILL_001', 402, 'PAYMENT_REQUIRED', PaymentRequiredError],
    ['BILL_002', 400, 'BAD_REQUEST', BadRequestError],
    ['WABA_001', 401, 'UNAUTHORIZED', AuthenticationError],
    ['SEC_001', 500, 'INTERNAL_ERROR', InternalServerError],
    ['GW_001', 502, 'UPSTREAM_ERROR', UpstreamError],
  ] as const)('%s (%i) → %o, sent once, not retried', async (code, status, group, Class) => {
    const seen = sequence(err(status, code, group));
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Class);
    expect(e).toMatchObject({ status, code, group, description: `${code} happened` });
    expect(seen.count).toBe(1);
  });

  it('AUTH_004 (auth service down, nothing forwarded) is retried with backoff', async () => {
    const seen = sequence(err(500, 'AUTH_004', 'INTERNAL_ERROR'), ok);
    const log = captureLogger();
    const r = await client({ logger: log.logger }).messages.send(text);
    expect(r.messageId).toBe('wamid.HBgM0001');
    expect(seen.count).toBe(2);
    expect(log.lines).toEqual([
      { level: 'warn', message: RETRYING, meta: expect.objectContaining({ code: 'AUTH_004', attempt: 1 }) },
    ]);
  });

  it('AUTH_004 gives up after maxRetries and throws the last error', async () => {
    const seen = sequence(err(500, 'AUTH_004', 'INTERNAL_ERROR'));
    const log = captureLogger();
    await expect(client({ maxRetries: 1, logger: log.logger }).messages.send(text)).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(seen.count).toBe(2);
    expect(log.messages()).toEqual([RETRYING]);
  });

  it('RATE_001 sec waits retry_after, then retries', async () => {
    const seen = sequence(
      err(429, 'RATE_001', 'TOO_MANY_REQUESTS', { limit_type: 'sec', retry_after: '1s' }),
      ok,
    );
    const t0 = performance.now();
    const log = captureLogger();
    await client({ logger: log.logger }).messages.send(text);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(990);
    expect(seen.count).toBe(2);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: RETRYING,
        meta: expect.objectContaining({ code: 'RATE_001', delayMs: 1000 }),
      },
    ]);
  });

  it('RATE_001 min with retry_after beyond maxRetryWaitMs is returned to the caller at once', async () => {
    const seen = sequence(
      err(429, 'RATE_001', 'TOO_MANY_REQUESTS', { limit_type: 'min', retry_after: '60s' }),
      ok,
    );
    const e = await client({ maxRetryWaitMs: 5000 })
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect(e).toMatchObject({ limitType: 'min', retryAfterMs: 60_000, code: 'RATE_001' });
    expect(seen.count).toBe(1);
  });

  it('RATE_001 stops after maxRetries', async () => {
    const seen = sequence(
      err(429, 'RATE_001', 'TOO_MANY_REQUESTS', { limit_type: 'sec', retry_after: '0.01s' }),
    );
    const log = captureLogger();
    await expect(client({ maxRetries: 3, logger: log.logger }).messages.send(text)).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(seen.count).toBe(4);
    // Three retries in one burst: the first is logged, the others are folded into a count logged later.
    expect(log.messages()[0]).toBe(RETRYING);
    for (const message of log.messages()) expect(message.startsWith(RETRYING)).toBe(true);
  });

  it('a 5xx HTML page from a proxy is not retried for a send (it may have been forwarded)', async () => {
    const seen = sequence(
      () =>
        new HttpResponse('<html>502 Bad Gateway</html>', {
          status: 502,
          headers: { 'content-type': 'text/html' },
        }),
    );
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UpstreamError);
    expect((e as UpstreamError).code).toBeNull();
    expect((e as UpstreamError).description).toContain('502 Bad Gateway');
    expect(seen.count).toBe(1);
  });

  it('a connection error during a send is not retried and says the message may be out', async () => {
    const seen = sequence(() => HttpResponse.error());
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ mayHaveBeenSent: true });
    expect((e as Error).message).toMatch(/may have reached the server/);
    expect(seen.count).toBe(1);
  });

  it('retryInFlightSends opts in to retrying a send that failed in flight', async () => {
    const seen = sequence(() => HttpResponse.error(), ok);
    const log = captureLogger();
    const r = await client({ retryInFlightSends: true, logger: log.logger }).messages.send(text);
    expect(r.messageId).toBe('wamid.HBgM0001');
    expect(seen.count).toBe(2);
    expect(log.lines).toEqual([
      { level: 'warn', message: RETRYING, meta: expect.objectContaining({ error: 'ConnectionError' }) },
    ]);
  });

  it('a 200 with truncated JSON is an InvalidResponseError that warns against resending', async () => {
    sequence(() => new HttpResponse('{"isSuccess":true,"data":{"messages":[{"id":"wam', { status: 200 }));
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect((e as Error).message).toMatch(/do not resend/);
  });

  it('a 200 without a message id is an InvalidResponseError', async () => {
    sequence(() => HttpResponse.json({ isSuccess: true, data: { messages: [] } }));
    await expect(client().messages.send(text)).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it('a 200 carrying the failure envelope is still a failure', async () => {
    sequence(() => HttpResponse.json(envelope('GW_001', 'UPSTREAM_ERROR', 'upstream said no')));
    await expect(client().messages.send(text)).rejects.toMatchObject({ code: 'GW_001' });
  });

  // The class follows the gateway's code (its table in the spec), whatever the status: a proxy or a gateway
  // version that answers failures with a 200 must not turn a BILL_001 into an error a batch cannot stop on.
  it.each([
    ['BILL_001', 'PAYMENT_REQUIRED', PaymentRequiredError],
    ['AUTH_001', 'UNAUTHORIZED', AuthenticationError],
    ['BILL_002', 'BAD_REQUEST', BadRequestError],
    ['GW_001', 'UPSTREAM_ERROR', UpstreamError],
    ['SEC_001', 'INTERNAL_ERROR', InternalServerError],
  ] as const)('a 200 carrying %s is its class, with the real status', async (code, group, Class) => {
    const seen = sequence(() => HttpResponse.json(envelope(code, group, `${code} happened`)));
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Class);
    expect(e).toMatchObject({ status: 200, code, description: `${code} happened` });
    expect(seen.count).toBe(1);
  });

  it('a 200 carrying the envelope with `errors` as a list is typed by its first code, not InvalidResponseError', async () => {
    sequence(() =>
      HttpResponse.json({
        isSuccess: false,
        errors: [{ code: 'BILL_001', group: 'PAYMENT_REQUIRED', description: 'Balance is zero' }],
      }),
    );
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect(e).toMatchObject({ status: 200, code: 'BILL_001', description: 'Balance is zero' });
  });

  it('a 200 carrying RATE_001 is retried after its retry_after, like a 429', async () => {
    const seen = sequence(
      () =>
        HttpResponse.json(
          envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow down', { limit_type: 'sec', retry_after: '0s' }),
        ),
      ok,
    );
    const log = captureLogger();
    const r = await client({ logger: log.logger }).messages.send(text);
    expect(r.messageId).toBe('wamid.HBgM0001');
    expect(seen.count).toBe(2);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: RETRYING,
        meta: expect.objectContaining({ error: 'RateLimitError', code: 'RATE_001', status: 200 }),
      },
    ]);
  });

  it("a 4xx whose code the table names otherwise is the code's class (400 BILL_001 → PaymentRequiredError)", async () => {
    sequence(err(400, 'BILL_001', 'PAYMENT_REQUIRED'));
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect(e).toMatchObject({ status: 400, code: 'BILL_001' });
  });

  // Every 4xx the spec lists is answered before forwarding (the upstream's refusal is a 502), so a code the table
  // lacks, or none, proves nothing went out: they said "may have been sent", and a campaign put them in doubt.
  it.each([
    [
      '400 with a validation code the spec does not show',
      err(400, 'VAL_017', 'BAD_REQUEST'),
      BadRequestError,
    ],
    [
      '403 with no envelope (a proxy in front)',
      () => new HttpResponse('Forbidden', { status: 403 }),
      PermissionDeniedError,
    ],
    ['401 with no code', () => HttpResponse.json({ message: 'no' }, { status: 401 }), AuthenticationError],
  ])('a %s was not sent, and is not retried', async (_name, answer, errorClass) => {
    const seen = sequence(answer);
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(errorClass);
    expect((e as ApiError).mayHaveBeenSent).toBe(false);
    expect(seen.count).toBe(1);
    const results: unknown[] = [];
    for await (const result of client().messages.sendMany([text])) results.push(result);
    expect(results).toMatchObject([{ ok: false, notSent: true }]);
  });

  it('a 429 without a code is retried as RATE_001, and its final error says not sent', async () => {
    const seen = sequence(() => new HttpResponse('Too Many Requests', { status: 429 }));
    const e = await client({ maxRetries: 1, logger: captureLogger().logger })
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).mayHaveBeenSent).toBe(false);
    expect(seen.count).toBe(2);
  });
});

describe('timeouts and aborts', () => {
  it('times out with TimeoutError and does not retry a send', async () => {
    const seen = { count: 0 };
    server.use(
      http.post(`${GW}/v1/wa/message`, async () => {
        seen.count++;
        await new Promise((r) => setTimeout(r, 1000));
        return ok();
      }),
    );
    const e = await client()
      .messages.send(text, { timeoutMs: 50 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ timeoutMs: 50, mayHaveBeenSent: true });
    expect(seen.count).toBe(1);
  });

  it("an abort rejects with the caller's own reason", async () => {
    server.use(http.post(`${GW}/v1/wa/message`, async () => new Promise<Response>(() => {})));
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const p = client().messages.send(text, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 20);
    await expect(p).rejects.toBe(reason);
  });

  it('an abort also cancels the wait between retries', async () => {
    const seen = sequence(
      err(429, 'RATE_001', 'TOO_MANY_REQUESTS', { limit_type: 'sec', retry_after: '30s' }),
    );
    const controller = new AbortController();
    const log = captureLogger();
    const p = client({ logger: log.logger }).messages.send(text, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 100);
    const t0 = performance.now();
    await expect(p).rejects.toThrow('stop');
    // Far below the 30 s retry_after: the wait was cancelled (a failure bound, generous for a busy machine).
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(seen.count).toBe(1);
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
  });
});
