/** Scrubbing: the base64 forms of a secret, deep bodies, and the copy of a thrown error kept as a cause. */
import { describe, expect, it } from 'vitest';
import { REDACTED, scrub, scrubError, scrubValue } from '../../src/core/secrets.js';

const SECRET = 'sk_live_0123456789abcdefXYZ';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('base64 forms', () => {
  it('a secret of a million bytes is scrubbed, not a stack overflow', () => {
    const long = `sk_${'a1B2c3'.repeat(200_000)}`;
    expect(scrub(`key=${b64(long)}`, [long])).toBe(`key=${REDACTED}`);
  });

  it.each([
    ['standard', b64(SECRET)],
    ['url-safe', b64(SECRET).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')],
    ['inside Basic user:secret', `Basic ${b64(`user:${SECRET}`)}`],
    ['after one byte', b64(`x${SECRET}`)],
    ['after two bytes, followed by more', b64(`xy${SECRET}tail`)],
  ])('%s', (_, text) => {
    const out = scrub(`header: ${text}`, [SECRET]);
    expect(out).toContain(REDACTED);
    // What is left of the encoded text cannot be decoded back to the secret.
    for (const shift of ['', 'a', 'ab']) {
      const decoded = Buffer.from(out.replace('header: ', '').replace('Basic ', ''), 'base64').toString();
      expect(decoded + shift).not.toContain(SECRET);
    }
  });

  it('leaves text without the secret alone', () => {
    expect(scrub('nothing to see: aGVsbG8gd29ybGQ=', [SECRET])).toBe('nothing to see: aGVsbG8gd29ybGQ=');
  });
});

describe('scrubValue', () => {
  it('cuts a branch deeper than its limit instead of passing its secrets on', () => {
    let deep: unknown = { key: SECRET };
    for (let i = 0; i < 50; i++) deep = { n: deep };
    expect(JSON.stringify(scrubValue(deep, [SECRET]))).not.toContain(SECRET);
  });
});

describe('scrubError', () => {
  it('keeps name, code and syscall, scrubs messages down the cause chain', () => {
    const inner = Object.assign(new Error(`connect ECONNREFUSED with ${SECRET}`), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      request: { headers: { authorization: SECRET } },
    });
    const outer = new TypeError('fetch failed', { cause: inner });
    const copy = scrubError(outer, [SECRET]);
    expect(copy?.name).toBe('TypeError');
    const cause = copy?.cause as Error & { code?: string; syscall?: string };
    expect(cause).toMatchObject({ code: 'ECONNREFUSED', syscall: 'connect' });
    expect(cause.message).toBe(`connect ECONNREFUSED with ${REDACTED}`);
    expect(JSON.stringify({ ...cause, m: cause.message })).not.toContain(SECRET);
  });
});
