/**
 * A Hono app that receives the gateway's webhook deliveries through the Fetch API handler, served on Node by
 * @hono/node-server. The same app runs on Workers, Bun and Deno (see the note on `executionCtx` below).
 *
 * Shows: `createWebhookHandler` at POST /webhooks, delivery receipts kept in a `StatusTracker`, and incoming
 * messages handed to a queue so the gateway gets its 200 well within its 5 seconds.
 *
 * Run:  WEBHOOK_SECRET=$(openssl rand -hex 16) npx tsx examples/hono-webhook.ts   (PORT, default 3000)
 * Try:  npx wa-gateway trigger status.delivered --url http://127.0.0.1:3000/webhooks
 *
 * In your app, import from 'wa-gateway-sdk/webhooks' instead of '../src/webhooks/index.js'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import {
  createWebhookHandler,
  type Logger,
  type MessageEvent,
  StatusTracker,
  type WebhookEvent,
} from '../src/webhooks/index.js';

/** Where incoming messages wait for the slow work. Resolve only once the event is stored durably. */
export interface MessageQueue {
  enqueue(event: MessageEvent): Promise<void>;
}

export interface WebhookAppOptions {
  /** The secret set in the gateway's webhook settings; a list during a rotation (old and new). */
  secret: string | readonly string[];
  tracker?: StatusTracker;
  queue?: MessageQueue;
  logger?: Logger;
}

/** A stand-in that loses everything on restart: replace it with a durable queue. */
const logOnlyQueue: MessageQueue = {
  enqueue: async (event) => console.log(`queued an incoming ${event.message.type} message`),
};

export function createApp(options: WebhookAppOptions): Hono {
  const tracker = options.tracker ?? new StatusTracker();
  const queue = options.queue ?? logOnlyQueue;

  const handler = createWebhookHandler({
    secret: options.secret,
    logger: options.logger,
    onEvent: async (event: WebhookEvent) => {
      if (event.kind === 'status') tracker.update(event);
      // A throw here becomes a 500 and the gateway retries; never turn a failure into a 4xx (the event would be
      // dropped for good). Slow work belongs to the queue's consumer, not to this request.
      else if (event.kind === 'message') await queue.enqueue(event);
    },
  });

  const app = new Hono();
  // Hand over the raw Request untouched: calling c.req.json() (or a validator middleware) on this route first
  // would consume the body, and the handler would answer 500. On Workers pass the execution context as well,
  // `handler(c.req.raw, c.executionCtx)`, so work past the deadline is kept alive; on Node there is none.
  app.post('/webhooks', (c) => handler(c.req.raw));
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
  const server = serve({ fetch: app.fetch, port }, () =>
    console.log(`webhook receiver on http://127.0.0.1:${port}/webhooks`),
  );
  process.once('SIGTERM', () => server.close());
}
