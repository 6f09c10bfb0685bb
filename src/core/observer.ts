/**
 * Observer callbacks (request hooks, `onError`, progress and delivery callbacks) are called and left: whatever
 * they do must not change the outcome of the work they observe. TypeScript lets an `async` function stand where
 * `=> void` is typed, so "whatever they do" includes returning a promise that rejects, which, unhandled, ends a
 * Node process. Zod-free and free of Node globals: the webhooks entry uses it on every runtime.
 */

/** The error's `name` (or its `typeof`), never its message, which may hold the application's data. */
export function errorNameOf(error: unknown): string {
  try {
    return error instanceof Error ? error.name : typeof error;
  } catch {
    return 'unknown';
  }
}

/** Whether `value` has a callable `then`: a promise, or any thenable an observer may return. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Calls `observer(...args)` if it is a function. A synchronous throw, and the rejection of a promise it returns,
 * are swallowed; `onFailure` (a logger line, say) receives the error's name only.
 *
 * @example
 * callObserver(options.onError, [error, info], (errorName) => log('warn', 'onError failed', { errorName }));
 */
export function callObserver<A extends unknown[]>(
  observer: ((...args: A) => unknown) | undefined,
  args: A,
  onFailure?: (errorName: string) => void,
): void {
  if (typeof observer !== 'function') return;
  const failed = (error: unknown): void => {
    try {
      onFailure?.(errorNameOf(error));
    } catch {
      // A broken logger must not change the outcome either.
    }
  };
  try {
    const result = observer(...args);
    if (isThenable(result)) Promise.resolve(result).then(undefined, failed);
  } catch (error) {
    failed(error);
  }
}
