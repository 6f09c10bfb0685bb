/**
 * A Worker as a user of `wa-gateway-sdk/durable-objects` writes it: the webhook handler deduplicating on Durable
 * Objects, the conversation router keeping sessions and the window there, and a `GatewayClient` whose window guard
 * and template catalogue read the same objects. Its replies and sends go to the gateway at `env.GATEWAY_URL`
 * (the testing kit's sandbox, on 127.0.0.1). It reports what this isolate did on `GET /state`.
 *
 * The Worker's module is `durable-bot-worker.ts`. Routes: `POST /webhook`, `POST /send` (a message; answers `{ messageId }` or `{ error }`), `GET /session?customer=`,
 * `GET /state`. A text starting `slow` takes a while between reading the session and changing it (so two runs at
 * once would lose one's change); one starting `quiet` makes no reply.
 */
import { createRouter, ServiceWindowClosedError } from '../../../src/conversations/index.js';
import {
  DurableObjectIdempotencyStore,
  type DurableObjectNamespaceLike,
  DurableObjectSessionStore,
  DurableObjectTemplateStore,
  DurableObjectWindowStore,
} from '../../../src/durable-objects/index.js';
import { GatewayClient, TemplateCatalog } from '../../../src/index.js';
import { createWebhookHandler } from '../../../src/webhooks/index.js';

export const SECRET = 'wh_durable_objects_secret_0123456789abcdef';

export interface Env {
  WA_STATE: DurableObjectNamespaceLike;
  GATEWAY_URL: string;
}

export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

export interface BotState {
  /** Message events whose `onEvent` ran here, by idempotency key. */
  messages: string[];
  /** When each handler of a customer's message ran here (ms, the isolate's clock: it moves at each I/O). */
  spans: { customer: string; text: string; start: number; end: number }[];
  /** Customers whose free-form reply the window refused. */
  refused: string[];
  logs: string[];
}

export const state: BotState = { messages: [], spans: [], refused: [], logs: [] };

export function createApp(env: Env) {
  const namespace = env.WA_STATE;
  const window = new DurableObjectWindowStore({ namespace });
  const catalog = new TemplateCatalog({ store: new DurableObjectTemplateStore({ namespace }) });
  const gw = new GatewayClient({
    apiKey: 'sk_test_sandbox',
    baseUrl: env.GATEWAY_URL,
    serviceWindow: window,
    templates: catalog,
    logLevel: 'off',
  });
  const router = createRouter<{ log: string[] }>({
    gateway: gw,
    sessions: new DurableObjectSessionStore({ namespace }),
    window,
    initialSession: () => ({ log: [] }),
  });
  router.text(/^[\s\S]*$/, async (ctx) => {
    const text = ctx.text ?? '';
    const start = Date.now();
    if (text.startsWith('slow')) await new Promise((resolve) => setTimeout(resolve, 40));
    ctx.session.log.push(text);
    state.spans.push({ customer: ctx.customer, text, start, end: Date.now() });
    if (text.startsWith('quiet')) return;
    try {
      await ctx.reply(`echo: ${text}`);
    } catch (error) {
      if (!(error instanceof ServiceWindowClosedError)) throw error;
      state.refused.push(ctx.customer);
    }
  });
  const handler = createWebhookHandler({
    secret: SECRET,
    dedupe: new DurableObjectIdempotencyStore({ namespace }),
    templates: catalog,
    logger: {
      warn: (message) => void state.logs.push(message),
      error: (message) => void state.logs.push(message),
    },
    onEvent: async (event) => {
      if (event.kind === 'message') state.messages.push(event.idempotencyKey);
      await router.handle(event);
    },
  });
  return { gw, router, handler };
}
