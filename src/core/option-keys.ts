import { ConfigurationError } from './errors.js';
import { givenValue } from './given-value.js';

/**
 * "Did you mean" for option keys: the near miss of a known key (`suggestKey`), the refusal of one in a call's
 * options (`refuseNearMisses`), and the compile-time list of an options type's keys it checks against
 * (`OptionKeys`). Knows no endpoint: each client and call gives its own list.
 */

/** Other SDKs' option names whose meaning has a different key here. */
const OPTION_ALIASES: Readonly<Record<string, string>> = {
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
 * `aliases` are names from other APIs for a known key (a message's `url` for `link`), looked up before the
 * options' own (`timeout` for `timeoutMs`, `retries` for `maxRetries`).
 */
export function suggestKey(
  key: string,
  known: readonly string[],
  strict = false,
  aliases?: Readonly<Record<string, string>>,
): string | undefined {
  if (key.length > 64) return undefined;
  const alias = aliases?.[key] ?? OPTION_ALIASES[key];
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
 * of the caller's may be spread into the options. `undefined` and `null` are no options; any other value that is
 * not an object is refused.
 */
export function refuseNearMisses(options: unknown, known: readonly string[], call: string): void {
  // No options at all is none; a number or a string in their place is the caller's mistake, said as such.
  if (options === undefined || options === null) return;
  if (typeof options !== 'object') {
    throw new ConfigurationError(`${call}: options must be an object; got ${givenValue(options)}.`);
  }
  for (const key in options) {
    if (known.includes(key)) continue;
    const meant = suggestKey(key, known, true);
    if (meant !== undefined)
      throw new ConfigurationError(`${call}: unknown option '${key.slice(0, 64)}': did you mean '${meant}'?`);
  }
}
