/**
 * How the SDK talks about a refused secret option (an API key, a token, a webhook secret): what was given, by type
 * and shape only, and what to do about it. Never the value: an almost-right secret is still a secret.
 */

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
