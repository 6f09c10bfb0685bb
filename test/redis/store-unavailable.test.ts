/**
 * A dedupe store that cannot be reached (redis-server stopped): by default the handler runs each event without
 * deduplication (at-least-once) instead of answering 500 until the gateway drops it; `'fail'` keeps the 500.
 */
import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, type WebhookErrorInfo } from '../../src/webhooks/index.js';
import { describeRedis, type RedisServer, useRedis, whenClient } from '../helpers/redis-server.js';

const secret = 'store-unavailable-secret-0123456789ab';
let server: RedisServer;
let redis: Redis;

function post(id: string): Request {
  return new Request('https://hook.test/', {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    body: JSON.stringify(statusEnvelope(statusObject('delivered', { id }))),
  });
}

describeRedis('onStoreUnavailable with a stopped redis-server', () => {
  useRedis((s, r) => {
    server = s;
    redis = r;
  });

  it("'process' (default) runs deliveries during the outage; 'fail' answers 500; dedup resumes when Redis is back", async () => {
    const warnings: string[] = [];
    const dedupe = new RedisIdempotencyStore({ redis, logger: { warn: (m) => void warnings.push(m) } });
    const processed: string[] = [];
    const stages: WebhookErrorInfo['stage'][] = [];
    const onEvent = (e: { kind: string; status?: { id: string } }) => {
      if (e.kind === 'status' && e.status) processed.push(e.status.id);
    };
    const processing = createWebhookHandler({
      secret,
      dedupe,
      onEvent,
      logger: { warn: (m) => void warnings.push(m), error: () => {} },
      onError: (_, info) => void stages.push(info.stage),
    });
    const failing = createWebhookHandler({
      secret,
      dedupe,
      onEvent,
      logger: false,
      onStoreUnavailable: 'fail',
    });

    const gone = whenClient(redis, 'gone');
    await server.stop();
    await gone;
    expect((await processing(post('wamid.outage-1'))).status).toBe(200);
    expect((await processing(post('wamid.outage-2'))).status).toBe(200);
    expect((await failing(post('wamid.outage-3'))).status).toBe(500);
    expect(processed).toEqual(['wamid.outage-1', 'wamid.outage-2']);
    expect(warnings.filter((m) => m.includes('stage dedupe'))).toHaveLength(2);
    expect(stages).toEqual(['dedupe', 'dedupe']);

    const back = whenClient(redis, 'ready');
    await server.start();
    await back;
    expect((await processing(post('wamid.after'))).status).toBe(200);
    const again = await processing(post('wamid.after'));
    expect(again.headers.get('x-wa-gateway-duplicates')).toBe('1');
    expect(processed).toEqual(['wamid.outage-1', 'wamid.outage-2', 'wamid.after']);
    // The store's lines: the outage (once, if a reconnect failed before Redis was back) and its end.
    const storeLines = warnings.filter((m) => m.startsWith('wa-gateway-sdk: RedisIdempotencyStore'));
    expect(storeLines.length).toBeLessThanOrEqual(2);
    for (const line of storeLines)
      expect(line).toMatch(
        /^wa-gateway-sdk: Redis(RateLimiter|IdempotencyStore): (cannot reach Redis at 127\.0\.0\.1:\d+: connection refused|Redis at 127\.0\.0\.1:\d+ is reachable again)/,
      );
  });
});
