/**
 * Locks inside one process: the in-memory counterpart of the Redis lease locks, for the stores whose default
 * serves one process (the router's sessions, the platform token). A process that dies takes its locks with it,
 * so there is no lease to keep. Zod-free and Node-free.
 */

export interface LocalLockOptions {
  /** How long to wait for the lock before rejecting with `timeout()`. Default: as long as it takes. */
  waitMs?: number;
  /** The error a wait that ran out rejects with. */
  timeout?: () => Error;
}

/**
 * One holder at a time per key, in call order. A holder frees the key with the function `acquire` answers
 * (safe to call twice); a waiter that gives up leaves its place without letting the ones behind it jump the
 * holder.
 *
 * @example
 * const locks = new LocalLocks();
 * const release = await locks.acquire('customer-1', { waitMs: 3000, timeout: () => new Error('busy') });
 * try { await work(); } finally { release(); }
 */
export class LocalLocks {
  /** Each key's tail: the promise the next holder waits for. */
  readonly #tails = new Map<string, Promise<void>>();

  /** Waits for and takes `key`; answers the function that frees it. */
  acquire(key: string, options: LocalLockOptions = {}): Promise<() => void> {
    const before = this.#tails.get(key);
    let free!: () => void;
    const mine = new Promise<void>((resolve) => {
      free = resolve;
    });
    const tail = (before ?? Promise.resolve()).then(() => mine);
    this.#tails.set(key, tail);
    let freed = false;
    const release = () => {
      if (freed) return;
      freed = true;
      free();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
    // Free: no promise turn and no timer (the common case, and the one a timer per call would slow).
    if (before === undefined) return Promise.resolve(release);
    const { waitMs, timeout } = options;
    if (waitMs === undefined) return before.then(() => release);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Leave the queue without jumping it: the next waiter still waits for the holder.
        void before.then(release);
        reject(timeout?.() ?? new Error(`the lock was not free within ${waitMs} ms`));
      }, waitMs);
    });
    return Promise.race([before.then(() => release), timedOut]).finally(() => clearTimeout(timer));
  }

  /** Runs `task` holding `key`; a task that fails frees the key too. */
  async run<T>(key: string, task: () => Promise<T>, options?: LocalLockOptions): Promise<T> {
    const release = await this.acquire(key, options);
    try {
      return await task();
    } finally {
      release();
    }
  }
}
