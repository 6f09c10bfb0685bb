import { vi } from 'vitest';

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

/**
 * For code that logs through the SDK's default console logger and takes no logger of the test's (an example app):
 * runs `run` with `console.warn` and `console.error` captured, and returns what they were given, one string a call.
 */
export async function consoleLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const keep = (...args: unknown[]) =>
    void lines.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  const warn = vi.spyOn(console, 'warn').mockImplementation(keep);
  const error = vi.spyOn(console, 'error').mockImplementation(keep);
  try {
    return { result: await run(), lines };
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
}
