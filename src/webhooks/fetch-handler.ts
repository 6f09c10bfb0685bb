/**
 * `createWebhookHandler`: the Fetch API adapter (`Request` in, `Response` out) over the handler in
 * `request-handler.ts`, for Next.js route handlers, Hono, Bun, Deno and Workers. `node-handler.ts` is the Node one.
 */
import {
  resolveOptions,
  type WebhookHandlerOptions,
  type WebhookPlatformContext,
} from './handler-options.js';
import { createRequestHandler } from './request-handler.js';

/**
 * Creates a Fetch API webhook handler: `(request: Request) => Promise<Response>`. Use it in Next.js route handlers,
 * Hono, Bun, Deno and Workers. It checks `Authorization: Bearer <secret>` before reading the body, caps the body,
 * parses the envelope, dedupes events and runs `onEvent` for each, sequentially, and answers with the status code
 * that keeps the gateway from losing events (see `docs/webhooks.md`).
 *
 * On Workers pass the execution context as the second argument so work past the deadline is kept alive:
 * `handler(request, ctx)`.
 *
 * Throws `ConfigurationError` at creation for a missing or malformed secret, a missing `onEvent`, or a deadline
 * not below 5 seconds.
 *
 * @example
 * // app/api/whatsapp/route.ts (Next.js)
 * export const POST = createWebhookHandler({
 *   secret: process.env.WEBHOOK_SECRET!,
 *   onEvent: async (event) => {
 *     if (event.kind === 'message' && event.message.type === 'text') await inbox.save(event);
 *   },
 * });
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions,
): (request: Request, platform?: WebhookPlatformContext) => Promise<Response> {
  const handler = createRequestHandler(resolveOptions(options, 'createWebhookHandler'));
  return async (request, platform) => {
    const result = await handler(
      {
        method: request.method,
        authorization: request.headers.get('authorization') ?? undefined,
        signature: request.headers.get('x-hub-signature-256') ?? undefined,
        body: { kind: 'fetch', request },
      },
      platform && typeof platform.waitUntil === 'function'
        ? { waitUntil: (p) => platform.waitUntil?.(p) }
        : undefined,
    );
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
}
