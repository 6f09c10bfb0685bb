/**
 * The upstream platform's `X-Hub-Signature-256: sha256=<hex>` HMAC over the raw body bytes: checked once the body
 * is read, when the handler has an `upstreamAppSecret`. Needs the exact bytes, which a JSON body parser destroys.
 * WebCrypto only: it runs on Node, Bun, Deno and Workers alike.
 */
import { brandError, WaGatewayError } from '../core/errors.js';
import { bytesOf } from './bytes.js';
import { bytesEqual, secretList } from './secret-match.js';

const encoder = new TextEncoder();

/**
 * The signature helper was given a parsed object instead of the raw body. HMAC is computed over the exact bytes
 * received; re-serialising parsed JSON changes them (spacing, key order, escapes), so no answer is possible.
 */
export class RawBodyRequiredError extends WaGatewayError {
  override name = 'RawBodyRequiredError';
  /**
   * @param received what was passed instead of the raw body (only its kind is told, never its content); without
   * it, a parsed object.
   */
  constructor(...args: [received?: unknown]) {
    const received = args.length === 0 ? {} : args[0];
    // Said without naming a function: the webhook handler, which checks the signature itself, logs it too.
    const needs =
      'X-Hub-Signature-256 is checked over the raw request body (a string, Uint8Array or ArrayBuffer), but got ';
    super(
      received === undefined || received === null
        ? `${needs}${String(received)}: no body reached it (does your raw body parser take this content type? ` +
            "express.raw({ type: 'application/json' }))."
        : `${needs}${typeof received === 'object' ? 'a parsed object' : `a ${typeof received}`}: a body parser ` +
            'already ran (re-serialised JSON is not the signed bytes). Mount the webhook route before any JSON ' +
            'body parser, or give it the raw bytes.',
    );
  }
}
brandError(RawBodyRequiredError, 'RawBodyRequiredError');

/** Raw body bytes from any of the accepted forms; throws `RawBodyRequiredError` for a parsed object. */
function rawBytes(rawBody: unknown): Uint8Array {
  const bytes = bytesOf(rawBody);
  if (bytes === undefined) throw new RawBodyRequiredError(rawBody);
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
  const secrets = secretList(appSecret).filter((s) => typeof s === 'string' && s.length > 0);
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
