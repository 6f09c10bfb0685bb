/**
 * The one abort-aware wait of the SDK and its two building blocks. Zod-free and Node-free, so every entry
 * (webhooks, templates, edge builds) may use it.
 */

const NOTHING = () => {};

/**
 * Calls `listener` once when `signal` aborts (not if it already has: check `aborted` first where that
 * matters) and returns the function that stops listening. Without a signal, it does nothing.
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return NOTHING;
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = onAbort(signal, () => {
      clearTimeout(timer);
      reject(signal?.reason);
    });
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
  });
}

/**
 * The promise's outcome, or a rejection with the signal's reason as soon as it aborts. The promise itself
 * keeps running (a shared login, a claim): only this caller stops waiting for it.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
