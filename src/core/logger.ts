/**
 * The one logger contract of the SDK (clients and webhook handlers alike). Compatible with `console`, pino and
 * winston. The SDK passes only request metadata (method, path, status, attempt, timing, request id, error
 * code): never headers, bodies, phone numbers, keys or tokens.
 */

import { ConfigurationError } from './errors.js';
import { givenValue } from './given-value.js';
import { isThenable } from './observer.js';
export interface Logger {
  debug?(message: string, meta?: Record<string, unknown>): void;
  info?(message: string, meta?: Record<string, unknown>): void;
  warn?(message: string, meta?: Record<string, unknown>): void;
  error?(message: string, meta?: Record<string, unknown>): void;
}

type Level = keyof Logger;

/**
 * The logger each resolved logger writes to: lines are folded per destination, so a hundred clients that all log to
 * `console` fold into one burst, not a hundred.
 */
const targets = new WeakMap<Logger, Logger>();

/** How much the SDK logs. `off` logs nothing; each level includes the ones after it. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/** The environment variable read when neither `logger` nor `logLevel` says otherwise. */
export const LOG_ENV = 'WA_GATEWAY_LOG';

/**
 * The logger a client uses: `logger` (default `console`) filtered to `logLevel`, else to the `WA_GATEWAY_LOG`
 * environment variable, else to `warn`. The result has only the methods of the enabled levels, so a
 * disabled level costs one property read; `undefined` when nothing is logged at all.
 */
export function resolveLogger(options: {
  logger?: Logger | undefined;
  logLevel?: LogLevel | undefined;
}): Logger | undefined {
  const level = options.logLevel ?? levelFromEnv() ?? 'warn';
  if (!LEVELS.includes(level)) {
    throw new ConfigurationError(
      `logLevel must be one of ${LEVELS.join(', ')}; got ${typeof level === 'string' ? `'${level.slice(0, 20)}'` : givenValue(level)}.`,
    );
  }
  const target = options.logger ?? (globalThis as { console?: Logger }).console;
  if (level === 'off' || !target) return undefined;
  const out: Logger = {};
  targets.set(out, target);
  for (const l of LEVELS.slice(LEVELS.indexOf(level), 4) as Level[]) {
    if (typeof target[l] !== 'function') continue;
    out[l] = (message, meta) => log(target, l, message, meta);
  }
  return out;
}

/** `WA_GATEWAY_LOG`, when set to a level; an unknown value is ignored (it comes from a shell, not code). */
export function levelFromEnv(): LogLevel | undefined {
  let value: unknown;
  try {
    // Deno without --allow-env throws on access; Workers have no process at all.
    value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
      LOG_ENV
    ];
  } catch {
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase() as LogLevel;
  return LEVELS.includes(v) ? v : undefined;
}

/** Calls the logger without ever letting a broken logger break a request. */
export function log(
  logger: Logger | undefined,
  level: Level,
  message: string,
  meta?: Record<string, unknown>,
) {
  if (!logger) return;
  try {
    // Without meta, the message alone: `console.warn(message, undefined)` prints a stray "undefined".
    const written: unknown = meta === undefined ? logger[level]?.(message) : logger[level]?.(message, meta);
    // An async method (one that ships the line to a log service) types as `=> void` too; its rejection,
    // unhandled, would end a Node process.
    if (isThenable(written)) Promise.resolve(written).then(undefined, ignore);
  } catch {
    // A logger that throws must not turn a successful send into a failure.
  }
}

function ignore(): void {}

/** A line within this long of the previous one of its kind belongs to the same burst. */
export const FOLD_WINDOW_MS = 1000;
/** The longest a burst is folded before its count is logged (a storm that never pauses still reports). */
const FOLD_REPORT_MS = 60_000;

