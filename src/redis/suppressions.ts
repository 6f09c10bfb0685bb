/**
 * `RedisSuppressionList`: the opt-outs every process shares. One hash on one Redis; on a Redis Cluster 256, by a
 * bucket of the recipient's hash, so the list spreads over the slots. Fields are hashes of the recipients, never
 * the numbers. An opt-out never expires (it is the one kind of record the SDK keeps without one: a customer who
 * wrote STOP must not hear from you again because a key ran out); `remove` lifts it.
 */
import { checkReason, checkRecipient, type SuppressionList } from '../campaigns/suppressions.js';
import type { RedisClient } from './client.js';
import { hashId, type KeySpace } from './keys.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { openStore, type RedisStoreOptions } from './store-options.js';

export type RedisSuppressionListOptions = RedisStoreOptions;

/**
 * The suppression list over Redis, for every process of a campaign queue (its `suppressions`) and for the webhook
 * handler that adds a customer who writes STOP. Keys: `<prefix>supp` (`<prefix>supp:{b3f}` on a cluster); each
 * entry about 100 bytes.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisSuppressionList } from 'wa-gateway-sdk/redis';
 * const optOuts = new RedisSuppressionList({ redis: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 }) });
 * await optOuts.add('998901234567', 'wrote STOP');
 */
export class RedisSuppressionList implements SuppressionList {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;

  constructor(options: RedisSuppressionListOptions) {
    const { redis, keys } = openStore(options, 'new RedisSuppressionList');
    this.#redis = redis;
    this.#keys = keys;
  }

  async reasonFor(recipient: string): Promise<string | undefined> {
    const op = 'RedisSuppressionList.reasonFor';
    const { key, field } = this.#place(checkRecipient(recipient, op));
    const value = await call(op, () => this.#redis.hget(key, field));
    if (value === null) return undefined;
    try {
      const parsed = JSON.parse(value) as { reason?: unknown };
      if (typeof parsed.reason === 'string') return parsed.reason;
    } catch {
      // Not of the list's shape: said below.
    }
    throw unexpectedReply(op, 'a suppression entry', typeof value);
  }

  async add(recipient: string, reason: string): Promise<void> {
    const op = 'RedisSuppressionList.add';
    const { key, field } = this.#place(checkRecipient(recipient, op));
    const value = JSON.stringify({ reason: checkReason(reason, op), at: new Date().toISOString() });
    await call(op, () => this.#redis.hset(key, field, value));
  }

  async remove(recipient: string): Promise<boolean> {
    const op = 'RedisSuppressionList.remove';
    const { key, field } = this.#place(checkRecipient(recipient, op));
    return expectNumber(op, await call(op, () => this.#redis.hdel(key, field))) === 1;
  }

  /** How many recipients are suppressed (every bucket, on a cluster). */
  async size(): Promise<number> {
    const op = 'RedisSuppressionList.size';
    const counts = await call(op, () =>
      Promise.all(this.#keys.buckets().map((b) => this.#redis.hlen(this.#keys.name('supp', b)))),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  #place(recipientKey: string): { key: string; field: string } {
    const field = hashId(recipientKey);
    return { key: this.#keys.name('supp', this.#keys.bucketOf(field)), field };
  }
}
