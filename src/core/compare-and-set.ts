/**
 * The one bounded compare-and-set loop of the SDK: read a record, compute its next state, write it only if the
 * record is still what was read, and start again when another writer got there first. Used by the campaign
 * tracker (any `CampaignStore`) and the Redis status store. Zod-free and Node-free.
 */
import { ContentionError } from './errors.js';

/** What a round answers when its write lost to another writer: the loop reads and computes again. */
export const LOST_RACE: unique symbol = Symbol('lost race');

/** How many rounds a compare-and-set gets by default before it gives up. */
export const DEFAULT_CAS_ATTEMPTS = 50;

export interface CompareAndSetOptions {
  /** Rounds before giving up. Default 50. */
  maxAttempts?: number;
  /** The error thrown after the last lost round. Default `ContentionError`. */
  exhausted?: (operation: string, attempts: number) => Error;
}

/**
 * Runs `round` until it answers something other than `LOST_RACE` (it won the write, or had nothing to write), at
 * most `maxAttempts` times; then throws the `exhausted` error (`ContentionError` by default). Each round must
 * read the record again: a round that loses has written nothing.
 *
 * @example
 * const result = await compareAndSet('statuses.update', async () => {
 *   const seen = await store.read(id);
 *   return (await store.writeIf(id, seen, next(seen))) ? 'written' : LOST_RACE;
 * });
 */
export async function compareAndSet<T>(
  operation: string,
  round: (attempt: number) => Promise<T | typeof LOST_RACE>,
  options: CompareAndSetOptions = {},
): Promise<T> {
  const attempts = options.maxAttempts ?? DEFAULT_CAS_ATTEMPTS;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const outcome = await round(attempt);
    if (outcome !== LOST_RACE) return outcome;
  }
  throw (options.exhausted ?? ((op, n) => new ContentionError(op, n)))(operation, attempts);
}
