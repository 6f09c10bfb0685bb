/**
 * The one check of an option that takes an object of the SDK's (a store, a tracker, a catalogue) or the user's own
 * of that shape: the methods the SDK calls on it must be functions, checked when the option is taken, so that
 * `serviceWindow: {}` or `sessions: redis` is refused there rather than failing every send or event later.
 */
import { ConfigurationError } from './errors.js';
import { givenValue } from './given-value.js';

/**
 * `value` when it has every method of `methods`; else a `ConfigurationError` reading
 * `<name> must be <is>; got an object without <missing>` (or its type: never its content).
 *
 * @param name The option as the message names it, e.g. ``'createRouter: `window`'``.
 * @param is What it must be, e.g. `'a WindowStore (MemoryWindowStore, RedisWindowStore)'`.
 * @example
 * const window = withMethods(options.window, 'createRouter: `window`', 'a WindowStore', ['recordInbound', 'lastInbound']);
 */
export function withMethods<T>(value: T, name: string, is: string, methods: readonly string[]): T {
  const missing =
    typeof value === 'object' && value !== null
      ? methods.filter((m) => typeof (value as Record<string, unknown>)[m] !== 'function')
      : methods;
  if (missing.length > 0) {
    throw new ConfigurationError(
      `${name} must be ${is}; got ${typeof value === 'object' && value !== null ? `an object without ${missing.join(', ')}` : givenValue(value)}.`,
    );
  }
  return value;
}
