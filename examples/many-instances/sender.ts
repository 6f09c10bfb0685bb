/**
 * Many instances, part 3 of 3: the sender. Sends text messages through the gateway; their delivery receipts come
 * back as webhooks to the receivers and end up in the worker's tracker.
 *
 * Its rate limit is the shared one (`RedisRateLimiter`): every sender process using the same Redis and `name`
 * shares one budget of 80 requests arriving at the gateway per second, a `RATE_001` met by one pauses all of them,
 * and a `BILL_001` stops every process's bulk sends. Run as many senders as you like.
 *
 * Run:  REDIS_URL=redis://127.0.0.1:6379 GATEWAY_API_KEY=... GATEWAY_BASE_URL=... \
 *       npx tsx examples/many-instances/sender.ts 998901234567 998901234568
 *
 * In your app, import from 'wa-gateway-sdk' and 'wa-gateway-sdk/redis' instead of '../../src/...'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { GatewayClient } from '../../src/index.js';
import { RedisRateLimiter } from '../../src/redis/index.js';

export interface SendOptions {
  apiKey: string;
  baseUrl: string;
  redisUrl: string;
  to: readonly string[];
  text?: string;
  /** Names the shared budget: one per gateway API key (a label, not the key). Default `'gateway'`. */
  limiterName?: string;
}

/** Sends one text message to each recipient; answers the message ids of the ones the gateway accepted. */
export async function sendAll(options: SendOptions): Promise<string[]> {
  // Fail fast when Redis is down: the limiter then refuses (nothing is sent) instead of waiting.
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const gw = new GatewayClient({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      rateLimit: new RedisRateLimiter({ redis, perSecond: 80, name: options.limiterName ?? 'gateway' }),
    });
    const ids: string[] = [];
    const messages = options.to.map((to) => ({
      to,
      type: 'text' as const,
      text: { body: options.text ?? 'Your order has shipped.' },
    }));
    for await (const result of gw.messages.sendMany(messages, { concurrency: 8 })) {
      if (result.ok) ids.push(result.messageId);
      else console.error(`not sent to recipient #${result.index}: ${result.error.name}`);
    }
    return ids;
  } finally {
    redis.disconnect();
  }
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<string[]> {
  const ids = await sendAll({
    apiKey: env.GATEWAY_API_KEY ?? '',
    baseUrl: env.GATEWAY_BASE_URL ?? '',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    to: argv,
  });
  console.log(`sent ${ids.length} of ${argv.length}`);
  return ids;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
