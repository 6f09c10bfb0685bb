/**
 * The contract suite's Worker: the Durable Objects stores, run in workerd, driven over HTTP by the suite in Node
 * (`remote.ts`). Each named instance is a set of stores of its own (as another isolate's would be); the suite's
 * calls reach whichever of the two Workers (two isolates) serves that instance. Everything a store does runs here,
 * against the real objects; only the calls and their answers cross to Node, as JSON.
 *
 * `POST /` with `{ instance, kind, method, args, options }`; `kind` is a store (`dedupe`, `sessions`, `window`,
 * `statuses`, `templates`), `lock` (a held lock's `release`/`save`, by handle), or `hook` (what a test sets up
 * that no store call can: a holder that died, a status input whose getter throws).
 */

import type { SessionLock } from '../../../src/conversations/index.js';
import { callObject, openBinding } from '../../../src/durable-objects/binding.js';
import {
  DurableObjectIdempotencyStore,
  type DurableObjectNamespaceLike,
  DurableObjectSessionStore,
  DurableObjectStatusStore,
  DurableObjectTemplateStore,
  DurableObjectWindowStore,
} from '../../../src/durable-objects/index.js';
import type { StatusChange } from '../../../src/webhooks/index.js';
import { type OddSession, saveOdd } from '../odd-sessions.js';

export { WaGatewayDurableObject } from '../../../src/durable-objects/index.js';

interface Env {
  WA_STATE: DurableObjectNamespaceLike;
}

export interface HarnessOptions {
  prefix: string;
  lockWaitMs?: number;
  /** The first `failChanges` calls of the status store's `onChange` throw. */
  failChanges?: number;
  /** Applied by another status store inside the first failing `onChange`, before it throws. */
  inFailingChange?: Record<string, unknown>;
}

function openStores(env: Env, options: HarnessOptions) {
  const namespace = env.WA_STATE;
  const { prefix } = options;
  const changes: StatusChange[] = [];
  let failures = options.failChanges ?? 0;
  let inFailingChange = options.inFailingChange;
  return {
    changes,
    dedupe: new DurableObjectIdempotencyStore({ namespace, prefix }),
    sessions: new DurableObjectSessionStore({
      namespace,
      prefix,
      ...(options.lockWaitMs !== undefined ? { lockWaitMs: options.lockWaitMs } : {}),
    }),
    window: new DurableObjectWindowStore({ namespace, prefix }),
    templates: new DurableObjectTemplateStore({ namespace, prefix }),
    statuses: new DurableObjectStatusStore({
      namespace,
      prefix,
      logLevel: 'off',
      onChange: async (change) => {
        if (failures-- > 0) {
          const other = inFailingChange;
          inFailingChange = undefined;
          if (other) await new DurableObjectStatusStore({ namespace, prefix }).update(other as never);
          throw new Error('onChange failed on purpose');
        }
        changes.push(change);
      },
    }),
  };
}
type Stores = ReturnType<typeof openStores>;

const instances = new Map<string, Stores>();
const locks = new Map<string, SessionLock>();

async function run(env: Env, call: Record<string, unknown>): Promise<unknown> {
  const instance = String(call['instance']);
  const kind = String(call['kind']);
  const method = String(call['method']);
  const args = (call['args'] ?? []) as unknown[];
  const options = call['options'] as HarnessOptions;
  if (kind === 'lock') {
    const lock = locks.get(instance);
    if (lock === undefined) throw new Error('no such lock');
    return method === 'release' ? lock.release() : lock.save?.(args[0], args[1] as number);
  }
  let stores = instances.get(instance);
  if (stores === undefined) {
    stores = openStores(env, options);
    instances.set(instance, stores);
  }
  if (kind === 'hook') return hook(env, stores, options, method, args);
  const store = stores[kind as 'dedupe'] as unknown as Record<string, (...a: unknown[]) => unknown>;
  const result = await store[method]!(...args);
  if (method !== 'lock') return result;
  const handle = crypto.randomUUID();
  locks.set(handle, result as SessionLock);
  return { handle };
}

async function hook(env: Env, stores: Stores, options: HarnessOptions, method: string, args: unknown[]) {
  if (method === 'deadHolder') {
    // A holder that took the customer's lock and died: nobody renews or releases it.
    const binding = openBinding({ namespace: env.WA_STATE, prefix: options.prefix }, 'test');
    const [key, leaseMs] = args as [string, number];
    return callObject(
      binding,
      `conv:${key}`,
      'lock.take',
      { token: 'a dead isolate', leaseMs, waitMs: 1 },
      'test.deadHolder',
    );
  }
  if (method === 'hostileUpdate') {
    const hostile = {
      id: args[0],
      get status(): string {
        throw new Error('boom');
      },
    };
    return stores.statuses.update(hostile as never);
  }
  if (method === 'saveOdd') {
    // Built here: a BigInt, a cycle or a Date does not cross from Node as JSON.
    const [key, kind, via] = args as [string, OddSession, 'set' | 'save'];
    return saveOdd(stores.sessions, key, kind, via);
  }
  if (method === 'changes') return stores.changes.map((c) => ({ status: c.current.status }));
  throw new Error(`no hook ${method}`);
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const call = (await request.json()) as Record<string, unknown>;
    try {
      const result = await run(env, call);
      return Response.json({ ok: result ?? null, absent: result === undefined });
    } catch (error) {
      const e = error as Record<string, unknown>;
      return Response.json(
        {
          error: {
            name: e['name'],
            message: e['message'],
            failure: e['failure'],
            reason: e['reason'],
            operation: e['operation'],
            issues: e['issues'],
          },
        },
        { status: 500 },
      );
    }
  },
};
