/**
 * The one abort-aware wait of the SDK and its two building blocks. Zod-free and Node-free, so every entry
 * (webhooks, templates, edge builds) may use it.
 */

const NOTHING = () => {};

/**
 * The callbacks waiting on each signal, behind one listener of ours per signal: an application that passes one
 * long-lived signal (a shutdown signal) to a thousand concurrent sends would otherwise collect a thousand listeners
 * and Node's "possible EventTarget memory leak" warning, which points at the application, not at us.
 */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

function dispatch(this: AbortSignal): void {
  const callbacks = waiting.get(this);
  waiting.delete(this);
  if (callbacks) for (const callback of callbacks) callback();
}

/**
 * Calls `listener` once when `signal` aborts (not if it already has: check `aborted` first where that
 * matters) and returns the function that stops listening. Without a signal, it does nothing.
 */
export function onAbort(signal: AbortSignal | undefined, listener: () => void): () => void {
  if (!signal) return NOTHING;
  let callbacks = waiting.get(signal);
  if (!callbacks) {
    callbacks = new Set();
    waiting.set(signal, callbacks);
    signal.addEventListener('abort', dispatch, { once: true });
  }
  // A wrapper of its own, so that the same function registered twice is two registrations, as with
  // addEventListener's callers here, which each stop their own.
  const entry = () => listener();
  callbacks.add(entry);
  return () => {
    const current = waiting.get(signal);
    if (!current?.delete(entry) || current.size > 0) return;
    waiting.delete(signal);
    signal.removeEventListener('abort', dispatch);
  };
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
