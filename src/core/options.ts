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
 * A base URL whose path already ends in a version the SDK appends itself (`/v1`: every gateway path starts
 * `/v1/wa/...`), refused: it would post to `/v1/v1/wa/message` and get a 404 that names neither.
 */
export function refuseVersionSuffix(baseUrl: string, name: string, version: string, example: string): string {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  if (path.toLowerCase().endsWith(`/${version}`) || path.toLowerCase().includes(`/${version}/`)) {
    throw new ConfigurationError(
      `${name} must not end in '/${version}': the SDK adds '/${version}/...' itself, so requests would go to ` +
        `'.../${version}/${version}/...'. Use the server's root, e.g. '${example}'.`,
    );
  }
  return baseUrl;
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
