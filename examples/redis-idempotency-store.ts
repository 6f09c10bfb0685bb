/**
 * A Redis-backed `IdempotencyStore`, so deduplication holds across processes (several instances behind a load
 * balancer, serverless functions). Written against a minimal structural client so it compiles without a Redis
 * package: the shape matches node-redis v4+ (`createClient()`); for ioredis, adapt `set` to
 * `redis.set(key, value, 'PX', ms, 'NX')`.
 *
 * Key life: `claim` → `SET key in_progress NX PX <lease>` (atomic: exactly one claimer wins); `complete` →
 * `SET key done PX <ttl>`; `release` → `DEL key`. The short lease means a worker that crashed mid-event frees the
 * key by itself; the long TTL after `complete` keeps redeliveries out for a day.
 *
 * In an application: `import { createNodeWebhookHandler, type IdempotencyStore } from 'wa-gateway-sdk/webhooks';`
 */
import { type ClaimResult, createNodeWebhookHandler, type IdempotencyStore } from '../src/webhooks/index.js';

/** The three commands used, as node-redis v4+ types them. */
export interface RedisLike {
  set(key: string, value: string, options: { NX?: true; PX: number }): Promise<string | null>;
  get(key: string): Promise<string | null>;
  del(key: string): Promise<number>;
}

export interface RedisIdempotencyStoreOptions {
  /** Namespace of the keys. Default `wa:webhook:`. */
  prefix?: string;
  /**
   * How long an in-progress claim lives. Longer than your slowest `onEvent`, shorter than you are willing to wait
   * after a crash. Default 60 s.
   */
  leaseMs?: number;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly prefix: string;
  private readonly leaseMs: number;

  constructor(
    private readonly redis: RedisLike,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    this.prefix = options.prefix ?? 'wa:webhook:';
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  async claim(key: string, _ttlMs: number): Promise<ClaimResult> {
    const k = this.prefix + key;
    // Two rounds: the key may expire between a failed SET NX and the GET.
    for (let round = 0; round < 2; round++) {
      if ((await this.redis.set(k, 'in_progress', { NX: true, PX: this.leaseMs })) === 'OK') return 'claimed';
      const state = await this.redis.get(k);
      if (state === 'done') return 'done';
      if (state !== null) return 'in_progress';
    }
    return 'in_progress';
  }

  async complete(key: string, ttlMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, 'done', { PX: ttlMs });
  }

  async release(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/** Wiring it up: one store shared by every instance of the service. */
export function createHandler(redis: RedisLike, secret: string) {
  return createNodeWebhookHandler({
    secret,
    dedupe: new RedisIdempotencyStore(redis),
    onEvent: async (event) => {
      if (event.kind === 'message') {
        // Persist or enqueue; throwing here answers 500 and the gateway retries.
      }
    },
  });
}
