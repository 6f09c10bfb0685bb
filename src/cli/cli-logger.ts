import type { Logger } from '../core/logger.js';
import type { CliIo } from './io.js';
import { printable } from './printable.js';

/**
 * The SDK's log lines as a command's own: one line on stderr each, named for the command, with the meta's plain
 * values after it (`retrying request (method=POST, attempt=1, delayMs=512, errorName=ConnectionError)`), in place
 * of the default console logger's object dumps across lines.
 *
 * @example
 * new PublicApiClient({ secretKey, baseUrl, logger: cliLogger(io, 'templates') });
 */
export function cliLogger(io: CliIo, command: string): Logger {
  const line = (message: string, meta?: Record<string, unknown>) => {
    const fields = Object.entries(meta ?? {})
      .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value))
      .map(([key, value]) => `${key}=${String(value)}`);
    const text = message.replace(/^wa-gateway-sdk: /, '');
    io.stderr(
      `${printable(`wa-gateway ${command}: ${text}${fields.length > 0 ? ` (${fields.join(', ')})` : ''}`)}\n`,
    );
  };
  return { warn: line, error: line };
}
