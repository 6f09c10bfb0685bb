/**
 * "Was it sent?" is one rule read from each client's retry table: the codes answered before anything was done,
 * a 4xx from a server that checks before acting, and the SDK errors that know.
 */
import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/core/api-errors.js';
import { ApiError, ConnectionError, InvalidResponseError, NotSentError } from '../../src/core/errors.js';
import { mayHaveBeenSent } from '../../src/core/retry-policy.js';
import { GATEWAY_RETRY_RULES } from '../../src/gateway/retry-rules.js';
import { PLATFORM_RETRY_RULES } from '../../src/platform/client.js';

const api = (status: number, code: string | null) =>
  new ApiError({ status, code, group: null, description: 'd', body: null });

describe('mayHaveBeenSent', () => {
  it.each([
    ['RATE_001', 429, false],
    ['AUTH_004', 500, false],
    ['AUTH_001', 401, false],
    ['BILL_001', 402, false],
    ['WABA_001', 401, false],
    ['GW_001', 502, true],
    ['VAL_001', 400, true],
    [null, 400, true],
  ] as const)('gateway %s (%i) → %s', (code, status, sent) => {
    expect(mayHaveBeenSent(api(status, code), GATEWAY_RETRY_RULES)).toBe(sent);
  });

  it('every code the gateway retries is one it did not send', () => {
    for (const code of GATEWAY_RETRY_RULES.retryableCodes)
      expect(mayHaveBeenSent(api(500, code), GATEWAY_RETRY_RULES)).toBe(false);
  });

  it.each([
    [400, false],
    [404, false],
    [429, false],
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
    expect(mayHaveBeenSent(new NotSentError('x'), rules)).toBe(true);
    expect(mayHaveBeenSent(new Error('x'), rules)).toBe(true);
    expect(
      mayHaveBeenSent(
        new RateLimitError({ status: 429, code: null, group: null, description: 'd', body: null }),
        PLATFORM_RETRY_RULES,
      ),
    ).toBe(false);
  });
});
