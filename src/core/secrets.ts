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
 * A secret as a server may quote it back: as is, JSON-escaped (`\"`, `\/`, `\uXXXX` in either case, as Python's
 * json.dumps writes non-ASCII), HTML-escaped, URL-encoded.
 */
function forms(secret: string): string[] {
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
    ...new Set([
      secret,
      json,
      json.replaceAll('/', '\\/'),
      unicode(false),
      unicode(true),
      html,
      encodeURIComponent(secret),
    ]),
  ];
}

/** Deep-scrubs a parsed JSON value (a server body) without mutating it. */
export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return value;
  const clean = scrubber(secrets);
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return clean(v);
    if (depth > 32 || v === null || typeof v !== 'object') return v;
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
