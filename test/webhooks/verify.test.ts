import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WaGatewayError } from '../../src/core/errors.js';
import {
  RawBodyRequiredError,
  signUpstreamBody,
  verifyAuthorization,
  verifyUpstreamSignature,
} from '../../src/webhooks/index.js';

const SECRET = 'wh_0123456789abcdefghijklmnopqrstuv';
const OLD = 'wh_old_secret_zyxwvutsrqponmlkjihgfe';

describe('verifyAuthorization', () => {
  it('accepts the exact Bearer secret', () => {
    expect(verifyAuthorization(`Bearer ${SECRET}`, SECRET)).toBe(true);
  });

  it('matches the scheme case-insensitively and tolerates surrounding whitespace', () => {
    expect(verifyAuthorization(`bearer ${SECRET}`, SECRET)).toBe(true);
    expect(verifyAuthorization(`BEARER ${SECRET}`, SECRET)).toBe(true);
    expect(verifyAuthorization(`  Bearer ${SECRET}  `, SECRET)).toBe(true);
  });

  it('refuses a wrong secret, including ones differing by one character or by length', () => {
    expect(verifyAuthorization(`Bearer ${SECRET.slice(0, -1)}X`, SECRET)).toBe(false);
    expect(verifyAuthorization(`Bearer ${SECRET.slice(0, -1)}`, SECRET)).toBe(false);
    expect(verifyAuthorization(`Bearer ${SECRET}x`, SECRET)).toBe(false);
    expect(verifyAuthorization(`Bearer ${SECRET}${SECRET}`, SECRET)).toBe(false);
    expect(verifyAuthorization('Bearer x', SECRET)).toBe(false);
    expect(verifyAuthorization(`Bearer ${'a'.repeat(10_000)}`, SECRET)).toBe(false);
  });

  it('refuses every other form', () => {
    for (const header of [
      undefined,
      null,
      '',
      SECRET,
      `Basic ${SECRET}`,
      `Token ${SECRET}`,
      `Bearer`,
      `Bearer `,
      `Bearer\t${SECRET}`,
      `Bearer${SECRET}`,
      `Bearer ${SECRET} extra`,
      `Bearer  ${SECRET} ${SECRET}`,
      `Bearer: ${SECRET}`,
    ]) {
      expect(verifyAuthorization(header, SECRET), String(header)).toBe(false);
    }
    expect(verifyAuthorization([`Bearer ${SECRET}`], SECRET)).toBe(false);
  });

  it('reads a token outside printable ASCII by the same whitespace rule', () => {
    // Unicode whitespace inside the token splits it in two: refused, even when the secret holds the same text.
    for (const space of ['\u00a0', '\u2028', '\u3000', '\ufeff', '\v']) {
      const split = `wh_${space}rest`;
      expect(verifyAuthorization(`Bearer ${split}`, split), JSON.stringify(space)).toBe(false);
    }
    // Any other character is part of the token, and compared like the rest.
    const unicode = 'wh_clé_秘密_0123456789';
    expect(verifyAuthorization(`Bearer ${unicode}`, unicode)).toBe(true);
    expect(verifyAuthorization(`Bearer ${unicode}`, `${unicode.slice(0, -1)}8`)).toBe(false);
    expect(verifyAuthorization(`Bearer \u0001${SECRET}`, `\u0001${SECRET}`)).toBe(true);
  });

  it('accepts any secret of a rotation list, and only those', () => {
    expect(verifyAuthorization(`Bearer ${SECRET}`, [OLD, SECRET])).toBe(true);
    expect(verifyAuthorization(`Bearer ${OLD}`, [OLD, SECRET])).toBe(true);
    expect(verifyAuthorization('Bearer other', [OLD, SECRET])).toBe(false);
  });

  it('never matches an empty secret', () => {
    expect(verifyAuthorization('Bearer ', '')).toBe(false);
    expect(verifyAuthorization('Bearer x', ['', ''])).toBe(false);
    expect(verifyAuthorization('Bearer x', [])).toBe(false);
  });
});

