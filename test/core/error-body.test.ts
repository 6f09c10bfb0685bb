import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseRetryAfterHeader, toApiError } from '../../src/core/error-body.js';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  UpstreamError,
  WaGatewayError,
} from '../../src/core/errors.js';

const json = (body: unknown) => JSON.stringify(body);
const env = (code: string, group: string, description: string, extra: object = {}) =>
  json({ isSuccess: false, errors: { code, group, description, ...extra } });
const decode = (status: number, text: string, headers: Record<string, string> = {}, secrets: string[] = []) =>
  toApiError({
    status,
    text,
    headers: new Headers(headers),
    secrets,
    request: { method: 'POST', path: '/v1/wa/message' },
  });

describe('toApiError', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [402, PaymentRequiredError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [405, MethodNotAllowedError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [502, UpstreamError],
    [503, InternalServerError],
    [504, InternalServerError],
  ])('maps status %i to its class, for an envelope and for an HTML page alike', (status, Class) => {
    const fromEnvelope = decode(status, env('X_001', 'GROUP', 'what happened'));
    expect(fromEnvelope).toBeInstanceOf(Class);
    expect(fromEnvelope).toBeInstanceOf(ApiError);
    expect(fromEnvelope).toBeInstanceOf(WaGatewayError);
    expect(fromEnvelope.status).toBe(status);
    expect(fromEnvelope.code).toBe('X_001');
    const fromHtml = decode(status, '<html><body><h1>Bad Gateway</h1></body></html>', {
      'content-type': 'text/html',
    });
    expect(fromHtml).toBeInstanceOf(Class);
    expect(fromHtml.code).toBeNull();
    expect(fromHtml.description).toContain('non-JSON body (text/html)');
    expect(fromHtml.description).toContain('Bad Gateway');
  });

  // One table from the spec's codes to their statuses decides the class, whatever status the answer came with.
  it.each([
    ['BILL_001', PaymentRequiredError],
    ['RATE_001', RateLimitError],
    ['AUTH_001', AuthenticationError],
    ['AUTH_004', InternalServerError],
    ['GW_001', UpstreamError],
    ['ORGANIZATION_SECRET_011', AuthenticationError],
    ['UPSTREAM_017', ConflictError],
    ['APPLICATION_004', NotFoundError],
    ['WA_TPL_014', UnprocessableEntityError],
    ['UPSTREAM_026', UnprocessableEntityError],
    ['UPSTREAM_020', RateLimitError],
    ['UPSTREAM_019', PermissionDeniedError],
  ])('a known code is its class on a 200 and on another status: %s → %o', (code, Class) => {
    for (const status of [200, 400, 500]) {
      const e = decode(status, env(code, 'GROUP', 'what happened'));
      expect(e).toBeInstanceOf(Class);
      expect([e.status, e.code]).toEqual([status, code]);
    }
  });

  it('an unknown code, or none, follows the status', () => {
    expect(decode(200, env('VAL_001', 'VALIDATION', 'x')).constructor).toBe(ApiError);
    expect(decode(409, env('VAL_001', 'VALIDATION', 'x'))).toBeInstanceOf(ConflictError);
    expect(decode(402, json({ isSuccess: false }))).toBeInstanceOf(PaymentRequiredError);
    // A code named like a known one is not one: no prefix match but the spec's WA_TPL family.
    expect(decode(400, env('BILL_0011', 'X', 'x'))).toBeInstanceOf(BadRequestError);
  });

  it('reads `errors` given as a list by its first entry', () => {
    const e = decode(
      200,
      json({
        isSuccess: false,
        errors: [{ code: 'BILL_001', group: 'PAYMENT_REQUIRED', description: 'zero' }],
      }),
    );
    expect(e).toBeInstanceOf(PaymentRequiredError);
    expect(e).toMatchObject({ code: 'BILL_001', group: 'PAYMENT_REQUIRED', description: 'zero' });
  });

  it('keeps every envelope field and the raw body', () => {
    const e = decode(
      422,
      env('WA_TPL_014', 'VALIDATION', 'Body examples must match variables', {
        params: { expected: 2 },
        fields: {
          'body.examples': { code: 'WA_TPL_014', description: 'Count mismatch', params: { expected: 2 } },
        },
      }),
    );
    expect(e).toMatchObject({ code: 'WA_TPL_014', group: 'VALIDATION', params: { expected: 2 } });
    expect(e.fields).toEqual({
      'body.examples': { code: 'WA_TPL_014', description: 'Count mismatch', params: { expected: 2 } },
    });
    expect(e.issues).toEqual([
      { code: 'WA_TPL_014', field: 'body.examples', message: 'Count mismatch', params: { expected: 2 } },
    ]);
    expect(e.body).toMatchObject({ isSuccess: false });
    expect(e.request).toEqual({ method: 'POST', path: '/v1/wa/message' });
    expect(e.message).toBe('422 WA_TPL_014: Body examples must match variables (POST /v1/wa/message)');
  });

  it('reads RATE_001 params: retry_after as milliseconds and limit_type', () => {
    const sec = decode(
      429,
      env('RATE_001', 'TOO_MANY_REQUESTS', 'slow down', { params: { limit_type: 'sec', retry_after: '1s' } }),
    );
    expect(sec).toBeInstanceOf(RateLimitError);
    expect((sec as RateLimitError).retryAfterMs).toBe(1000);
    expect((sec as RateLimitError).limitType).toBe('sec');
    const min = decode(
      429,
      env('RATE_001', 'TOO_MANY_REQUESTS', 'slow down', {
        params: { limit_type: 'min', retry_after: '60s' },
      }),
    );
    expect((min as RateLimitError).retryAfterMs).toBe(60_000);
    expect((min as RateLimitError).limitType).toBe('min');
  });

  it('falls back to the Retry-After header, and ignores an unreadable retry_after', () => {
    const e = decode(429, env('RATE_001', 'T', 'd', { params: { retry_after: 'soon' } }), {
      'retry-after': '3',
    });
    expect((e as RateLimitError).retryAfterMs).toBe(3000);
    const none = decode(429, '');
    expect((none as RateLimitError).retryAfterMs).toBeUndefined();
  });

  it.each([
    ['2, 2', 2000],
    ['1, 2', 1000],
    [' 7 ', 7000],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 7000],
    ['Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT', 7000],
    ['Sun, 06 Nov 1994 08:49:00 GMT', 0],
    ['1.5', undefined],
    ['2 seconds', undefined],
    ['Sunday, 06-Nov-94 08:49:37 GMT', undefined],
    ['tomorrow', undefined],
    ['2001', 2_001_000],
  ])(
    'reads the Retry-After header %j as %j ms (delay-seconds or IMF-fixdate, first of a list)',
    (value, ms) => {
      const now = Date.parse('1994-11-06T08:49:30Z');
      expect(parseRetryAfterHeader(value, now)).toBe(ms);
      if (ms !== undefined && ms < 10_000)
        expect(
          (decode(429, '', { 'retry-after': value }) as RateLimitError).retryAfterMs,
        ).toBeLessThanOrEqual(ms);
    },
  );

  it('reads the platform plain bodies', () => {
    expect(decode(403, json({ detail: 'Invalid auth key.' })).description).toBe('Invalid auth key.');
    expect(decode(400, json({ error: 'Undefined range' })).description).toBe('Undefined range');
    expect(decode(400, json({ info: 'field x', error: 'bad value' })).description).toBe('bad value field x');
    expect(decode(400, json({ non_field_errors: ['Unable to log in', 'second'] })).description).toBe(
      'Unable to log in second',
    );
  });

  it('survives empty, truncated and non-object bodies', () => {
    expect(decode(502, '').description).toBe('HTTP 502 with an empty body');
    const truncated = decode(500, '{"isSuccess":false,"errors":{"code":"AUTH_0');
    expect(truncated).toBeInstanceOf(InternalServerError);
    expect(truncated.code).toBeNull();
    expect(decode(400, '[1,2]').description).toContain('[1,2]');
    expect(decode(400, 'null').description).toContain('null');
  });

  it('shortens a huge body to an excerpt', () => {
    const e = decode(500, `<html>${'x'.repeat(100_000)}</html>`);
    expect(e.description.length).toBeLessThan(400);
    expect(String(e.body).length).toBeLessThan(600);
  });

  it('scrubs a registered secret that the server echoed back', () => {
    const secret = 'pk_live_abcdef1234567890';
    const e = decode(401, env('AUTH_001', 'UNAUTHORIZED', `Key ${secret} not found`), {}, [secret]);
    expect(e.description).toBe('Key [redacted] not found');
    expect(JSON.stringify(e)).not.toContain(secret);
    expect(inspect(e)).not.toContain(secret);
    const html = decode(502, `<p>Authorization: Bearer ${secret}</p>`, {}, [secret]);
    expect(JSON.stringify(html)).not.toContain(secret);
  });

  it('serialises to JSON with its public fields', () => {
    const e = decode(402, env('BILL_001', 'PAYMENT_REQUIRED', 'Balance is zero'));
    expect(JSON.parse(JSON.stringify(e))).toMatchObject({
      name: 'PaymentRequiredError',
      status: 402,
      code: 'BILL_001',
      group: 'PAYMENT_REQUIRED',
      description: 'Balance is zero',
    });
    expect(inspect(e)).toContain('PaymentRequiredError: 402 BILL_001: Balance is zero');
  });
});

describe('ApiError.details', () => {
  it('carries every decoded part, so a clearer error about the same answer loses nothing', () => {
    const e = decode(
      422,
      env('WA_TPL_014', 'VALIDATION', 'mismatch', {
        params: { n: 2 },
        fields: { 'body.examples': { code: 'WA_TPL_014' } },
      }),
      { 'x-request-id': 'req-1' },
    );
    const again = new UnprocessableEntityError(e.details, 'clearer words');
    expect(again.message).toBe('clearer words');
    expect(again.toJSON()).toEqual({ ...e.toJSON(), message: 'clearer words' });
    expect(JSON.stringify(e)).not.toContain('"details"');
  });
});
