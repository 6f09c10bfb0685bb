import { ConfigurationError } from './errors.js';

/** Shared option checks for every client: clear `ConfigurationError`s at construction, never at first use. */
export function requireSecret(value: unknown, name: string, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(
      `${name} is required: ${what}. Got ${value === '' ? 'an empty string' : typeof value}.`,
    );
  }
  if (/\s/.test(value)) {
    throw new ConfigurationError(
      `${name} contains whitespace; check for a stray newline or space around it.`,
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

export function positive(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new ConfigurationError(`${name} must be a positive number of milliseconds; got ${String(value)}.`);
  }
  return value;
}

export function nonNegativeInt(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`${name} must be a whole number ≥ 0; got ${String(value)}.`);
  }
  return value;
}
