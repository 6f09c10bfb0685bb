/**
 * One webhook receiver of the campaign queue fleet: a real node:http server whose `onEvent` is `queue.apply`
 * (the campaign report, and the messages in doubt resolved from their statuses). Prints `READY <port>`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CampaignQueue } from '../../../src/redis/index.js';
import { createNodeWebhookHandler } from '../../../src/webhooks/index.js';
import { connect } from '../../helpers/redis-target.js';

const log = (level: string) => (message: string) => void process.send?.({ log: `${level} ${message}` });
const logger = { warn: log('warn'), error: log('error') };
const redis = connect(process.env.REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
const queue = new CampaignQueue({ redis, prefix: process.env.PREFIX ?? 'fleet:', logger });
const handler = createNodeWebhookHandler({
  secret: process.env.WEBHOOK_SECRET ?? '',
  onEvent: (event) => queue.apply(event),
  // What failed, for the proof's explanation when a status is missing from the report.
  onError: (error, info) => log('error')(`${info.stage}: ${String(error)}`),
  logger,
});
const server = createServer((req, res) => void handler(req, res));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void queue.close().then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
