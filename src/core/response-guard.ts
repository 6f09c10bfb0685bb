/**
 * The body of a streamed answer, watched: a silence of the *server* longer than `idleMs` aborts it
 * (TimeoutError), a cut or abort surfaces as the SDK's typed error rather than a bare AbortError, and when the
 * body ends, fails or is cancelled by its reader the caller's signal is let go (a long-lived signal shared by
 * many streams would otherwise collect one listener per stream). Pull-based: the idle clock runs only while
 * the reader is waiting for data, so a slow reader (back pressure) is never mistaken for a silent server.
 */
export function guardBody(
  response: Response,
  idleMs: number,
  hooks: { onIdle: () => void; fault: (error: unknown) => unknown; cancelled: () => void; done: () => void },
): Response {
  const source = response.body;
  if (!source) {
    hooks.done();
    return response;
  }
  const reader = source.getReader();
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      hooks.done();
    }
  };
  const guarded = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        // Raced rather than left to the fetch's abort: not every fetch (a test double, a polyfill) errors
        // its body when the signal aborts.
        const idle = new Promise<'idle'>((resolve) => {
          timer = setTimeout(() => resolve('idle'), idleMs);
        });
        try {
          const result = await Promise.race([reader.read(), idle]);
          if (result === 'idle') {
            hooks.onIdle();
            finish();
            controller.error(hooks.fault(new Error('idle')));
            reader.cancel().catch(() => {});
          } else if (result.done) {
            finish();
            controller.close();
          } else {
            controller.enqueue(result.value);
          }
        } catch (error) {
          finish();
          controller.error(hooks.fault(error));
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        finish();
        hooks.cancelled();
        // Not awaited: a teed source (msw tees mocked bodies) only settles its cancel once every branch is
        // cancelled, and the reader who broke out of its loop must not wait on that.
        reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(guarded, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A 3xx, or a browser's `opaqueredirect` (status 0) that hides it. */
export function isRedirect(response: Response): boolean {
  return (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
}

/** The system error code from undici's `fetch failed` chain (`cause`, or the first of an AggregateError). */
export function errnoOf(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== 'ABORT_ERR') return e.code;
  // undici refuses the fetch spec's blocked ports (1, 6000, ...) before connecting, with no code at all.
  if (error instanceof Error && error.message === 'bad port') return 'ERR_BAD_PORT';
  if (Array.isArray(e.errors) && e.errors.length > 0) return errnoOf(e.errors[0], depth + 1);
  return errnoOf(e.cause, depth + 1);
}
