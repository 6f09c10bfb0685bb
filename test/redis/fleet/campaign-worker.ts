/**
 * One worker process of the campaign queue fleet (test/redis/campaign-queue-fleet.proof.test.ts): a
 * `CampaignQueue` worker sending through a `GatewayClient` at the sandbox, with the shared `RedisRateLimiter` and
 * `RedisSuppressionList`. Prints `READY` once it works; closes cleanly on SIGTERM (the proof SIGKILLs it too).
 */
import { GatewayClient } from '../../../src/index.js';
import { CampaignQueue, RedisRateLimiter, RedisSuppressionList } from '../../../src/redis/index.js';
import { connect } from '../../helpers/redis-target.js';

const url = process.env.REDIS_URL ?? '';
const prefix = process.env.PREFIX ?? 'fleet:';
const log = (level: string) => (message: string) => void process.send?.({ log: `${level} ${message}` });
const logger = { warn: log('warn'), error: log('error') };
// Commands wait while Redis restarts (its restart is part of the proof), as a production client would.
const redis = connect(url, { maxRetriesPerRequest: null });
const queue = new CampaignQueue({
  redis,
  prefix,
  logger,
  suppressions: new RedisSuppressionList({ redis, prefix, logger }),
});
const gateway = new GatewayClient({
  apiKey: 'sk_test_sandbox',
  baseUrl: process.env.SANDBOX_URL ?? '',
  rateLimit: new RedisRateLimiter({
    redis,
    prefix,
    perSecond: Number(process.env.PER_SECOND ?? '80'),
    logger,
  }),
  logger,
});
const worker = queue.work({
  gateway,
  concurrency: Number(process.env.CONCURRENCY ?? '16'),
  lockDurationMs: Number(process.env.LOCK_MS ?? '30000'),
  recipientLeaseMs: Number(process.env.LOCK_MS ?? '30000'),
  pollMs: 100,
});
await worker.ready();
process.stdout.write('READY\n');
process.on('SIGTERM', () => {
  void worker
    .close()
    .then(() => queue.close())
    .then(() => {
      redis.disconnect();
      process.exit(0);
    });
});
