/** Where a command writes and what it reads: the process in the bin, buffers in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal: progress is then rewritten in place with `\r`, else printed as lines. */
  stderrIsTTY?: boolean;
  /** Resolves when the user asks to stop (Ctrl-C); long-running commands wait on it. */
  interrupted: Promise<void>;
}

/** Exit codes, documented in docs/cli.md. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in how the command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
