/**
 * Where a command reads a secret from, by the CLI's rule (docs/cli.md): the environment or a file, never a flag's
 * value. A command's arguments are kept in the shell's history and, while it runs, shown to every user of the
 * machine by `ps`; an environment variable or a file with the right permissions is neither.
 */
import { readFile } from 'node:fs/promises';
import { describeSecret, isHeaderSecret, secretAdvice } from '../core/secret-advice.js';
import { UsageError } from './io.js';

/** How a command takes one secret. */
export interface SecretSource {
  /** The refused flag, e.g. `--secret`, and the value it was given (`undefined` when not given). */
  flag: string;
  given: string | undefined;
  /** The flag naming a file that holds the secret, e.g. `--secret-file`, and its value. */
  fileFlag: string;
  file: string | undefined;
  /** The environment variable, e.g. `WEBHOOK_SECRET`. */
  env: string;
}

/**
 * The secret and where it came from (`--secret-file` or `$WEBHOOK_SECRET`, for messages), or none. A value given
 * to the flag is refused with a `UsageError` (exit 2) saying why and what to use instead; the file wins over the
 * environment; a trailing line ending is dropped from either (see `withoutLineEnding`). A secret no header can
 * carry (a space, a tab, a non-ASCII character) is a `UsageError` naming the variable or the file it came from,
 * not the option of the API the command calls. The secret itself is never in a message.
 */
export async function readSecret(
  source: SecretSource,
  environment: Readonly<Record<string, string | undefined>>,
): Promise<{ secret: string | undefined; from: string | undefined }> {
  const { flag, fileFlag, file, env } = source;
  if (source.given !== undefined) {
    throw new UsageError(
      `${flag} is refused: a secret in a command's arguments is kept in your shell history and shown to every ` +
        `user of this machine while the command runs (ps). Set $${env}, or pass ${fileFlag} <path> (a file ` +
        'holding the secret).',
    );
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      throw new UsageError(
        `${fileFlag}: cannot read '${file}'${typeof code === 'string' ? ` (${code})` : ''}.`,
      );
    }
    const secret = withoutLineEnding(text);
    if (secret === '') throw new UsageError(`${fileFlag}: '${file}' is empty.`);
    return { secret: headerSecret(secret, `${fileFlag} '${file}'`), from: fileFlag };
  }
  const secret = withoutLineEnding(environment[env] ?? '');
  return secret
    ? { secret: headerSecret(secret, `$${env}`), from: `$${env}` }
    : { secret: undefined, from: undefined };
}

/**
 * `text` without one trailing line ending, which is not part of a secret: the `\n` of `echo secret > file`, the
 * `\r\n` of a file saved on Windows, or the `\r` a CRLF `.env` leaves in a variable once the shell's `$(...)` or
 * `export $(cat .env)` has taken the `\n`. No header can carry a line ending, so dropping it changes only a secret
 * that would be refused anyway; any other whitespace is left for `headerSecret` to refuse.
 */
function withoutLineEnding(text: string): string {
  return text.replace(/(?:\r\n|\n|\r)$/, '');
}

/**
 * `secret` when it can be sent as `Authorization: Bearer <secret>` (visible ASCII, no spaces), else a `UsageError`
 * naming `source` (the variable or the file it came from), with what was given by shape only.
 */
function headerSecret(secret: string, source: string): string {
  // Through `unknown`: the guard would narrow `secret` to `never` below.
  const value: unknown = secret;
  if (isHeaderSecret(value)) return value;
  const ends = [/^\s/.test(secret) && 'start', /\s$/.test(secret) && 'end'].filter(Boolean).join(' and ');
  const advice =
    secret.trim() === ''
      ? " Set it to the secret the receiver's handler checks."
      : ends
        ? ` Remove the whitespace at its ${ends}: the receiver's handler refuses a secret with it too.`
        : secretAdvice(secret, { scheme: 'Bearer', schemeAddedBy: 'the gateway' });
  throw new UsageError(
    `${source} must be a string of visible ASCII characters (no spaces), as it is sent in the Authorization ` +
      `header; got ${describeSecret(secret)}.${advice}`,
  );
}
