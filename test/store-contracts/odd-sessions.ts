/**
 * Session values that are not plain JSON data, built where the store runs (in Node, or inside workerd for the
 * Durable Objects backend: a BigInt or a Date does not survive the trip there as JSON). No imports: the harness
 * Worker bundles this file.
 */

/** `bigint` and `cycle`: JSON cannot write them. `date`: JSON changes it (a Date, a function beside it). */
export type OddSession = 'bigint' | 'cycle' | 'date';

export function oddSession(kind: OddSession): unknown {
  if (kind === 'bigint') return { s: { total: 10n } };
  if (kind === 'cycle') {
    const deep: Record<string, unknown> = {};
    deep['self'] = deep;
    return { s: { deep } };
  }
  return { s: { at: new Date(0), format: () => 'x' } };
}

/** What a session store is given to save an odd value: `set`, or a held lock's `save`. */
interface Saving {
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  lock(
    key: string,
    leaseMs: number,
  ): Promise<{ release(): Promise<void>; save?(v: unknown, ttlMs: number): Promise<void> }>;
}

/**
 * Saves `oddSession(kind)` under `key` by `via`, as the router would: under the lock, by its `save` when the store
 * has one, else by `set` (the in-memory store's lock has none). The lock is released either way.
 */
export async function saveOdd(
  store: Saving,
  key: string,
  kind: OddSession,
  via: 'set' | 'save',
): Promise<void> {
  const value = oddSession(kind);
  if (via === 'set') return store.set(key, value, 60_000);
  const lock = await store.lock(key, 10_000);
  try {
    await (lock.save ? lock.save(value, 60_000) : store.set(key, value, 60_000));
  } finally {
    await lock.release();
  }
}
