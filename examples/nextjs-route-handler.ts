/**
 * A Next.js App Router route handler for the gateway's webhook deliveries. Copy it to
 * `app/api/webhooks/whatsapp/route.ts` and set WEBHOOK_SECRET in the project's environment variables.
 *
 * Shows: `createWebhookHandler` (Fetch API) as `POST`, created once per instance, and `waitUntil` for work that
 * must outlive the response on serverless platforms.
 *
 * Serverless in one paragraph: once the response is sent, the platform freezes or kills the instance. A promise
 * you started and did not await is cut off mid-way, silently. So either finish the work before answering (the
 * gateway gives 5 seconds; the handler answers 503 at 4 s so the gateway retries) or hand the promise to the
 * platform's `waitUntil`, which keeps the instance alive until it settles. Only the first is safe for work that
 * must not be lost: work handed to `waitUntil` runs after the 200, so if it fails nobody retries it. Put durable
 * work on a queue inside `onEvent`, and keep `waitUntil` for what you can afford to lose (metrics, cache warming).
 *
 * Test it locally with `next dev` and
 * `npx wa-gateway trigger message.text --url http://localhost:3000/api/webhooks/whatsapp`.
 *
 * In your app, import from 'wa-gateway-sdk/webhooks' instead of '../src/webhooks/index.js'.
 */
import { createWebhookHandler, type WebhookEvent } from '../src/webhooks/index.js';

type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * The platform's `waitUntil`. In your app prefer `import { waitUntil } from '@vercel/functions'` (on Vercel) or
 * `after` from 'next/server' (Next 15). This structural stand-in does what `@vercel/functions` does, so the
 * example compiles without either package: look up the request context Vercel installs on `globalThis`. Without
 * one (next dev, tests) the promise simply runs on, which a long-lived Node process allows.
 */
const waitUntil: WaitUntil = (promise) => {
  const context = (globalThis as { [key: symbol]: unknown })[Symbol.for('@vercel/request-context')] as
    | { get?: () => { waitUntil?: WaitUntil } | undefined }
    | undefined;
  context?.get?.()?.waitUntil?.(promise);
};

// Stand-ins for your infrastructure: a durable queue (SQS, QStash, Inngest) and your database.
async function enqueue(_job: { kind: 'incoming_message'; wamid: string; type: string }): Promise<void> {}
async function saveStatus(_wamid: string, _status: string): Promise<void> {}
async function recordMetric(_name: string): Promise<void> {}

async function onEvent(event: WebhookEvent): Promise<void> {
  switch (event.kind) {
    case 'message':
      // Awaited: if the queue is down this throws, the handler answers 500 and the gateway retries.
      await enqueue({ kind: 'incoming_message', wamid: event.message.id, type: event.message.type });
      break;
    case 'status':
      await saveStatus(event.status.id, event.status.status);
      break;
    default:
      // template_status, account_update, unknown: answered 200, since a retry would bring the same event back.
      break;
  }
  // Not awaited, and losing it is acceptable: without waitUntil the platform would kill it after the response.
  waitUntil(recordMetric(`webhook.${event.kind}`));
}

let handler: ((request: Request) => Promise<Response>) | undefined;

/**
 * Created on the first request rather than at import: `next build` imports route modules, often without the
 * runtime environment variables, and a missing secret must not fail the build. One handler per instance also
 * keeps its in-memory dedupe store across requests (across instances use `RedisIdempotencyStore` from
 * wa-gateway-sdk/redis, see docs/running-many-instances.md). A route file may export only HTTP methods and route config, so the
 * helpers above stay private.
 */
export const POST = async (request: Request): Promise<Response> => {
  // A missing secret throws a ConfigurationError here: Next answers 500, so the gateway retries meanwhile.
  handler ??= createWebhookHandler({
    secret: process.env['WEBHOOK_SECRET'] ?? '',
    onEvent,
    // The handler's own use: an event still running when it answers 503 at the deadline finishes in the
    // background instead of being frozen half-way, and records its outcome for the gateway's retry.
    waitUntil,
  });
  return handler(request);
};
