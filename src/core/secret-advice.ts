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

/** What a client's server takes as its secret, for the advice when the server refuses the one the client sent. */
export interface SecretKind {
  /** The server, as a sentence starts with it: `'The gateway'`, `'The public API'`. */
  server: string;
  /** The secret, as the server calls it: `'API key'`, `'secret key'`. */
  secret: string;
  /** What the server takes: `'a key made in its dashboard under API keys'`. */
  takes: string;
  /** The prefixes the spec documents, each with what a secret with it is (`''` when it says nothing more). */
  prefixes: Readonly<Record<string, string>>;
  /** The environment variable it is usually read from. */
  env?: string;
}

/**
 * What to add to the message of a 401 that refused the secret the client sent (`AUTH_001`): the server that refused
 * it (the origin the request went to), what it takes with the documented prefixes, and which of them this secret
 * starts with. Never the secret itself: only whether it has a documented prefix.
 *
 * @example
 * refusedSecretAdvice(apiKey, GATEWAY_KEY, 'https://gw.example.com');
 * // ' The gateway at https://gw.example.com did not accept this API key: it takes ..., `pk_…` (production) or ...'
 */
export function refusedSecretAdvice(value: string, kind: SecretKind, origin: string): string {
  const prefixes = Object.entries(kind.prefixes);
  const named = (p: string, meaning: string) => `\`${p}…\`${meaning ? ` (${meaning})` : ''}`;
  const own = prefixes.find(([p]) => value.startsWith(p));
  const fact = own
    ? `this one starts with \`${own[0]}\`${own[1] ? ` (${own[1]})` : ''}`
    : prefixes.length === 1
      ? `this one does not start with \`${prefixes[0]![0]}\``
      : 'this one starts with neither';
  const server = `${kind.server[0]!.toLowerCase()}${kind.server.slice(1)}`;
  const check = own
    ? `Check that it was not revoked and has not expired, and that the base URL is ${server} it was made for.`
    : `Check ${kind.env ?? 'the key'}: it may hold something other than the ${kind.secret}.`;
  return (
    ` ${kind.server} at ${origin} did not accept this ${kind.secret}: it takes ${kind.takes}, ` +
    `${prefixes.map(([p, meaning]) => named(p, meaning)).join(' or ')}; ${fact}. ${check}`
  );
}
