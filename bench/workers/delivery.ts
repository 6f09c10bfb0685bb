/**
 * The Worker of bench/durable-objects.bench.ts: one text message delivery, through the webhook handler and the
 * router, with the in-memory stores (`/memory`) or the Durable Objects ones (`/durable`). The handler makes no
 * reply, so the figure is the stores' cost. `GET /calls` answers how many object calls the Durable Objects side
 * made so far (each store call is one `get` of a stub).
 */
import { createRouter, type RouterGateway } from '../../src/conversations/index.js';
import {
  DurableObjectIdempotencyStore,
  type DurableObjectNamespaceLike,
  DurableObjectSessionStore,
  DurableObjectWindowStore,
} from '../../src/durable-objects/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';

export { WaGatewayDurableObject } from '../../src/durable-objects/index.js';

const SECRET = 'wh_bench_durable_objects_0123456789abcdef';

interface Env {
  WA_STATE: DurableObjectNamespaceLike;
}

// Never called: the bench's handler makes no reply.
const gateway: RouterGateway = {
  messages: {
    send: async () => {
      throw new Error('the bench sends nothing');
    },
  },
};

let calls = 0;
function counted(namespace: DurableObjectNamespaceLike): DurableObjectNamespaceLike {
  return {
    idFromName: (name) => namespace.idFromName(name),
    get: (id) => {
      calls++;
      return namespace.get(id);
    },
  };
}

function app(stores: 'memory' | 'durable', env: Env) {
  const namespace = counted(env.WA_STATE);
  const router = createRouter<{ n: number }>({
    gateway,
    initialSession: () => ({ n: 0 }),
    ...(stores === 'durable'
      ? {
          sessions: new DurableObjectSessionStore({ namespace, prefix: 'bench:' }),
          window: new DurableObjectWindowStore({ namespace, prefix: 'bench:' }),
        }
      : {}),
  });
  router.otherwise((ctx) => {
    ctx.session.n++;
  });
  return createWebhookHandler({
    secret: SECRET,
    logger: false,
    ...(stores === 'durable'
      ? { dedupe: new DurableObjectIdempotencyStore({ namespace, prefix: 'bench:' }) }
      : {}),
    onEvent: router.handle,
  });
}

const apps = new Map<string, ReturnType<typeof app>>();

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/calls') return Response.json({ calls });
    const stores = pathname === '/durable' ? 'durable' : 'memory';
    let handler = apps.get(stores);
    if (handler === undefined) {
      handler = app(stores, env);
      apps.set(stores, handler);
    }
    return handler(request);
  },
};
