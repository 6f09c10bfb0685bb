/**
 * The gateway's `Authorization: Bearer <WEBHOOK_SECRET>` header: the first check of a delivery, made on the header
 * alone, before a byte of the body is read (so it works whatever a framework did to the body). Web APIs only: it
 * runs on Node, Bun, Deno and Workers alike. The upstream signature over the body is `upstream-signature.ts`.
 */

import { secretList, textEqual } from './secret-match.js';

// Longer tokens are refused before any comparison: no real secret is this long, and it bounds the work an
// unauthenticated request can cause.
const MAX_TOKEN_BYTES = 4096;

const WHITESPACE = /\s/;

/**
 * Extracts the token of a `Bearer <token>` header value. The scheme is case-insensitive (RFC 7235); one or more
 * spaces separate it from a single token; anything else (another scheme, no token, two tokens) is `null`.
 */
function bearerToken(headerValue: string): string | null {
  const value = headerValue.trim();
  if (value.length < 7 || !isBearerScheme(value) || value.charCodeAt(6) !== 0x20) return null;
  const token = value.slice(7).trimStart();
  if (token === '' || (!isPrintableAscii(token) && WHITESPACE.test(token))) return null;
  return token;
}

/** Whether `value` starts with `bearer` in any case, without a lower-cased copy of it on every delivery. */
function isBearerScheme(value: string): boolean {
  for (let i = 0; i < 6; i++) if ((value.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return false;
  return true;
}
const BEARER = 'bearer';

/**
 * Whether every code unit is printable ASCII (`!` to `~`), none of them whitespace: what real tokens are, so `\s`
 * is asked only of a token with another character (a regular expression per delivery cost more than the compare).
 */
function isPrintableAscii(token: string): boolean {
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
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
  for (const candidate of secretList(secret)) {
    if (typeof candidate !== 'string' || candidate.length === 0) continue;
    // The comparison runs before `||` looks at `matched`: every secret is compared whichever one matches, so
    // timing does not tell which one did.
    matched = textEqual(token, candidate) || matched;
  }
  return matched ? null : 'mismatch';
}
