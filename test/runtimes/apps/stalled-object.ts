/**
 * A Worker whose Durable Object is the SDK's `WaGatewayDurableObject`, subclassed so that chosen operations are never
 * answered (as an overloaded object or a stalled connection may leave a call): the text binding `STALL` names them
 * and how many times each, e.g. `cell.claim:1` (the first claim, whichever object, is held for good; every later one
 * is answered) or `lock.take:1`. A held call does nothing in the object: it never reaches the SDK's class.
 *
 * The Worker is a bot as `durable-bot.ts` is: the webhook handler deduplicating on the objects (default
 * `onStoreUnavailable: 'process'`), the conversation router keeping sessions, locks and the window there, and a
 * `GatewayClient` replying through the gateway at `env.GATEWAY_URL` (the testing kit's sandbox). Every store takes
 * `timeoutMs` from `env.TIMEOUT_MS` and the session store `lockWaitMs` from `env.LOCK_WAIT_MS`, small so a test
 * is quick; the webhook's secret is `env.WEBHOOK_SECRET`. Routes: `POST /webhook`, `GET /state` (what this
 * isolate did: {@link StalledState}).
 */
import { createRouter } from '../../../src/conversations/index.js';
import {
  DurableObjectIdempotencyStore,
  type DurableObjectNamespaceLike,
  DurableObjectSessionStore,
  type DurableObjectStateLike,
  DurableObjectWindowStore,
  WaGatewayDurableObject,
} from '../../../src/durable-objects/index.js';
import { GatewayClient } from '../../../src/index.js';
import { createWebhookHandler } from '../../../src/webhooks/index.js';

interface Env {
  WA_STATE: DurableObjectNamespaceLike;
  GATEWAY_URL: string;
  WEBHOOK_SECRET: string;
  STALL?: string;
  TIMEOUT_MS: string;
  LOCK_WAIT_MS: string;
}

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** One report to the handler's `onError`, as plain data. */
export interface Report {
  stage: string;
  name: string;
  message: string;
  failure?: string;
  operation?: string;
  causeName?: string;
}

export interface StalledState {
  /** Calls the object held, by operation (the objects run in this isolate: the one Worker hosts them). */
  stalled: Record<string, number>;
  /** Idempotency keys of the message events whose `onEvent` ran here, once per run. */
  events: string[];
  /** `customer: text` of each run of the router's handler (an event the router processed). */
  handled: string[];
  reports: Report[];
  /** The handler's log lines: level, message, the error's class. */
  logs: { level: string; message: string; errorName?: unknown }[];
}

const state: StalledState = { stalled: {}, events: [], handled: [], reports: [], logs: [] };

/**
 * `cell.claim:1,lock.take:2` → how many calls of each operation to hold; `cell.claim:1:500` answers them with that
 * status instead (as another class bound under the name would), never reaching the SDK's class either.
 */
function stallPlan(text: string | undefined): Map<string, { times: number; status?: number }> {
  const plan = new Map<string, { times: number; status?: number }>();
  for (const item of (text ?? '').split(',')) {
    const [op, times, status] = item.split(':');
    if (op) plan.set(op.trim(), { times: Number(times ?? 1), ...(status ? { status: Number(status) } : {}) });
  }
  return plan;
}

/** The SDK's class, whose chosen calls are never answered. */
class StalledObject extends WaGatewayDurableObject {
  readonly #plan: ReturnType<typeof stallPlan>;

  constructor(ctx: DurableObjectStateLike, env: Env) {
    super(ctx, env);
    this.#plan = stallPlan(env.STALL);
  }

  override async fetch(request: Request): Promise<Response> {
    const op = new URL(request.url).pathname.slice(1);
    const held = state.stalled[op] ?? 0;
    const plan = this.#plan.get(op);
    if (held < (plan?.times ?? 0)) {
      state.stalled[op] = held + 1;
      if (plan?.status !== undefined) return new Response('Internal error', { status: plan.status });
      return new Promise<Response>(() => {}); // never answers
    }
    return super.fetch(request);
  }
}

// The name the fleet's binding asks for (test/helpers/workerd.ts).
export { StalledObject as WaGatewayDurableObject };

function createApp(env: Env) {
  const namespace = env.WA_STATE;
  const timeoutMs = Number(env.TIMEOUT_MS);
  const window = new DurableObjectWindowStore({ namespace, timeoutMs });
  const gw = new GatewayClient({
    apiKey: 'sk_test_sandbox',
    baseUrl: env.GATEWAY_URL,
    serviceWindow: window,
    logLevel: 'off',
  });
  const router = createRouter<{ log: string[] }>({
    gateway: gw,
    sessions: new DurableObjectSessionStore({ namespace, timeoutMs, lockWaitMs: Number(env.LOCK_WAIT_MS) }),
    window,
    initialSession: () => ({ log: [] }),
  });
  router.text(/^[\s\S]*$/, async (ctx) => {
    state.handled.push(`${ctx.customer}: ${ctx.text}`);
    ctx.session.log.push(ctx.text ?? '');
    await ctx.reply(`echo: ${ctx.text}`);
  });
  const log = (level: string) => (message: string, meta?: Record<string, unknown>) =>
    void state.logs.push({ level, message, errorName: meta?.['errorName'] });
  return createWebhookHandler({
    secret: env.WEBHOOK_SECRET,
    dedupe: new DurableObjectIdempotencyStore({ namespace, timeoutMs }),
    logger: { warn: log('warn'), error: log('error') },
    onError: (error, info) => {
      const e = error as Partial<Report>;
      state.reports.push({
        stage: info.stage,
        name: String(e.name),
        message: String(e.message),
        ...(e.failure !== undefined ? { failure: e.failure } : {}),
        ...(e.operation !== undefined ? { operation: e.operation } : {}),
        ...(e.causeName !== undefined ? { causeName: e.causeName } : {}),
      });
    },
    onEvent: async (event) => {
      if (event.kind === 'message') state.events.push(event.idempotencyKey);
      await router.handle(event);
    },
  });
}

let handler: ReturnType<typeof createApp> | undefined;

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    handler ??= createApp(env);
    const url = new URL(request.url);
    if (url.pathname === '/webhook') return handler(request, ctx);
    if (url.pathname === '/state') return Response.json(state);
    return Response.json({ error: 'not_found' }, { status: 404 });
  },
};
