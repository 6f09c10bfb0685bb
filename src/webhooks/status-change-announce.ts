import { type Logger, log } from '../core/logger.js';
import type { StatusChange } from './status-tracker.js';

/**
 * A shared status store's step after it wrote a change: `onChange` runs; if it fails, the write is undone (`undo`,
 * which leaves a change another update already moved on) and the error is rethrown, so the handler answers 500
 * and the gateway's retry finds the change again. An undo that fails too is logged, never in place of the error.
 *
 * @example
 * await announceStatusChange(onChange, { ...result, current }, () => undoWrite(), logger);
 */
export async function announceStatusChange(
  onChange: ((change: StatusChange) => void | Promise<void>) | undefined,
  change: StatusChange,
  undo: () => Promise<unknown>,
  logger: Logger | undefined,
): Promise<void> {
  try {
    await onChange?.(change);
  } catch (error) {
    try {
      await undo();
    } catch (undoError) {
      log(logger, 'error', 'wa-gateway-sdk: onChange failed and its status change could not be undone', {
        error: undoError instanceof Error ? undoError.name : typeof undoError,
      });
    }
    throw error;
  }
}
