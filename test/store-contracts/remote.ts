/**
 * The Node side of the Durable Objects backend: each store the suite opens is a named instance in one of the
 * harness Workers (`harness/worker.ts`), alternating between isolates, and each of its calls is one `POST`
 * to that Worker, which makes the call on the real store in workerd and answers its result or its error.
 */
import type { SessionLock, SessionStore, WindowStore } from '../../src/conversations/index.js';
import type { TemplateStore } from '../../src/index.js';
import { type DedupeUnderTest, LOCK_WAIT_MS, type StatusesUnderTest, type StoreBackend } from './backend.js';
import type { HarnessOptions } from './harness/worker.js';

type Call = (method: string) => (...args: unknown[]) => Promise<never>;

async function post(url: string, body: Record<string, unknown>): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  const answer = (await res.json()) as { ok?: unknown; absent?: boolean; error?: Record<string, unknown> };
  if (answer.error) throw Object.assign(new Error(String(answer.error['message'])), answer.error);
  return answer.absent ? undefined : answer.ok;
}

export function durableObjectBackend(name: string, urls: string[], prefix: string): StoreBackend {
  let opened = 0;
  /** A new instance, in the next isolate. */
  const open = (kind: string, extra: Partial<HarnessOptions> = {}) => {
    const instance = `${kind}-${opened++}`;
    const url = urls[opened % urls.length]!;
    const options: HarnessOptions = { prefix, lockWaitMs: LOCK_WAIT_MS, ...extra };
    const call: Call =
      (method) =>
      (...args) =>
        post(url, { instance, kind, method, args, options }) as Promise<never>;
    const hook: Call =
      (method) =>
      (...args) =>
        post(url, { instance, kind: 'hook', method, args, options }) as Promise<never>;
    return { url, call, hook };
  };
  return {
    name,
    shared: true,
    dedupe: (): DedupeUnderTest => {
      const { call } = open('dedupe');
      return {
        claim: call('claim'),
        complete: call('complete'),
        release: call('release'),
        renew: call('renew'),
        peek: call('peek'),
      };
    },
    sessions: (): SessionStore => {
      const { url, call } = open('sessions');
      return {
        get: call('get'),
        set: call('set'),
        delete: call('delete'),
        claim: call('claim'),
        unclaim: call('unclaim'),
        lock: async (key, leaseMs): Promise<SessionLock> => {
          const { handle } = (await call('lock')(key, leaseMs)) as { handle: string };
          const onLock =
            (method: string) =>
            (...args: unknown[]) =>
              post(url, { instance: handle, kind: 'lock', method, args }) as Promise<never>;
          return { release: onLock('release'), save: onLock('save') };
        },
      };
    },
    window: (): WindowStore => {
      const { call } = open('window');
      return { recordInbound: call('recordInbound'), lastInbound: call('lastInbound') };
    },
    statuses: (options): StatusesUnderTest => {
      const { call, hook } = open('statuses', { ...options });
      return {
        update: call('update'),
        get: call('get'),
        delete: call('delete'),
        changes: async () => ((await hook('changes')()) as { status: string }[]).map((c) => c.status),
        hostileUpdate: hook('hostileUpdate'),
      };
    },
    templates: (): TemplateStore => {
      const { call } = open('templates');
      return { get: call('get'), update: call('update'), list: call('list') };
    },
    saveOdd: async (key, kind, via) => {
      await open('sessions').hook('saveOdd')(key, kind, via);
    },
    deadHolder: async (key, leaseMs) => {
      const taken = await open('sessions').hook('deadHolder')(key, leaseMs);
      if (taken !== true) throw new Error('the dead holder did not get the lock');
    },
    // A lock taken through the harness is renewed only while the harness request that took it runs: once it has
    // answered, nobody renews it, as with an isolate that stalled. Its lease ends by itself.
    loseLease: (_key, leaseMs) => new Promise((resolve) => setTimeout(resolve, leaseMs + 50)),
  };
}
