/** A logger for a test that provokes SDK warnings: it keeps the lines for the test to assert, and prints nothing. */
export function captureLogger() {
  const lines: { level: 'warn' | 'error'; message: string; meta?: Record<string, unknown> }[] = [];
  const at =
    (level: 'warn' | 'error') =>
    (message: string, meta?: Record<string, unknown>): void =>
      void lines.push({ level, message, ...(meta ? { meta } : {}) });
  return {
    lines,
    logger: { warn: at('warn'), error: at('error') },
    /** The messages, in order. */
    messages: () => lines.map((l) => l.message),
  };
}
