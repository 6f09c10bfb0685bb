import { ConfigurationError } from './errors.js';

/** Where a secret option usually comes from and how it is sent, for the advice of its `ConfigurationError`. */
export interface SecretHint {
  /** The environment variable it is usually read from, e.g. `'GATEWAY_API_KEY'`. */
  env?: string;
  /** The scheme put before it on the wire (`'Bearer'`, `'JWT'`): a secret pasted with it is told to drop it. */
  scheme?: string;
  /** Who adds the scheme: `'the SDK'` (default) or, for a webhook secret, `'the gateway'`. */
  schemeAddedBy?: string;
}

/**
 * What a secret option was given, for its `ConfigurationError`: the type and the shape, never the value (an
 * almost-right secret is still a secret).
 */
export function describeSecret(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (typeof value !== 'string') return `a ${typeof value}`;
  if (value === '') return 'an empty string';
  if (value.trim() === '') return `a string of ${value.length} whitespace characters`;
  if (value.trim() !== value) return `a string of ${value.length} characters with whitespace at an end`;
  return `a string of ${value.length} characters with a space or a non-ASCII character`;
}

/** What to do about a secret that was refused, by what was given; `''` when there is nothing more to say. */
export function secretAdvice(value: unknown, hint: SecretHint = {}): string {
  const { env, scheme, schemeAddedBy = 'the SDK' } = hint;
  if (env !== undefined && (value === undefined || (typeof value === 'string' && value.trim() === ''))) {
    // Worded without the name of Node's global: this module runs on every runtime.
    return (
      ` Pass it, e.g. from the ${env} environment variable, and check that ${env} is set where this code runs ` +
      '(a .env file is not read by itself).'
    );
  }
  if (scheme !== undefined && typeof value === 'string' && new RegExp(`^\\s*${scheme}\\s`, 'i').test(value)) {
    return ` It starts with \`${scheme} \`: give the secret alone, without the \`${scheme} \` prefix (${schemeAddedBy} adds it).`;
  }
  if (typeof value === 'string' && value.trim() !== '' && value.trim() !== value) {
    return ' Trim it (a secret read from a file often ends with a newline): `.trim()`.';
  }
  return '';
}

/** Whether a secret can go verbatim into a header after its scheme: visible ASCII, no spaces. */
export function isHeaderSecret(value: unknown): value is string {
  return typeof value === 'string' && /^[\x21-\x7e]+$/.test(value);
}

/**
 * Shared option checks for every client: clear `ConfigurationError`s at construction, never at first use. A secret
 * sent in a header must be visible ASCII without spaces; the error says what was given (never the value) and
 * what to do about it.
 */
export function requireSecret(value: unknown, name: string, what: string, hint: SecretHint = {}): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(
      `${name} is required: ${what}; got ${describeSecret(value)}.${secretAdvice(value, hint)}`,
    );
  }
  if (!isHeaderSecret(value)) {
    throw new ConfigurationError(
      `${name} must be a string of visible ASCII characters (no spaces); got ${describeSecret(value)}.` +
        secretAdvice(value, hint),
    );
  }
  return value;
}

export function requireBaseUrl(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(`${name} is required, e.g. 'https://gw.example.com'.`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is not repeated: a key pasted into the wrong variable would end up in the logs.
    throw new ConfigurationError(
      `${name} is not a valid URL (got ${value.length} characters): use e.g. 'https://gw.example.com'.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`${name} must be an http(s) URL; its scheme is '${url.protocol}'.`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError(`${name} must not carry a query, fragment or credentials.`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A base URL whose path already holds what the SDK appends itself, refused: `/v1` for the gateway (every path
 * starts `/v1/wa/...`), `/v2` for the platform, `/public/api/v1` for an on-premises public API. It would double
 * (`/v1/v1/wa/message`, `/public/api/v1/public/api/v1/...`) and get a 404 that names neither. The message
 * quotes the part actually given (`/v1/wa/message`, not only `/v1`).
 *
 * @param appended What the SDK appends, `v1` or `/public/api/v1`: its last segment is the version.
 */
export function refuseVersionSuffix(
  baseUrl: string,
  name: string,
  appended: string,
  example: string,
): string {
  const added = appended.split('/').filter((s) => s !== '');
  const given = new URL(baseUrl).pathname.split('/').filter((s) => s !== '');
  const lower = given.map((s) => s.toLowerCase());
  const version = added[added.length - 1]!.toLowerCase();
  let from = lower.indexOf(version);
  if (from >= 0) {
    // Back over the segments before the version that match the appended path's own: quote '/public/api/v1' whole.
    for (let a = added.length - 2; a >= 0 && from > 0 && lower[from - 1] === added[a]!.toLowerCase(); a--)
      from--;
  } else {
    // The path ends in the start of what is appended ('/public/api'), which would double too.
    for (let n = Math.min(added.length - 1, lower.length); n > 0 && from < 0; n--) {
      if (lower.slice(-n).join('/') === added.slice(0, n).join('/').toLowerCase()) from = lower.length - n;
    }
  }
  if (from < 0) return baseUrl;
  const quoted = `/${given.slice(from).join('/')}`;
  const suffix = `/${added.join('/')}`;
  throw new ConfigurationError(
    `${name} must not include '${quoted}': the SDK adds '${suffix}' itself, so requests would go to ` +
      `'...${quoted}${suffix}/...'. Use the server's root without '${quoted}', e.g. '${example}'.`,
  );
}

export function nonNegativeInt(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`${name} must be a whole number ≥ 0; got ${String(value)}.`);
  }
  return value;
}
