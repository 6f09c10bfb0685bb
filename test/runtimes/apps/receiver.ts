/**
 * The receiver every runtime test serves: the webhooks entry's Fetch handler and `validateTemplate`, written the
 * way a user's Worker / Bun / Deno app would be. It keeps what happened in memory and reports it on
 * `GET /state`, so the Node side of a test can assert on the runtime's own view.
 *
 * Routes: `POST /webhook` (the handler), `POST /validate-template` (the result as JSON), `GET /state`.
 * An `onEvent` that sees the text `fail` throws (the handler must answer 500); `slow` outlives the handler's
 * deadline (the handler answers 503 and hands the unfinished work to `waitUntil`).
 */
import { validateTemplate } from '../../../src/templates/index.js';
import { createWebhookHandler, type WebhookPlatformContext } from '../../../src/webhooks/index.js';

export const SECRET = 'wh_runtime_test_secret_0123456789abcdef';
/** Short, so the `slow` delivery passes it; `SLOW_MS` is far longer, so the order never depends on load. */
const DEADLINE_MS = 300;
const SLOW_MS = 1500;

export interface ReceiverState {
  runtime: string;
  processed: string[];
  onEventCalls: number;
  waitUntilCalls: number;
  slowFinished: number;
}

export function createReceiver(runtime: string, defaultWaitUntil?: (p: Promise<unknown>) => void) {
  const state: ReceiverState = {
    runtime,
    processed: [],
    onEventCalls: 0,
    waitUntilCalls: 0,
    slowFinished: 0,
  };
  const handler = createWebhookHandler({
    secret: SECRET,
    deadlineMs: DEADLINE_MS,
    logger: { warn: () => undefined, error: () => undefined },
    onEvent: async (event) => {
      state.onEventCalls += 1;
      const text = event.kind === 'message' && event.message.type === 'text' ? event.message.text.body : '';
      if (text === 'fail') throw new Error('onEvent failed on purpose');
      if (text === 'slow') {
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        state.slowFinished += 1;
      }
      state.processed.push(event.idempotencyKey);
    },
  });
  const json = (value: unknown, status = 200) =>
    new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });

  return async (request: Request, platform?: WebhookPlatformContext): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (pathname === '/state') return json(state);
    if (pathname === '/validate-template') return json(validateTemplate(await request.json()));
    if (pathname !== '/webhook') return json({ error: 'not_found' }, 404);
    const keepAlive = platform?.waitUntil ?? defaultWaitUntil;
    return handler(request, {
      waitUntil: (promise) => {
        state.waitUntilCalls += 1;
        keepAlive?.(promise);
      },
    });
  };
}
