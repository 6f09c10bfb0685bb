import type { z } from 'zod';
import { ConfigurationError } from '../core/errors.js';

/**
 * "Did you mean" for keys an outbound message may not carry. The closed schemas report unknown keys through
 * `unknownKeysError`; `toMessageIssues` turns each such zod issue into one issue per key, at the key's own path.
 */

/** Send options people put inside the message by mistake: they are the second argument of `send`. */
const SEND_OPTIONS: Readonly<Record<string, string>> = {
  isFake: 'isFake: true',
  is_fake: 'isFake: true',
  isfake: 'isFake: true',
  mmlite: 'mmlite: true',
  validate: 'validate: false',
  extraFields: 'extraFields: { ... }',
  signal: 'signal',
  timeoutMs: 'timeoutMs: 10_000',
  retryInFlight: 'retryInFlight: true',
};

/** Names from other APIs whose meaning has a different key here. */
const ALIASES: Readonly<Record<string, string>> = {
  url: 'link',
  href: 'link',
  lang: 'language',
  // Other SDKs' option names.
  timeout: 'timeoutMs',
  retries: 'maxRetries',
};

const normalise = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, '');

/** Levenshtein distance, capped: only small distances matter and keys are short. */
function distance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The known key a mistyped key most likely meant, if one is close enough. `strict` (for a refusal rather than a
 * hint) takes only the same key written another way (`isfake`, `timeout_ms`) or, from 5 characters, one edit away
 * (`concurency`): a short word of the caller's own (`batch`, `final`) is not taken for `fetch` or `signal`.
 */
export function suggestKey(key: string, known: readonly string[], strict = false): string | undefined {
  if (key.length > 64) return undefined;
  const alias = ALIASES[key];
  if (alias && known.includes(alias)) return alias;
  const n = normalise(key);
  const same = known.find((k) => normalise(k) === n);
  if (same) return same;
  const cap = strict ? (n.length < 5 ? 0 : 1) : n.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = cap + 1;
  for (const k of known) {
    const d = distance(n, normalise(k), cap);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/**
 * Every key of the options type `T`, listed for the check at run time: a key of `T` missing from the list (an
 * option added later) makes the list fail to compile, and so does a key that is not one of `T`'s.
 */
export type OptionKeys<T, K extends readonly (keyof T)[]> = [Exclude<keyof T, K[number]>] extends [never]
  ? K
  : never;

/**
 * Refuses an options key that is a near miss of one of `known` (`isfake`, `timeout_ms`, `baseURL`) with a
 * `ConfigurationError` naming the option meant: a JavaScript caller has no type checker to catch it, and the option
 * ignored can cost money (`isfake: true` would send a real message). A key close to none is left alone: an object
 * of the caller's may be spread into the options.
 */
export function refuseNearMisses(options: object, known: readonly string[], call: string): void {
  for (const key in options) {
    if (known.includes(key)) continue;
    const meant = suggestKey(key, known, true);
    if (meant !== undefined)
      throw new ConfigurationError(`${call}: unknown option '${key.slice(0, 64)}': did you mean '${meant}'?`);
  }
}

/** The message for one unknown key at an object whose keys are `known`. */
export function describeUnknownKey(key: string, known: readonly string[], atRoot: boolean): string {
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  if (atRoot && key === 'messaging_product') {
    return "unknown field 'messaging_product': the client fills it (GatewayClient option `messagingProduct`)";
  }
  if (atRoot && Object.hasOwn(SEND_OPTIONS, key)) {
    return (
      `unknown field '${shown}': this is a send option, not a message field: ` +
      `messages.send(msg, { ${SEND_OPTIONS[key]} })`
    );
  }
  const hint = suggestKey(key, known);
  const tail = hint
    ? `did you mean '${hint}'?`
    : 'the spec does not show it; to send it anyway use the send option `extraFields`';
  return `unknown field '${shown}': ${tail}`;
}

/** Per-key messages of each unknown-keys issue, looked up by the issue's `keys` array (zod keeps that array). */
const perKey = new WeakMap<readonly string[], readonly string[]>();

/** The `error` option of a closed object: records the known keys so each unknown key gets its own message. */
export function unknownKeysError(known: readonly string[]) {
  return (issue: z.core.$ZodRawIssue): string | undefined => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const keys = (issue as { keys: string[] }).keys;
    const atRoot = known.includes('to') && known.includes('type');
    const messages = keys.map((k) => describeUnknownKey(k, known, atRoot));
    perKey.set(keys, messages);
    return messages.join('; ');
  };
}

/** One `{ key, message }` per unknown key of a zod `unrecognized_keys` issue. */
export function splitUnknownKeys(issue: { keys: readonly string[]; message: string }): {
  key: string;
  message: string;
}[] {
  const messages = perKey.get(issue.keys);
  return issue.keys.map((key, i) => ({
    key,
    message: messages?.[i] ?? describeUnknownKey(key, [], false),
  }));
}
