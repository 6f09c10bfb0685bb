import { z } from 'zod';
import { LocalLocks } from '../core/local-locks.js';
import { REDACTED } from '../core/secrets.js';

const inspect = Symbol.for('nodejs.util.inspect.custom');

/**
 * What a `TokenStore` holds, checked when read back (a store is user code: it may return anything). `expiresAt`
 * may be `Infinity` (a token given to the client has no known expiry), which `z.number()` refuses.
 */
export const tokenEntrySchema = z.object({
  token: z.string().min(1),
  /** Epoch milliseconds. */
  expiresAt: z.custom<number>((v) => typeof v === 'number' && !Number.isNaN(v)),
});
/** A cached token and when it expires (epoch milliseconds). */
export interface TokenEntry extends z.infer<typeof tokenEntrySchema> {}

/**
 * Where tokens are shared. The default keeps them in memory; back it with Redis or a database so that several
 * processes use one login instead of each logging in:
 *
 * @example
 * const tokenStore: TokenStore = {
 *   get: async () => JSON.parse((await redis.get('platform-token')) ?? 'null') ?? undefined,
 *   set: async (entry) => { await redis.set('platform-token', JSON.stringify(entry), 'PXAT', entry.expiresAt); },
 * };
 */
export interface TokenStore {
  /** The shared token, if any. A failure here is logged and treated as "no token" (the client logs in). */
  get(): Promise<TokenEntry | undefined>;
  /** Called after each login. A failure here is logged; the token is still used. */
  set(entry: TokenEntry): Promise<void>;
  /**
   * Optional: runs `task` while holding a lock shared by every client of this store. A client that finds no
   * valid token reads the store and logs in under it, so clients that start at the same moment log in once
   * (the others then find the stored token). `MemoryTokenStore` implements it for the clients of a process;
   * implement it with your store's lock (Redis `SET NX PX`, an advisory lock) to extend that to processes.
   * Without it, clients that find the store empty at the same moment may each log in once.
   */
  lock?<T>(task: () => Promise<T>): Promise<T>;
}

/** The default `TokenStore`: one token in memory, shared by every client given the same instance. */
export class MemoryTokenStore implements TokenStore {
  #entry: TokenEntry | undefined;
  readonly #locks = new LocalLocks();

  async get(): Promise<TokenEntry | undefined> {
    return this.#entry;
  }

  async set(entry: TokenEntry): Promise<void> {
    this.#entry = { token: entry.token, expiresAt: entry.expiresAt };
  }

  /** Runs tasks one at a time, in call order; a failed task does not block the next. */
  lock<T>(task: () => Promise<T>): Promise<T> {
    return this.#locks.run('token', task);
  }

  /** @internal Keeps the token out of `console.log(store)`. */
  [inspect](): string {
    return `MemoryTokenStore { token: ${this.#entry ? `'${REDACTED}'` : 'none'} }`;
  }

  toJSON(): Record<string, unknown> {
    return { token: this.#entry ? REDACTED : null };
  }
}