describe('upstream signature', () => {
  const body = '{"object":"whatsapp_business_account","entry":[]}';
  const appSecret = 'upstream-app-secret';
  const expected = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

  it('signUpstreamBody matches an independent HMAC-SHA256 (node:crypto)', async () => {
    expect(await signUpstreamBody(body, appSecret)).toBe(expected);
    expect(await signUpstreamBody(new TextEncoder().encode(body), appSecret)).toBe(expected);
  });

  it('verifies string, Uint8Array and ArrayBuffer bodies; hex case-insensitive', async () => {
    const bytes = new TextEncoder().encode(body);
    expect(await verifyUpstreamSignature(body, expected, appSecret)).toBe(true);
    expect(await verifyUpstreamSignature(bytes, expected, appSecret)).toBe(true);
    expect(await verifyUpstreamSignature(bytes.buffer.slice(0), expected, appSecret)).toBe(true);
    expect(
      await verifyUpstreamSignature(body, expected.toUpperCase().replace('SHA256=', 'sha256='), appSecret),
    ).toBe(true);
  });

  it('refuses a changed body, a wrong secret, and malformed headers', async () => {
    expect(await verifyUpstreamSignature(`${body} `, expected, appSecret)).toBe(false);
    expect(await verifyUpstreamSignature(body, expected, 'other')).toBe(false);
    for (const header of [
      undefined,
      null,
      '',
      expected.slice(7),
      `sha1=${expected.slice(7)}`,
      expected.slice(0, -1),
      `${expected}0`,
      `${expected.slice(0, -1)}g`,
    ]) {
      expect(await verifyUpstreamSignature(body, header, appSecret), String(header)).toBe(false);
    }
  });

  it('accepts any secret of a rotation list', async () => {
    expect(await verifyUpstreamSignature(body, expected, ['old-secret', appSecret])).toBe(true);
    expect(await verifyUpstreamSignature(body, expected, ['old-secret', ''])).toBe(false);
  });

  it('throws a clear error for a parsed object instead of answering false', async () => {
    const parsed = JSON.parse(body) as object;
    const attempt = verifyUpstreamSignature(parsed as never, expected, appSecret);
    await expect(attempt).rejects.toBeInstanceOf(RawBodyRequiredError);
    await expect(verifyUpstreamSignature(parsed as never, expected, appSecret)).rejects.toBeInstanceOf(
      WaGatewayError,
    );
    await expect(verifyUpstreamSignature(parsed as never, undefined, appSecret)).rejects.toThrow(
      /raw request body/,
    );
    await expect(verifyUpstreamSignature(parsed as never, expected, appSecret)).rejects.toThrow(
      /got a parsed object: a body parser already ran/,
    );
  });

  it('says "no body reached it" for an empty req.body (a raw parser that did not match), not "a parser ran"', async () => {
    for (const empty of [undefined, null]) {
      const attempt = verifyUpstreamSignature(empty as never, expected, appSecret);
      await expect(attempt).rejects.toBeInstanceOf(RawBodyRequiredError);
      await expect(verifyUpstreamSignature(empty as never, expected, appSecret)).rejects.toThrow(
        `got ${String(empty)}: no body reached it`,
      );
      await expect(verifyUpstreamSignature(empty as never, expected, appSecret)).rejects.toThrow(
        "express.raw({ type: 'application/json' })",
      );
    }
    await expect(verifyUpstreamSignature(42 as never, expected, appSecret)).rejects.toThrow('got a number');
  });
});

describe('non-ASCII bodies', () => {
  const secret = 'app-secret-for-unicode-tests';
  const raw = JSON.stringify({ entry: [{ text: 'Café 👍 — olá' }] });
  const escaped = raw.replace(
    /[\u0080-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

  it('accepts a signature over the raw UTF-8 bytes', async () => {
    expect(await verifyUpstreamSignature(raw, await signUpstreamBody(raw, secret), secret)).toBe(true);
  });

  it('accepts a signature over the \\uXXXX-escaped form, as the upstream signs', async () => {
    expect(escaped).toContain('\\ud83d\\udc4d');
    expect(await verifyUpstreamSignature(raw, await signUpstreamBody(escaped, secret), secret)).toBe(true);
  });

  it('still refuses a tampered body, in either form', async () => {
    const signature = await signUpstreamBody(escaped, secret);
    expect(await verifyUpstreamSignature(raw.replace('Café', 'Cafe'), signature, secret)).toBe(false);
    expect(await verifyUpstreamSignature(raw, signature, 'another-secret')).toBe(false);
  });
});
