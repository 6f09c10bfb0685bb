/**
 * Many instances, part 1 of 3: the receiver. An Express app whose webhook route stores every event in Redis (the
 * durable inbox) and answers the gateway 200 only once Redis has it. Run as many copies as you like behind a load
 * balancer: they share one queue, and a redelivery that lands on another copy adds no second job.
 *
 * Run:  REDIS_URL=redis://127.0.0.1:6379 WEBHOOK_SECRET=... npx tsx examples/many-instances/receiver.ts   (PORT, default 3000)
 *
 * In your app, import from 'wa-gateway-sdk/redis' instead of '../../src/redis/index.js'.
 */
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { createNodeInboxHandler, type InboxHandlerControls } from '../../src/redis/index.js';

export interface ReceiverOptions {
  redisUrl: string;
  secret: string;
  /** Receivers and workers must name the same queue. Default `'wa-gateway-inbox'`. */
  queueName?: string;
}

/** The Express app and the inbox behind it (close the inbox on shutdown). */
export function createReceiver(options: ReceiverOptions): {
  app: express.Express;
  inbox: InboxHandlerControls;
} {
  const inbox = createNodeInboxHandler({
    connection: options.redisUrl,
    secret: options.secret,
    queueName: options.queueName,
    logger: console,
  });
  const app = express();
  // The inbox reads the body itself: mount it before any body parser, on its own route.
  app.post('/webhooks', inbox);
  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  return { app, inbox };
}

export async function main(env = process.env): Promise<Server> {
  const { app, inbox } = createReceiver({
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    secret: env.WEBHOOK_SECRET ?? '',
    queueName: env.QUEUE_NAME,
  });
  await inbox.ready();
  const server = app.listen(Number(env.PORT ?? 3000), () => console.log('receiver listening'));
  process.once('SIGTERM', () => server.close(() => void inbox.close()));
  return server;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
