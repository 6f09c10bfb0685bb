/**
 * Response headers as the SDK reads them. fetch hands a header's bytes over as Latin-1 (a ByteString): a server
 * echoing a UTF-8 secret (`é`, bytes C3 A9) gives back `Ã©`, a form no scrubber of the secret's own characters
 * looks for, and a proxy may echo anything at any length. Every header the SDK reads (request ids, content types,
 * `Retry-After`, `Location`, `Content-Disposition` in its RFC 8187 form, `Content-Length`) is plain ASCII when it is
 * what it claims to be; so a value is kept only when it is visible ASCII (spaces allowed) of a sane length, and any
 * other is treated as absent. Whatever the SDK repeats of a header (in an error, a log line, a hook, a result) then
 * holds no re-decoded form of a secret, and the scrubber still runs on what is kept.
 */

/** The longest header value kept by default: request ids and content types are far shorter. */
export const MAX_HEADER_LENGTH = 256;

const VISIBLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The value of response header `name` when it is visible ASCII of at most `max` characters; `undefined` when the
 * header is absent or is anything else (non-ASCII, control characters, too long).
 */
export function headerValue(headers: Headers, name: string, max = MAX_HEADER_LENGTH): string | undefined {
  const value = headers.get(name);
  return value !== null && value.length <= max && VISIBLE_ASCII.test(value) ? value : undefined;
}
