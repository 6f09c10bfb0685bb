/**
 * Authenticating webhook requests, with Web APIs only (TextEncoder, WebCrypto): this runs on Node, Bun, Deno and
 * Workers alike.
 *
 * - `verifyAuthorization`: the gateway's `Authorization: Bearer <WEBHOOK_SECRET>` header. Needs only the header,
 *   so it works whatever a framework did to the body.
 * - `verifyUpstreamSignature`: the upstream platform's `X-Hub-Signature-256: sha256=<hex>` HMAC over the raw body
 *   bytes. Needs the exact bytes, which a JSON body parser destroys.
 */

import { brandError, WaGatewayError } from '../core/errors.js';
import { bytesOf } from './body.js';

const encoder = new TextEncoder();

// Longer tokens are refused before any comparison: no real secret is this long, and it bounds the work an
// unauthenticated request can cause.
const MAX_TOKEN_BYTES = 4096;

/**
 * The signature helper was given a parsed object instead of the raw body. HMAC is computed over the exact bytes
 * received; re-serialising parsed JSON changes them (spacing, key order, escapes), so no answer is possible.
 */
export class RawBodyRequiredError extends WaGatewayError {
  override name = 'RawBodyRequiredError';
  constructor() {
    super(
      'verifyUpstreamSignature needs the raw request body (a string, Uint8Array or ArrayBuffer), but got a parsed ' +
        'object: a JSON body parser already ran, and re-serialised JSON does not have the bytes that were signed. ' +
        'Mount the webhook route before any JSON body parser, or use a raw body parser for it.',
    );
  }
}
brandError(RawBodyRequiredError, 'RawBodyRequiredError');

function toSecretList(secret: string | readonly string[]): readonly string[] {
  return typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
}

/**
 * XOR-accumulating comparison of two byte arrays. Runs over the full length of `expected` whatever the content of
 * `actual`, so the time taken says nothing about how many leading bytes matched.
 */
function bytesEqual(actual: Uint8Array, expected: Uint8Array): boolean {
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (actual[i] ?? 0) ^ (expected[i] ?? 0);
  return diff === 0;
}

/**
 * Constant-time equality of two strings, code unit by code unit: the same answer as comparing their UTF-8 bytes
 * (stricter for lone surrogates, which UTF-8 encoding would turn into the same replacement character), without
 * encoding either on every delivery (a tenth of a small delivery's verify+parse, docs/benchmarks.md).
 */
function textEqual(actual: string, expected: string): boolean {
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (actual.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return diff === 0;
}

/**
 * Extracts the token of a `Bearer <token>` header value. The scheme is case-insensitive (RFC 7235); one or more
 * spaces separate it from a single token; anything else (another scheme, no token, two tokens) is `null`.
 */
function bearerToken(headerValue: string): string | null {
  const value = headerValue.trim();
  if (value.length < 7 || value.slice(0, 6).toLowerCase() !== 'bearer' || value.charCodeAt(6) !== 0x20)
    return null;
  const token = value.slice(7).trimStart();
  if (token === '' || /\s/.test(token)) return null;
  return token;
}

/**
 * Checks the gateway's `Authorization: Bearer <WEBHOOK_SECRET>` header in constant time. Pass several secrets
 * during a rotation: the header is compared with every one of them (no early exit), so valid traffic signed with
 * either the old or the new secret is accepted. Empty secrets never match. Any header that is not exactly
 * `Bearer <token>` is refused.
 *
 * @example
 * if (!verifyAuthorization(request.headers.get('authorization'), [process.env.WEBHOOK_SECRET!, oldSecret])) {
 *   return new Response(null, { status: 401 });
 * }
 */
export function verifyAuthorization(
  headerValue: string | readonly string[] | null | undefined,
  secret: string | readonly string[],
): boolean {
  return authorizationFailure(headerValue, secret) === null;
}

/**
 * Why an `Authorization` header is refused, or `null` when it carries one of the secrets: `missing` (no header),
 * `malformed` (not `Bearer <token>`: another scheme, no token, a bare secret without `Bearer `) or `mismatch` (a
 * Bearer token that is none of the secrets). The handlers tell the three apart in their 401, so whoever set up the
 * sender knows what to change; none of them says anything about the secret itself.
 * @internal
 */
export function authorizationFailure(
  headerValue: string | readonly string[] | null | undefined,
  secret: string | readonly string[],
): 'missing' | 'malformed' | 'mismatch' | null {
  if (headerValue === undefined || headerValue === null || headerValue === '') return 'missing';
  // Node joins no duplicates for Authorization, but a structural caller may hand over an array: take no guess.
  if (typeof headerValue !== 'string') return 'malformed';
  const token = bearerToken(headerValue);
  if (token === null) return 'malformed';
  // A UTF-16 code unit is at least one UTF-8 byte: a token longer than this in units is longer in bytes too.
  if (token.length > MAX_TOKEN_BYTES) return 'mismatch';
  let matched = false;
  for (const candidate of toSecretList(secret)) {
    if (typeof candidate !== 'string' || candidate.length === 0) continue;
    // The comparison runs before `||` looks at `matched`: every secret is compared whichever one matches, so
    // timing does not tell which one did.
    matched = textEqual(token, candidate) || matched;
  }
  return matched ? null : 'mismatch';
}

/** Raw body bytes from any of the accepted forms; throws `RawBodyRequiredError` for a parsed object. */
function rawBytes(rawBody: unknown): Uint8Array {
  const bytes = bytesOf(rawBody);
  if (bytes === undefined) throw new RawBodyRequiredError();
  return bytes;
}

function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new WaGatewayError('WebCrypto (globalThis.crypto.subtle) is not available in this runtime');
  return s;
}

