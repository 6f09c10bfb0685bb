/**
 * Scrubs secrets out of text before it reaches an error or a log line. Clients register every credential
 * they hold (API key, secret key, password, token); the transport runs server bodies and messages through
 * `scrub` so that a server echoing a header back, or a proxy page quoting the request, cannot leak one.
 */
export const REDACTED = '[redacted]';

/**
 * Every non-empty secret is scrubbed, however short: a 3-character password mangles the text it appears in,
 * and that is the better failure than showing it.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  return scrubber(secrets)(text);
}

/** A scrub with every secret's quoted forms worked out once, for scrubbing many strings (a whole body). */
function scrubber(secrets: readonly string[]): (text: string) => string {
  const all = secrets.filter((s) => s.length > 0).flatMap(forms);
  return (text) => {
    let out = text;
    for (const form of all) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  };
}

/**
 * A secret as a server may quote it back: as is or re-decoded (`redecoded`), each of those JSON-escaped (`\"`, `\/`,
 * `\uXXXX` in either case, as Python's json.dumps writes non-ASCII), HTML-escaped, URL-encoded; and inside base64.
 */
function forms(secret: string): string[] {
  return [...new Set([...[secret, ...redecoded(secret)].flatMap(escapedForms), ...base64Forms(secret)])];
}

/**
 * A secret with non-ASCII characters as it reads after a trip through a layer that took its bytes for another
 * encoding: its UTF-8 bytes read as Latin-1 (what fetch makes of a header's bytes: `é` comes back `Ã©`) or as
 * windows-1252 (a server decoding a body that way), and the reverse, its characters taken as Latin-1 bytes and read
 * as UTF-8. An ASCII secret reads the same in all of them and has none.
 */
function redecoded(secret: string): string[] {
  const utf8 = new TextEncoder().encode(secret);
  if (utf8.length === secret.length) return [];
  const latin1 = Array.from(utf8, (byte) => String.fromCharCode(byte)).join('');
  const out = [latin1, decodeAs('windows-1252', utf8)];
  if ([...secret].every((ch) => ch.charCodeAt(0) <= 0xff)) {
    out.push(
      decodeAs(
        'utf-8',
        Uint8Array.from(secret, (ch) => ch.charCodeAt(0)),
      ),
    );
  }
  return out.filter((form): form is string => form !== undefined && form !== secret);
}

/** `bytes` decoded as `encoding`; `undefined` on a runtime whose TextDecoder lacks that encoding. */
function decodeAs(encoding: string, bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder(encoding).decode(bytes);
  } catch {
    return undefined;
  }
}

function escapedForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const unicode = (upper: boolean) =>
    json.replace(/[\u0080-\uffff]/g, (ch) => {
      const hex = ch.charCodeAt(0).toString(16).padStart(4, '0');
      return `\\u${upper ? hex.toUpperCase() : hex}`;
    });
  const html = secret
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
  return [
    secret,
    json,
    json.replaceAll('/', '\\/'),
    unicode(false),
    unicode(true),
    html,
    safeUriEncoding(secret),
  ];
}

/** `encodeURIComponent`, which throws on a lone surrogate: a secret is any string, and scrubbing must not throw. */
function safeUriEncoding(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The secret as it reads inside base64 (a server echoing an `Authorization: Basic` header, or a key it encoded):
 * the characters that depend on the secret's bytes alone, at each of the three byte alignments it can start at
 * inside a longer encoded text, in standard and URL-safe alphabets. A form shorter than 8 characters is left
 * out: it would mangle unrelated text and say little about the secret.
 */
function base64Forms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    // One argument per byte would overflow the call stack for a long secret: mapped instead, like `redecoded`.
    const encoded = btoa(Array.from(padded, (byte) => String.fromCharCode(byte)).join(''));
    // A leading byte of padding taints the first 2 characters, two taint 3; a trailing partial group is
    // tainted by whatever follows the secret, unless the secret ends the text (then the padded form is exact).
    const start = shift === 0 ? 0 : shift === 1 ? 2 : 3;
    const end = Math.floor(padded.length / 3) * 4;
    const core = encoded.slice(start, end);
    for (const form of shift === 0 ? [core, encoded] : [core]) {
      if (form.length < 8) continue;
      out.push(form, form.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''));
    }
  }
  return out;
}

/**
 * A copy of a thrown error (undici's `fetch failed` chain) safe to keep as a `cause`: name, code, errno and
 * syscall kept, every message scrubbed, the chain followed a few levels. The original is dropped: its fields
 * (a request, a socket) may hold a credential.
 */
export function scrubError(error: unknown, secrets: readonly string[], depth = 0): Error | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const clean = scrubber(secrets);
  const source = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    errno?: unknown;
    syscall?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  const inner = scrubError(
    Array.isArray(source.errors) ? source.errors[0] : source.cause,
    secrets,
    depth + 1,
  );
  const copy = new Error(
    clean(typeof source.message === 'string' ? source.message : ''),
    inner === undefined ? undefined : { cause: inner },
  );
  if (typeof source.name === 'string') copy.name = clean(source.name);
  for (const key of ['code', 'errno', 'syscall'] as const) {
    const value = source[key];
    if (typeof value === 'string') Object.assign(copy, { [key]: clean(value) });
    else if (typeof value === 'number') Object.assign(copy, { [key]: value });
  }
  return copy;
}

/** Deep-scrubs a parsed JSON value (a server body) without mutating it. */
export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const clean = scrubber(secrets);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return clean(v);
    if (v === null || typeof v !== 'object') return v;
    // Cut rather than passed on: an unscrubbed deep branch would carry its secrets into the error.
    if (depth > 32) return '[too deep]';
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    // fromEntries defines own properties: a "__proto__" key in a body stays data.
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k), walk(x, depth + 1)]));
  };
  return walk(value, 0);
}

/** A short, single-line excerpt of a body that was not the expected JSON (an HTML page from a proxy). */
export function excerpt(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
