import { ConfigurationError } from '../core/errors.js';

/** Where a command writes and what it reads: the process in the bin, buffers in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal: progress is then rewritten in place with `\r`, else printed as lines. */
  stderrIsTTY?: boolean;
  /**
   * Resolves when the user asks to stop: with `'SIGINT'` (Ctrl-C) or `'SIGTERM'` (`kill`, a CI job or systemd
   * stopping it); nothing said is read as Ctrl-C. Every command stops its work then (see `interruption`).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a `new Promise<void>` (a test's, an embedder's) stays valid.
  interrupted: Promise<Interruption | undefined | void>;
}

/** The signals that ask a command to stop. */
export type Interruption = 'SIGINT' | 'SIGTERM';

/**
 * Exit codes, documented in docs/cli.md. A command stopped by a signal exits as a shell reports a process the
 * signal ended: 128 + its number (130 for Ctrl-C, 143 for SIGTERM).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, SIGINT: 130, SIGTERM: 143 } as const;

/** A mistake in how the command was called: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The value `check` returns, with a `ConfigurationError` it throws turned into a `UsageError`: the SDK's rule for
 * an option, applied to the flag that gave it (exit 2, with the usage). `names` renames options in the message to
 * the flags or environment variables they came from.
 *
 * @example
 * const url = asUsage(() => requireWebhookUrl(values.url, '--url'));
 */
export function asUsage<T>(check: () => T, names: Readonly<Record<string, string>> = {}): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    // The option's name as the user gave it: `platformUrl` came from $PLATFORM_URL.
    let message = error.message;
    for (const [option, given] of Object.entries(names)) message = message.replaceAll(option, given);
    throw new UsageError(message);
  }
}

/** The command was stopped by the user (Ctrl-C or SIGTERM): `runCli` exits with the signal's code. */
export class Interrupted extends Error {
  override name = 'Interrupted';
  readonly signal: Interruption;

  constructor(signal: Interruption) {
    super(`interrupted (${signal})`);
    this.signal = signal;
  }

  get exitCode(): number {
    return EXIT[this.signal];
  }
}

/**
 * A signal that aborts, its reason an `Interrupted`, when the user asks the command to stop: what a command
 * passes to its fetches, deliveries and Redis reads, so that Ctrl-C ends them instead of waiting them out.
 *
 * @example
 * const signal = interruption(io);
 * await deliverWebhook(body, { url, signal });
 * signal.throwIfAborted(); // runCli exits 130 (Ctrl-C) or 143 (SIGTERM)
 */
export function interruption(io: CliIo): AbortSignal {
  const controller = new AbortController();
  void io.interrupted.then((signal) => controller.abort(new Interrupted(signal || 'SIGINT')));
  return controller.signal;
}
