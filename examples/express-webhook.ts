/**
 * An Express 5 app that receives the gateway's webhook deliveries.
 *
 * Shows: `createNodeWebhookHandler` at POST /webhooks behind a global `express.json()` (it still works: the Bearer
 * check needs only the header, and the handler takes the parsed body), delivery receipts kept in a `StatusTracker`,
 * and incoming messages handed to a queue so the gateway gets its 200 well within its 5 seconds.
 *
 * Run:  WEBHOOK_SECRET=$(openssl rand -hex 16) npx tsx examples/express-webhook.ts   (PORT, default 3000)
 * Try:  npx wa-gateway trigger message.text --url http://127.0.0.1:3000/webhooks
 * During a secret rotation also set WEBHOOK_SECRET_PREVIOUS: both are accepted until the gateway uses the new one.
 *
 * In your app, import from 'wa-gateway-sdk/webhooks' instead of '../src/webhooks/index.js'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import express, { type Express } from 'express';
import {
  createNodeWebhookHandler,
  type Logger,
  type MessageEvent,
  StatusTracker,
  type WebhookEvent,
} from '../src/webhooks/index.js';

/** Where incoming messages wait for the slow work (replies, CRM updates, an AI agent). */
export interface MessageQueue {
  /**
   * Resolve only once the event is stored durably (a database row, SQS, BullMQ): the 200 that follows tells the
   * gateway the event is safe, and it will never send it again.
   */
  enqueue(event: MessageEvent): Promise<void>;
}

export interface WebhookAppOptions {
  /** The secret set in the gateway's webhook settings; a list during a rotation (old and new). */
  secret: string | readonly string[];
  /** Delivery receipts of the messages you sent. Persist what you need in its `onChange`. */
  tracker?: StatusTracker;
  queue?: MessageQueue;
  /** Receives reasons and status codes, never payloads or secrets: `console` is fine. */
  logger?: Logger;
}

/** A stand-in that loses everything on restart: replace it with a durable queue. */
const logOnlyQueue: MessageQueue = {
  enqueue: async (event) => console.log(`queued an incoming ${event.message.type} message`),
};

export function createApp(options: WebhookAppOptions): Express {
  const tracker = options.tracker ?? new StatusTracker();
  const queue = options.queue ?? logOnlyQueue;

  const onEvent = async (event: WebhookEvent): Promise<void> => {
    switch (event.kind) {
      case 'status':
        // In memory and synchronous: cheap enough to do before answering.
        tracker.update(event);
        return;
      case 'message':
        // Only enqueue here. The gateway waits 5 s for the 200 (the handler answers 503 at 4 s so it retries);
        // anything slow runs in the queue's consumer. If enqueue throws, let it: the handler answers 500 and the
        // gateway retries after 1 s and 2 s. Never answer a failure with a 4xx: a 4xx drops the event for good.
        await queue.enqueue(event);
        return;
      default:
        // template_status, account_update, unknown: answered 200 whether handled or not, since a retry would
        // bring the same event back.
        return;
    }
  };

  const app = express();
  // A global JSON parser, as most apps have. Its default limit is 100 kB and it answers 413 above that: a 4xx,
  // so the gateway would drop a large batched delivery for good. Match the handler's own 1 MiB cap instead.
  app.use(express.json({ limit: '1mb' }));
  app.post(
    '/webhooks',
    createNodeWebhookHandler({ secret: options.secret, onEvent, logger: options.logger }),
  );
  return app;
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const secret = process.env['WEBHOOK_SECRET'];
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the secret configured in the gateway (32 random characters).');
    process.exit(2);
  }
  const previous = process.env['WEBHOOK_SECRET_PREVIOUS'];
  const tracker = new StatusTracker({
    // Upstream ids encode the recipient's number: log their tail only.
    onChange: ({ current }) => console.log(`message …${current.wamid.slice(-8)} is now ${current.status}`),
  });
  const app = createApp({ secret: previous ? [secret, previous] : secret, tracker, logger: console });
  const port = Number(process.env['PORT'] ?? 3000);
  const server = app.listen(port, (error) => {
    // Express 5 reports a failed listen (EADDRINUSE) here instead of throwing.
    if (error) throw error;
    console.log(`webhook receiver on http://127.0.0.1:${port}/webhooks`);
  });
  // Let deliveries in flight finish on a deploy; anything cut off is retried by the gateway anyway.
  process.once('SIGTERM', () => server.close());
}