/** Imports an HMAC-SHA256 key. Exported for the handlers, which import their keys once at creation. */
export function importHmacKey(secret: string): Promise<CryptoKey> {
  return subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
}

async function hmac(key: CryptoKey, bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', key, bytes as Uint8Array<ArrayBuffer>));
}

const HEX = '0123456789abcdef';

function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += HEX[b >> 4]! + HEX[b & 15]!;
  return out;
}

/** The 32 bytes of a `sha256=<64 hex>` header, or `null` when it is not in that form. */
function signatureBytes(header: string): Uint8Array | null {
  const value = header.trim();
  if (value.length !== 71 || value.slice(0, 7).toLowerCase() !== 'sha256=') return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const hi = parseInt(value[7 + i * 2]!, 16);
    const lo = parseInt(value[8 + i * 2]!, 16);
    if (Number.isNaN(hi) || Number.isNaN(lo)) return null;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * Core of `verifyUpstreamSignature` over already imported keys (the handlers import theirs once).
 * @internal
 */
export async function verifySignatureWithKeys(
  rawBody: unknown,
  signatureHeader: string | readonly string[] | null | undefined,
  keys: readonly CryptoKey[],
): Promise<boolean> {
  const bytes = rawBytes(rawBody);
  if (typeof signatureHeader !== 'string') return false;
  const expected = signatureBytes(signatureHeader);
  if (expected === null) return false;
  let matched = false;
  for (const key of keys) matched = bytesEqual(await hmac(key, bytes), expected) || matched;
  if (matched || !hasNonAscii(bytes)) return matched;
  // The upstream platform signs the payload with non-ASCII characters escaped as \uXXXX (emoji, accents),
  // while a relay may forward them as raw UTF-8. Both are HMACs under the same secret, so accepting either
  // forges nothing; only a body that has such characters pays for the second computation.
  const escaped = encoder.encode(escapeNonAscii(new TextDecoder().decode(bytes)));
  for (const key of keys) matched = bytesEqual(await hmac(key, escaped), expected) || matched;
  return matched;
}

function hasNonAscii(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return true;
  return false;
}

/** Every UTF-16 code unit above 0x7F as a lowercase `\uXXXX` escape, as the upstream serialises it. */
export function escapeNonAscii(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Verifies an upstream `X-Hub-Signature-256: sha256=<hex>` header: HMAC-SHA256 of the raw body bytes with the app
 * secret, compared in constant time. Several secrets may be given for a rotation. A body with non-ASCII
 * characters also matches a signature over its `\uXXXX`-escaped form, which is how the upstream platform signs.
 *
 * `rawBody` must be the bytes exactly as received. A parsed object throws `RawBodyRequiredError` (a JSON body
 * parser ran first; re-serialised JSON has different bytes) instead of quietly answering `false`.
 *
 * @example
 * const ok = await verifyUpstreamSignature(await request.text(), request.headers.get('x-hub-signature-256'), appSecret);
 */
export async function verifyUpstreamSignature(
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeader: string | null | undefined,
  appSecret: string | readonly string[],
): Promise<boolean> {
  rawBytes(rawBody);
  const secrets = toSecretList(appSecret).filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) return false;
  return verifySignatureWithKeys(rawBody, signatureHeader, await Promise.all(secrets.map(importHmacKey)));
}

/**
 * Signs a body the way the upstream platform does: `sha256=<hex of HMAC-SHA256(rawBody, appSecret)>`. For tests and
 * fixtures.
 *
 * @example
 * const header = await signUpstreamBody(JSON.stringify(envelope), 'app-secret');
 * await verifyUpstreamSignature(JSON.stringify(envelope), header, 'app-secret'); // true
 */
export async function signUpstreamBody(
  rawBody: string | Uint8Array | ArrayBuffer,
  appSecret: string,
): Promise<string> {
  return `sha256=${toHex(await hmac(await importHmacKey(appSecret), rawBytes(rawBody)))}`;
}