interface Burst {
  /** When the line that opened the burst, or the last summary, was logged. */
  since: number;
  last: number;
  folded: number;
  /** Folded lines by their `code` (or `error`) field: what the storm was made of. */
  codes: Map<string, number>;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const bursts = new WeakMap<Logger, Map<string, Burst>>();

/**
 * Logs `message` like `log`, but folds a burst of it: the first line of a burst is logged as is; the ones that
 * follow within `FOLD_WINDOW_MS` of each other are counted, and one summary line says how many there were, once the
 * burst is over (or every minute while it lasts). Bursts are per destination: every client logging to `console`
 * shares one. For lines that a fault repeats by the thousand (a retry storm), never for one-off lines.
 *
 * A folded line is still logged at `debug` (seen with `logLevel: 'debug'` or `WA_GATEWAY_LOG=debug`): folding
 * keeps `warn` readable, it never hides a line from whoever asks for everything. The summary waits for the end of
 * the burst on an unref'd timer (logging must never keep a process alive), so a process that exits within a
 * second of a burst's last line exits without it; the burst's first line was logged, and at `debug` every line.
 */
export function logFolded(
  logger: Logger | undefined,
  level: Level,
  message: string,
  meta: Record<string, unknown> = {},
  now: number = performance.now(),
): void {
  if (!logger?.[level]) return;
  const target = targets.get(logger) ?? logger;
  let byMessage = bursts.get(target);
  if (!byMessage) {
    byMessage = new Map();
    bursts.set(target, byMessage);
  }
  const burst = byMessage.get(message);
  if (burst && now - burst.last < FOLD_WINDOW_MS) {
    burst.last = now;
    burst.folded++;
    const code = typeof meta['code'] === 'string' ? meta['code'] : String(meta['error'] ?? 'other');
    burst.codes.set(code, (burst.codes.get(code) ?? 0) + 1);
    if (level !== 'debug') log(logger, 'debug', message, meta);
    if (now - burst.since >= FOLD_REPORT_MS) flushBurst(logger, level, message, burst, now);
    else burst.timer ??= burstTimer(logger, level, message, byMessage, burst);
    return;
  }
  if (burst) endBurst(logger, level, message, byMessage, burst, now);
  byMessage.set(message, { since: now, last: now, folded: 0, codes: new Map(), timer: undefined });
  log(logger, level, message, meta);
}

/** Logs the burst's count so far, if any, and starts counting again. */
function flushBurst(logger: Logger, level: Level, message: string, burst: Burst, now: number): void {
  if (burst.folded > 0) {
    const durationMs = Math.round(burst.last - burst.since);
    const codes = [...burst.codes].map(([code, n]) => `${code} x${n}`).join(', ');
    log(
      logger,
      level,
      `${message}: ${burst.folded} more like it in ${Math.round(durationMs / 1000)} s (${codes}), folded into this line`,
      { folded: burst.folded, durationMs, codes: Object.fromEntries(burst.codes) },
    );
  }
  burst.since = now;
  burst.folded = 0;
  burst.codes.clear();
}

function endBurst(
  logger: Logger,
  level: Level,
  message: string,
  byMessage: Map<string, Burst>,
  burst: Burst,
  now: number,
): void {
  if (burst.timer !== undefined) clearTimeout(burst.timer);
  burst.timer = undefined;
  flushBurst(logger, level, message, burst, now);
  if (byMessage.get(message) === burst) byMessage.delete(message);
}

/** Ends the burst once a window passes without another line of it. Unref'd: a summary never keeps a process up. */
function burstTimer(
  logger: Logger,
  level: Level,
  message: string,
  byMessage: Map<string, Burst>,
  burst: Burst,
): ReturnType<typeof setTimeout> {
  const check = (): void => {
    const now = performance.now();
    const quietFor = now - burst.last;
    if (quietFor >= FOLD_WINDOW_MS) {
      burst.timer = undefined;
      endBurst(logger, level, message, byMessage, burst, now);
      return;
    }
    burst.timer = setTimeout(check, FOLD_WINDOW_MS - quietFor);
    (burst.timer as { unref?: () => void }).unref?.();
  };
  const timer = setTimeout(check, FOLD_WINDOW_MS);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
