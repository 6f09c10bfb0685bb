/** CampaignQueue on one real redis-server (the same suite runs on a Redis Cluster: cluster.proof.test.ts). */
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { CampaignQueue, RedisStoreError } from '../../src/redis/index.js';
import { waitFor } from '../helpers/manual-clock.js';
import { describeRedis, type RedisServer, useRedis, whenClient } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { campaignQueueSuite, text } from './suites/campaign-queue.js';

describeRedis('CampaignQueue on one redis-server', () => {
  const target = useRedisTarget('node');
  campaignQueueSuite(target);
});

describeRedis('CampaignQueue workers while their Redis is down', () => {
  let server: RedisServer;
  useRedis((s, client) => {
    server = s;
    // This block kills the server: its own client's reconnect failures are expected.
    client.on('error', () => {});
  });

  it("gives onError Redis's and BullMQ's failures as RedisStoreError, never the client's raw error", async () => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    redis.on('error', () => {});
    const logged: string[] = [];
    const queue = new CampaignQueue({
      redis,
      prefix: 'down:',
      logger: { warn: (m) => void logged.push(m), error: (m) => void logged.push(m) },
    });
    // Scheduled an hour ahead: the worker takes the campaign up and sends nothing; no gateway is reached.
    const gateway = new GatewayClient({
      apiKey: 'sk_test_x',
      baseUrl: 'http://127.0.0.1:9',
      rateLimit: false,
    });
    const errors: { error: unknown; stage: string }[] = [];
    const worker = queue.work({
      gateway,
      pollMs: 50,
      onError: (error, info) => void errors.push({ error, stage: info.stage }),
    });
    try {
      await whenClient(redis, 'ready');
      await queue.enqueue('later', [text('998900000001')], { startAt: Date.now() + 3_600_000 });
      await worker.ready();
      await waitFor(() => worker.campaigns().includes('later'), 'the worker to take the campaign up');
      await server.kill();
      // The campaign's BullMQ worker loses its connection, and the registry poll its commands.
      await waitFor(
        () => ['worker', 'registry'].every((stage) => errors.some((e) => e.stage === stage)),
        'failures of both stages',
        30_000,
      );
      for (const { error, stage } of errors) {
        expect(error, stage).toBeInstanceOf(RedisStoreError);
        expect((error as RedisStoreError).failure, stage).toBe('unavailable');
      }
      expect(logged.some((line) => line.includes('cannot reach Redis'))).toBe(true);
    } finally {
      await server.start();
      await worker.close();
      await queue.close();
      redis.disconnect();
    }
  }, 60_000);
});
