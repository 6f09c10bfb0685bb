/**
 * A count option (a cache's size, a number of tries) is a whole number of at least 1, by one rule (`countOption`)
 * wherever it is taken: anything else is a ConfigurationError naming the option, never a silent fall back to the
 * default (`new StatusTracker({ maxEntries: 0 })` kept 100,000 entries, `1.5` kept one).
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { RedisStatusStore } from '../../src/redis/index.js';
import { createWebhookHandler, MemoryIdempotencyStore, StatusTracker } from '../../src/webhooks/index.js';

const BAD: [unknown, string][] = [
  [0, 'got 0'],
  [-1, 'got -1'],
  [1.5, 'got 1.5'],
  [Number.NaN, 'got NaN'],
  [Number.POSITIVE_INFINITY, 'got Infinity'],
  ['10', 'got a string'],
  [null, 'got null'],
];

// Never connects: the options are checked before any command.
const redis = new Redis({ lazyConnect: true });
afterAll(() => redis.disconnect());
const OPTIONS: [string, (value: unknown) => unknown][] = [
  ['new StatusTracker: `maxEntries`', (v) => new StatusTracker({ maxEntries: v as number })],
  ['new MemoryIdempotencyStore: `maxKeys`', (v) => new MemoryIdempotencyStore({ maxKeys: v as number })],
  [
    'createWebhookHandler: `maxBodyBytes`',
    (v) =>
      createWebhookHandler({
        secret: 'whsec_count_option_test_0123456789',
        onEvent: () => {},
        maxBodyBytes: v as number,
      }),
  ],
  ['new RedisStatusStore: `maxAttempts`', (v) => new RedisStatusStore({ redis, maxAttempts: v as number })],
];

describe.each(OPTIONS)('%s', (name, make) => {
  it.each(BAD)('refuses %s', (value, got) => {
    expect(() => make(value)).toThrow(ConfigurationError);
    expect(() => make(value)).toThrow(`${name} must be a whole number of at least 1; ${got}.`);
  });

  it('takes a whole number, and its default when undefined', () => {
    expect(() => make(7)).not.toThrow();
    expect(() => make(undefined)).not.toThrow();
  });
});
