/**
 * Where a command reads a secret from, by the CLI's rule (docs/cli.md): the environment or a file, never a flag's
 * value. A command's arguments are kept in the shell's history and, while it runs, shown to every user of the
 * machine by `ps`; an environment variable or a file with the right permissions is neither.
 */
import { readFile } from 'node:fs/promises';
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
 * environment; a file's trailing line break is dropped. The secret itself is never in a message.
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
    // `echo secret > file` ends it with a line break, which is not part of the secret.
    const secret = text.replace(/\r?\n$/, '');
    if (secret === '') throw new UsageError(`${fileFlag}: '${file}' is empty.`);
    return { secret, from: fileFlag };
  }
  const secret = environment[env];
  return secret ? { secret, from: `$${env}` } : { secret: undefined, from: undefined };
}
