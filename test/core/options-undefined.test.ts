/**
 * An option given as `undefined` (what `process.env.X` is when unset; what `exactOptionalPropertyTypes` users
 * may now pass, see test/types/exact-optional.test.ts) behaves as the option left out. Checked here where the
 * code path differs from a plain `options.x ?? default`: options spread into an object with defaults, forwarded
 * whole to another part (the sandbox's simulator, streamRange's requests), or destructured with defaults. Each
 * case runs twice, once without the options and once with each of them `undefined`, and must give the same.
 */

import type { Redis } from 'ioredis';
import { HttpResponse, http, passthrough } from 'msw';
import { expect, it } from 'vitest';
import { GatewayClient, PlatformClient, RateLimiter } from '../../src/index.js';
import { CampaignQueue, RedisRateLimiter } from '../../src/redis/index.js';
import { createPlatformHandlers, platformMessageRecord, startSandbox } from '../../src/testing/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';

const msw = useMswServer();
const PLATFORM = 'https://platform.sim';
const STREAM = 'https://stream.sim';
const TO = '998901234567';
const text = { to: TO, type: 'text', text: { body: 'hi' } } as const;

/** Each of `names` set to `undefined`, or nothing at all. */
function given(explicit: boolean, ...names: string[]): Record<string, undefined> {
  return explicit ? Object.fromEntries(names.map((n) => [n, undefined])) : {};
}

const cases: [string, (explicit: boolean) => Promise<unknown>][] = [
  [
    'PlatformState.failNext: `times` (spread under its default 1)',
    async (explicit) => {
      const { state } = createPlatformHandlers({ platformUrl: PLATFORM, streamUrl: STREAM });
      state.failNext({ path: '/stats', status: 500, ...given(explicit, 'times', 'method') });
      return state.faults.map((f) => f.times);
    },
  ],
  [
    'startSandbox: the gateway simulator options (spread into the simulator) and the server options',
    async (explicit) => {
      const sandbox = await startSandbox({
        ...given(
          explicit,
          'apiKeys',
          'ratePerSecond',
          'balance',
          'feePerDelivery',
          'templates',
          'messagingProduct',
          'phoneNumberId',
          'port',
          'host',
          'webhookUrl',
          'webhookSecret',
          'statusDelaysMs',
          'platform',
          'secretKeys',
        ),
      });
      try {
        // A real server on 127.0.0.1: past msw, which holds this file's other requests.
        msw.use(http.all(`${sandbox.url}/*`, () => passthrough()));
        const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, maxRetries: 0 });
        await gw.messages.send(text);
        const options = sandbox.simulator.options;
        return {
          host: new URL(sandbox.url).hostname,
          answered: sandbox.simulator.answered,
          defaults: [
            options.apiKeys,
            options.ratePerSecond,
            options.feePerDelivery,
            sandbox.simulator.balance,
          ],
          platform: sandbox.platform !== undefined,
        };
      } finally {
        await sandbox.close();
      }
    },
  ],
  [
    'PlatformClient.messages.streamRange: its options, forwarded whole to each stream request',
    async (explicit) => {
      const records = Array.from({ length: 5 }, (_, i) =>
        platformMessageRecord({ id: i + 1, created_at: `2024-05-0${i + 1}T09:00:00.000000Z` }),
      );
      const { handlers } = createPlatformHandlers({
        platformUrl: PLATFORM,
        streamUrl: STREAM,
        messages: records,
      });
      msw.use(...handlers);
      const platform = new PlatformClient({
        platformUrl: PLATFORM,
        streamUrl: STREAM,
        username: 'agent@example.com',
        password: 'secret-password',
        ...given(explicit, 'token', 'tokenStore', 'timeoutMs', 'maxRetries', 'fetch', 'logger', 'logLevel'),
      });
      const ids: number[] = [];
      const range = { from: '2024-04-30T00:00:00Z', to: '2024-05-10T00:00:00Z' };
      const options = given(
        explicit,
        'windowMs',
        'maxPerRequest',
        'skipIds',
        'onProgress',
        'signal',
        'timeoutMs',
        'idleTimeoutMs',
        'validate',
      );
      for await (const m of platform.messages.streamRange(range, options)) ids.push(m.id);
      return ids;
    },
  ],
  [
    'GatewayClient and messages.send: the request sent',
    async (explicit) => {
      const seen: unknown[] = [];
      msw.use(
        http.post(`${GW}/v1/wa/message`, async ({ request }) => {
          seen.push({
            url: request.url,
            body: await request.json(),
            auth: request.headers.get('authorization'),
          });
          return HttpResponse.json(sendOk());
        }),
      );
      const gw = new GatewayClient({
        apiKey: API_KEY,
        baseUrl: GW,
        ...given(
          explicit,
          'timeoutMs',
          'maxRetries',
          'maxRetryWaitMs',
          'rateLimit',
          'fetch',
          'retryInFlightSends',
          'messagingProduct',
          'serviceWindow',
          'campaigns',
          'templates',
          'defaultHeaders',
          'logger',
          'logLevel',
        ),
      });
      await gw.messages.send(
        text,
        given(explicit, 'isFake', 'mmlite', 'retryInFlight', 'validate', 'extraFields'),
      );
      await gw.messages.sendMany(
        [text],
        given(explicit, 'concurrency', 'onProgress', 'validate', 'campaign'),
      );
      return seen;
    },
  ],
  [
    'RateLimiter: `windowMs` (a destructured default)',
    async (explicit) => new RateLimiter({ perSecond: 5, ...given(explicit, 'windowMs') }).windowMs,
  ],
];

it.each(cases)('%s', async (_, run) => {
  const omitted = await run(false);
  expect(await run(true)).toEqual(omitted);
});

describeRedis('Redis options given as undefined', () => {
  let redis: Redis;
  useRedis((_, client) => {
    redis = client;
  });

  /** The keys a run leaves, on an empty database. */
  async function keysAfter(run: () => Promise<void>): Promise<string[]> {
    await redis.flushdb();
    await run();
    return (await redis.keys('*')).sort();
  }

  const redisCases: [string, (explicit: boolean) => Promise<void>][] = [
    [
      'RedisRateLimiter: `prefix`, `name` and the timings',
      async (explicit) => {
        const limiter = new RedisRateLimiter({
          redis,
          ...given(
            explicit,
            'prefix',
            'logger',
            'logLevel',
            'perSecond',
            'name',
            'leaseMs',
            'billingStopMs',
            'pollMs',
          ),
        });
        const release = await limiter.acquire(undefined, given(explicit, 'bulk'));
        release();
      },
    ],
    [
      'CampaignQueue: `prefix`, enqueue options and inDoubt (destructured defaults)',
      async (explicit) => {
        const queue = new CampaignQueue({
          redis,
          ...given(explicit, 'prefix', 'retentionMs', 'inDoubtAfterMs', 'retryableFailureCodes', 'parkMs'),
        });
        try {
          await queue.enqueue('spring', [text], given(explicit, 'key', 'startAt', 'batchSize'));
          expect(await queue.inDoubt('spring', given(explicit, 'olderThanMs', 'limit'))).toEqual([]);
        } finally {
          await queue.close();
        }
      },
    ],
  ];

  it.each(redisCases)('%s', async (_, run) => {
    const omitted = await keysAfter(() => run(false));
    expect(omitted.length).toBeGreaterThan(0);
    expect(await keysAfter(() => run(true))).toEqual(omitted);
  });
});
