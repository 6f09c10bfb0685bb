/**
 * Folding keeps `warn` readable; it never hides a line from whoever asks for everything: at `debug`, each folded
 * line is still logged (issue 23). Times are passed in, so nothing depends on the clock.
 */
import { describe, expect, it } from 'vitest';
import { type Logger, logFolded, resolveLogger } from '../../src/core/logger.js';

function recording() {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { lines, logger };
}

describe('logFolded', () => {
  it('at debug, every folded line of a burst is logged at debug beside the first one', () => {
    const { lines, logger } = recording();
    const log = resolveLogger({ logger, logLevel: 'debug' });
    for (const now of [0, 100, 200]) logFolded(log, 'warn', 'wa-gateway-sdk: retrying request', {}, now);
    expect(lines).toEqual([
      'warn wa-gateway-sdk: retrying request',
      'debug wa-gateway-sdk: retrying request',
      'debug wa-gateway-sdk: retrying request',
    ]);
  });

  it('at warn, the folded lines are only counted', () => {
    const { lines, logger } = recording();
    const log = resolveLogger({ logger, logLevel: 'warn' });
    for (const now of [0, 100, 200]) logFolded(log, 'warn', 'wa-gateway-sdk: retrying request', {}, now);
    expect(lines).toEqual(['warn wa-gateway-sdk: retrying request']);
  });
});
