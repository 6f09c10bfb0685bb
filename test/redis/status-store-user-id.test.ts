/**
 * RedisStatusStore with statuses addressed by a business-scoped user id (no `recipient_id`, issue 22), against a
 * real redis-server: tracked by wamid like any other, the id kept, a failure whose error lacks `message` and
 * `error_data` still final, and the RedisIdempotencyStore dedupes the redelivery by the same key.
 */
import type { Redis } from 'ioredis';
import { beforeEach, expect, it } from 'vitest';
import { RedisIdempotencyStore, RedisStatusStore } from '../../src/redis/index.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, type WebhookStatus } from '../../src/webhooks/index.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';

const secret = 'status-user-id-secret-0123456789abcd';
const USER_ID = 'US.13491208655302741918';
let redis: Redis;

function byUserId(status: string, timestamp: string): WebhookStatus {
  const { recipient_id: _recipient, ...rest } = statusObject(status, { id: 'wamid.bsuid', timestamp });
  const out: WebhookStatus = { ...rest, recipient_user_id: USER_ID };
  if (status === 'failed') out.errors = [{ code: 131049, title: 'Not delivered' }];
  return out;
}

describeRedis('RedisStatusStore: statuses addressed by business-scoped id', () => {
  useRedis((_, r) => {
    redis = r;
  });
  beforeEach(async () => {
    await redis.flushall();
  });

  it('two instances, out of order and redelivered: one state per wamid, failed final, each event once', async () => {
    const changes: string[] = [];
    const instance = () => {
      const statuses = new RedisStatusStore({
        redis,
        onChange: ({ current }) => void changes.push(current.status),
      });
      return createWebhookHandler({
        secret,
        logger: false,
        dedupe: new RedisIdempotencyStore({ redis }),
        onEvent: async (e) => {
          if (e.kind !== 'status') throw new Error(`expected a status, got ${e.kind}`);
          await statuses.update(e);
        },
      });
    };
    const [a, b] = [instance(), instance()];
    const post = (handler: ReturnType<typeof instance>, status: WebhookStatus) =>
      handler(
        new Request('https://hook.test/', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}` },
          body: JSON.stringify(statusEnvelope(status)),
        }),
      );
    const delivered = byUserId('delivered', '1700000005');
    expect((await post(a, delivered)).status).toBe(200);
    expect((await post(b, byUserId('sent', '1700000001'))).status).toBe(200);
    expect((await post(b, delivered)).status).toBe(200); // a redelivery: deduped
    expect((await post(a, byUserId('failed', '1700000009'))).status).toBe(200);

    const stored = await new RedisStatusStore({ redis }).get('wamid.bsuid');
    expect(stored).toMatchObject({
      wamid: 'wamid.bsuid',
      status: 'failed',
      recipientUserId: USER_ID,
      sentAt: 1700000001,
      deliveredAt: 1700000005,
      failedAt: 1700000009,
      delivered: true,
      billable: true,
      events: 3,
      errors: [{ code: 131049, title: 'Not delivered' }],
    });
    expect(stored?.recipientId).toBeUndefined();
    expect(changes).toEqual(['delivered', 'failed']);
  });
});
