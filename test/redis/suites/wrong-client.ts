/**
 * A standalone client (a URL, or `new Redis(url)`) pointed at a node of a Redis Cluster: every store and the inbox
 * answer a typed error naming the fix (connect with ioredis's `Cluster`), instead of looping on `MOVED`.
 */
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import {
  CampaignQueue,
  createInboxWorker,
  createNodeInboxHandler,
  InboxError,
  RedisIdempotencyStore,
  RedisStoreError,
} from '../../../src/redis/index.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

/** The tests, on a cluster target. They provoke refusals: the cluster's error counts are reset afterwards. */
export function wrongClientSuite(target: () => RedisTarget): void {
  it('a store answers needs_cluster_client, naming Cluster, for a key on another node', async () => {
    const url = `redis://127.0.0.1:${target().cluster!.ports[0]}`;
    const standalone = new Redis(url, { maxRetriesPerRequest: 1 });
    try {
      const store = new RedisIdempotencyStore({ redis: standalone, logLevel: 'off' });
      // Some keys are this node's own; within a few claims one belongs to another node.
      let refusal: unknown;
      for (let i = 0; i < 50 && refusal === undefined; i++) {
        refusal = await store.claim(`event-${i}`, 1000).then(
          () => undefined,
          (e: unknown) => e,
        );
      }
      expect(refusal).toBeInstanceOf(RedisStoreError);
      expect(refusal).toMatchObject({ failure: 'needs_cluster_client' });
      expect(String((refusal as Error).message)).toMatch(/new Cluster\(\[\{ host, port \}\]\)/);
    } finally {
      standalone.disconnect();
    }
  });

  it('a CampaignQueue never answers "no such campaign" for what it cannot see: needs_cluster_client on every node', async () => {
    for (const port of target().cluster!.ports) {
      const standalone = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1 });
      const queue = new CampaignQueue({ redis: standalone, logLevel: 'off' });
      try {
        // A campaign's keys under their one-Redis names may hash to this very node, where they are empty: that
        // must not read as a campaign that does not exist.
        for (let i = 0; i < 10; i++) {
          const status = await queue.status(`spring-${i}`).catch((e: unknown) => e);
          expect(status, `port ${port}, spring-${i}`).toBeInstanceOf(RedisStoreError);
          expect(status).toMatchObject({ failure: 'needs_cluster_client' });
        }
        await expect(queue.message('spring-0', '998900000001')).rejects.toMatchObject({
          failure: 'needs_cluster_client',
        });
        for (const refused of [
          () => queue.pause('spring-0', 'checking'),
          () => queue.resend('spring-0', '998900000001'),
          () => queue.drop('spring-0', '998900000001'),
          () => queue.inDoubt('spring-0'),
        ]) {
          await expect(refused()).rejects.toMatchObject({ failure: 'needs_cluster_client' });
        }
      } finally {
        await queue.close();
        standalone.disconnect();
      }
    }
  });

  it('the inbox receiver and worker stop with InboxError needs_cluster_client, logged once', async () => {
    const url = `redis://127.0.0.1:${target().cluster!.ports[0]}`;
    const logged: string[] = [];
    const logger = { warn: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) };
    const receiver = createNodeInboxHandler({
      connection: url,
      secret: 'wrong-client-secret-0123456789',
      logger,
    });
    const worker = createInboxWorker({ connection: url, onEvent: () => {}, logger });
    try {
      for (const side of [receiver, worker]) {
        const error = await side.ready().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InboxError);
        expect(error).toMatchObject({ reason: 'needs_cluster_client' });
      }
      await expect(worker.counts()).rejects.toMatchObject({ reason: 'needs_cluster_client' });
      const lines = logged.filter((m) => /node of a Redis Cluster/.test(m));
      expect(lines).toHaveLength(2); // one per connection, not one per MOVED
      expect(lines[0]).toMatch(/new Cluster\(\[\{ host, port \}\]\)/);
    } finally {
      await receiver.close();
      await worker.close();
    }
  });
}
