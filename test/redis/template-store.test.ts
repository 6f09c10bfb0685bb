/**
 * Two application processes sharing one RedisTemplateStore on a real redis-server: the template status event
 * the gateway delivers to one of them is what the other checks its sends against.
 */

import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TemplateCatalog } from '../../src/index.js';
import { RedisTemplateStore } from '../../src/redis/index.js';
import { templateStatusEnvelope } from '../../src/testing/webhook-fixtures.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { type Fleet, forkFleet } from './fixtures/processes.js';

const SECRET = 'template-store-secret-0123456789abcdef';
let redis: RedisServer;

describeRedis('RedisTemplateStore', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('a status event handled by one process is what the other sees', async () => {
    const env = { REDIS_URL: redis.url, WEBHOOK_SECRET: SECRET, PREFIX: `t${Date.now()}:` };
    const fleets: Fleet[] = [
      await forkFleet('template-catalog', 1, env),
      await forkFleet('template-catalog', 1, env),
    ];
    const [a, b] = fleets as [Fleet, Fleet];
    try {
      const [before] = await b.round<{ problem: { rule: string; status: string } }>('check');
      expect(before!.problem).toMatchObject({ rule: 'template.status', status: 'UNKNOWN' });

      const deliver = async (event: string, reason: string | null) => {
        const [url] = await a.round<string>('url');
        const body = templateStatusEnvelope({
          event,
          message_template_id: 1234567890,
          message_template_name: 'order_shipped',
          message_template_language: 'en_US',
          reason,
        });
        const res = await fetch(url!, {
          method: 'POST',
          headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(200);
      };

      await deliver('REJECTED', 'INVALID_FORMAT');
      const [rejected] = await b.round<{ problem: unknown }>('check');
      expect(rejected!.problem).toMatchObject({
        rule: 'template.status',
        status: 'REJECTED',
        reason: 'INVALID_FORMAT',
      });

      await deliver('APPROVED', null);
      const [approved] = await b.round<{ problem: unknown; record: unknown }>('check');
      expect(approved).toEqual({
        problem: null,
        record: expect.objectContaining({ status: 'APPROVED', sourceId: '1234567890' }),
      });
      expect((approved!.record as { reason?: unknown }).reason).toBeUndefined();
    } finally {
      for (const f of fleets) f.stop();
    }
  }, 60_000);

  it('merges fields, keeps the definition created through the catalogue, and lists', async () => {
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      const store = new RedisTemplateStore({ redis: client, prefix: `m${Date.now()}:` });
      const catalog = new TemplateCatalog({ store });
      const definition = {
        name: 'hello',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hello, we are open.' },
      } as const;
      await catalog.recordCreated(definition, {
        sourceId: '42',
        name: 'hello',
        language: 'en_US',
        category: 'UTILITY',
        status: 'PENDING',
      });
      await store.update('hello', 'en_US', { status: 'APPROVED' });
      expect(await catalog.get('hello', 'en_US')).toMatchObject({
        status: 'APPROVED',
        sourceId: '42',
        definition,
      });
      expect(await store.get('nope', 'en_US')).toBeUndefined();
      expect((await store.list()).map((r) => r.name)).toEqual(['hello']);
      expect(await catalog.languages('hello')).toEqual(['en_US']);
    } finally {
      client.disconnect();
    }
  });
});
