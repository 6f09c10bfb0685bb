import type { z } from 'zod';
import type { MessageIssue } from '../core/errors.js';

/** zod's issues as `MessageIssue`s; an SDK rule (`unique`, `required`, ...) replaces zod's `custom` code. */
export function toIssues(issues: readonly z.core.$ZodIssue[]): MessageIssue[] {
  return issues.map((i) => {
    const rule = i.code === 'custom' ? i.params?.['rule'] : undefined;
    return {
      path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: i.message,
      code: typeof rule === 'string' ? rule : i.code,
    };
  });
}

/** Runs a schema without ever throwing: a getter that throws or a Proxy becomes an issue. */
export function check<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { ok: true; data: z.output<S> } | { ok: false; issues: MessageIssue[] } {
  try {
    const result = schema.safeParse(input);
    return result.success
      ? { ok: true, data: result.data }
      : { ok: false, issues: toIssues(result.error.issues) };
  } catch {
    // `result.error` is read inside the try (zod 4 builds messages lazily); the thrown error is not read at all.
    return {
      ok: false,
      issues: [
        { path: [], message: 'the input could not be read (a getter or proxy threw)', code: 'unreadable' },
      ],
    };
  }
}
