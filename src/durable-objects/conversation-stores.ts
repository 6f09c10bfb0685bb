/**
 * The conversations router's stores on Durable Objects: each customer's record, lock and the reply ledger
 * (`DurableObjectSessionStore`), and each customer's last inbound time (`DurableObjectWindowStore`).
 */

import { ConversationError } from '../conversations/errors.js';
import type { SessionLock, SessionStore, WindowStore } from '../conversations/index.js';
import { checkSession } from '../conversations/session-data.js';
import { durationMs } from '../core/duration.js';
import { keepRenewed } from '../core/lease.js';
import { checkInbound, checkWindowCustomer } from '../gateway/service-window.js';
import {
  type Binding,
  callObject,
  type DurableObjectStoreOptions,
  holderToken,
  openBinding,
  RETENTION_MS,
  unexpectedAnswer,
} from './binding.js';
import { DurableObjectStoreError } from './errors.js';

/**
 * Options of {@link DurableObjectSessionStore}.
 *
 * @example
 * new DurableObjectSessionStore({ namespace: env.WA_STATE, lockWaitMs: 2_000 });
 */
export interface DurableObjectSessionStoreOptions extends DurableObjectStoreOptions {
  /**
   * How long `lock` waits for a customer's lock before rejecting with `DurableObjectStoreError` (`lock_timeout`),
   * which fails the delivery so that it is retried. Default 3,000 ms: inside the webhook handler's 4 s deadline.
   * At most 60,000.
   */
  lockWaitMs?: number | undefined;
}

/**
 * Sessions, per-customer locks and the reply ledger of the conversations router, on Durable Objects: what makes
 * one customer's events run one at a time, in the order they reach the customer's object, across every isolate
 * and location, and a retried event skip the replies already sent.
 *
 * One object per session key (`<prefix>conv:<key>`) holds the customer's record and lock, so the lock, the read
 * and the fenced save of one customer all meet there, while customers spread over objects. A lock request that
 * finds the lock held waits *in the object* (no polling) and is handed the lock when its holder releases it, or
 * when the holder's lease runs out (a dead isolate stops renewing it), first come first served. The holder renews
 * its lease every third of it while the event runs. `save` writes the record only while this holder's token still
 * holds the lock. The reply ledger's ids are objects of their own (`<prefix>ledger:<id>`). Failures reject with
 * `DurableObjectStoreError`.
 *
 * @example
 * import { createRouter } from 'wa-gateway-sdk/conversations';
 * import { DurableObjectSessionStore, DurableObjectWindowStore } from 'wa-gateway-sdk/durable-objects';
 * const router = createRouter({
 *   gateway,
 *   sessions: new DurableObjectSessionStore({ namespace: env.WA_STATE }),
 *   window: new DurableObjectWindowStore({ namespace: env.WA_STATE }),
 * });
 */
export class DurableObjectSessionStore implements SessionStore {
  readonly #binding: Binding;
  readonly #lockWaitMs: number;

  constructor(options: DurableObjectSessionStoreOptions) {
    const op = 'new DurableObjectSessionStore';
    this.#binding = openBinding(options, op);
    this.#lockWaitMs = Math.min(durationMs(options.lockWaitMs, `${op}: \`lockWaitMs\``, 3_000), 60_000);
  }

  /**
   * The record stored under `key`, or `undefined`.
   *
   * @example
   * const record = await sessions.get('conv:998901234567');
   */
  async get(key: string): Promise<unknown> {
    const op = 'DurableObjectSessionStore.get';
    const answer = await callObject(this.#binding, `conv:${key}`, 'record.get', {}, op);
    if (typeof answer !== 'object' || answer === null) throw unexpectedAnswer(op, 'no record envelope');
    return answer.value;
  }

  /**
   * Stores `value` (plain JSON data) under `key` for `ttlMs`, without the lock. What JSON cannot write is refused
   * with `ConversationError` (`invalid_session`); what it changes (a Date) is kept as JSON makes it.
   *
   * @example
   * await sessions.set('conv:998901234567', { s: { step: 1 } }, 30 * 24 * 60 * 60 * 1000);
   */
  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const op = 'DurableObjectSessionStore.set';
    await callObject(
      this.#binding,
      `conv:${key}`,
      'record.set',
      { value: storable(value, op), ttlMs: durationMs(ttlMs, `${op}: \`ttlMs\``) },
      op,
    );
  }

  /**
   * Forgets the record under `key`.
   *
   * @example
   * await sessions.delete('conv:998901234567');
   */
  async delete(key: string): Promise<void> {
    await callObject(this.#binding, `conv:${key}`, 'record.delete', {}, 'DurableObjectSessionStore.delete');
  }

  /**
   * Waits for and takes the lock of `key` for `leaseMs` (renewed every third of it until `release`). Rejects with
   * `DurableObjectStoreError` (`lock_timeout`) when it is not had within `lockWaitMs`.
   *
   * @example
   * const lock = await sessions.lock('conv:998901234567', 5_000);
   * try { await lock.save?.({ s: {} }, 60_000) } finally { await lock.release() }
   */
  async lock(key: string, leaseMs: number): Promise<SessionLock> {
    const op = 'DurableObjectSessionStore.lock';
    const name = `conv:${key}`;
    const token = holderToken();
    const lease = durationMs(leaseMs, `${op}: \`leaseMs\``);
    const taken = await callObject(
      this.#binding,
      name,
      'lock.take',
      { token, leaseMs: lease, waitMs: this.#lockWaitMs },
      op,
      // The object waits up to lockWaitMs for the lock before it answers.
      this.#lockWaitMs,
    );
    if (typeof taken !== 'boolean') throw unexpectedAnswer(op, 'a lock answer that is not true or false');
    if (!taken) {
      throw new DurableObjectStoreError(
        `${op}: another request held the customer's lock for over ${this.#lockWaitMs} ms; the event fails so that it is delivered again.`,
        { failure: 'lock_timeout', operation: op },
      );
    }
    // The kit's heartbeat (core/lease.ts). A renewal that fails leaves the lease to run out; the fenced save then
    // refuses a stale write.
    const keeper = keepRenewed({
      leaseMs: lease,
      renew: async () =>
        (await callObject(
          this.#binding,
          name,
          'lock.renew',
          { token, leaseMs: lease },
          'DurableObjectSessionStore.renew',
        )) !== false,
    });
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        keeper.stop();
        await callObject(this.#binding, name, 'lock.release', { token }, 'DurableObjectSessionStore.unlock');
      },
      save: async (value, ttlMs) => {
        const saveOp = 'DurableObjectSessionStore.save';
        const saved = await callObject(
          this.#binding,
          name,
          'record.save',
          { token, value: storable(value, saveOp), ttlMs: durationMs(ttlMs, `${saveOp}: \`ttlMs\``) },
          saveOp,
        );
        if (saved === true) return;
        if (saved !== false) throw unexpectedAnswer(saveOp, 'a save answer that is not true or false');
        throw new ConversationError(
          'lock_lost',
          `${saveOp}: this request's lease on the customer ran out before the event was saved (another may hold it now); the event fails so that it is delivered again.`,
        );
      },
    };
  }

  /**
   * Records `id` for `ttlMs` if it is not recorded yet; `true` when this call recorded it.
   *
   * @example
   * if (await sessions.claim('reply:wamid.X#0', 7 * 24 * 60 * 60 * 1000)) await send();
   */
  async claim(id: string, ttlMs: number): Promise<boolean> {
    const op = 'DurableObjectSessionStore.claim';
    const answer = await callObject(
      this.#binding,
      `ledger:${id}`,
      'cell.claim',
      { token: '', ms: durationMs(ttlMs, 'DurableObjectSessionStore.claim: `ttlMs`'), done: true },
      op,
    );
    if (answer !== 'claimed' && answer !== 'done' && answer !== 'in_progress')
      throw unexpectedAnswer(op, 'a claim of no known state');
    return answer === 'claimed';
  }

  /**
   * Forgets a claim (a reply that certainly was not sent, so that the retry sends it).
   *
   * @example
   * await sessions.unclaim('reply:wamid.X#0');
   */
  async unclaim(id: string): Promise<void> {
    await callObject(this.#binding, `ledger:${id}`, 'cell.forget', {}, 'DurableObjectSessionStore.unclaim');
  }
}

/**
 * Options of {@link DurableObjectWindowStore}.
 *
 * @example
 * new DurableObjectWindowStore({ namespace: env.WA_STATE, ttlMs: 7 * 24 * 60 * 60 * 1000 });
 */
export interface DurableObjectWindowStoreOptions extends DurableObjectStoreOptions {
  /** How long a customer's last inbound time is kept (so a window's `closedAt` can be told). Default 30 days. */
  ttlMs?: number | undefined;
}

/**
 * Each customer's last inbound time on Durable Objects (`<prefix>window:<customer>`, one object per customer),
 * for the router's service window and `GatewayClient`'s `serviceWindow` guard in every isolate: a message
 * recorded in one request is what the next request's free-form send is checked against.
 *
 * @example
 * import { DurableObjectWindowStore } from 'wa-gateway-sdk/durable-objects';
 * const window = new DurableObjectWindowStore({ namespace: env.WA_STATE });
 * const gw = new GatewayClient({ apiKey: env.GATEWAY_API_KEY, baseUrl: env.GATEWAY_BASE_URL, serviceWindow: window });
 */
export class DurableObjectWindowStore implements WindowStore {
  readonly #binding: Binding;
  readonly #ttlMs: number;

  constructor(options: DurableObjectWindowStoreOptions) {
    const op = 'new DurableObjectWindowStore';
    this.#binding = openBinding(options, op);
    this.#ttlMs = durationMs(options.ttlMs, `${op}: \`ttlMs\``, RETENTION_MS);
  }

  /**
   * Keeps the later of the stored time and `atMs` (a redelivered older message never moves it back).
   *
   * @example
   * await window.recordInbound('998901234567', Date.now());
   */
  async recordInbound(customer: string, atMs: number): Promise<void> {
    checkInbound('DurableObjectWindowStore.recordInbound', customer, atMs);
    await callObject(
      this.#binding,
      `window:${customer}`,
      'window.record',
      { atMs: Math.max(1, Math.floor(atMs)), retainMs: this.#ttlMs },
      'DurableObjectWindowStore.recordInbound',
    );
  }

  /**
   * When the customer last wrote (ms since the epoch), or `undefined`.
   *
   * @example
   * const last = await window.lastInbound('998901234567');
   */
  async lastInbound(customer: string): Promise<number | undefined> {
    const op = 'DurableObjectWindowStore.lastInbound';
    checkWindowCustomer(op, customer);
    const answer = await callObject(this.#binding, `window:${customer}`, 'window.last', {}, op);
    if (answer === null) return undefined;
    if (typeof answer !== 'number') throw unexpectedAnswer(op, 'a time that is not a number');
    return answer;
  }
}

/**
 * `value`, checked by the router's one rule (session-data.ts) before the call carries it as JSON: what JSON cannot
 * write (a BigInt, a cycle, `undefined` or a function for the whole value) is refused with `ConversationError`
 * (`invalid_session`) naming where; what it changes (a Date, a function inside) is kept as JSON makes it, silently
 * (this store has no logger; the router warns of it). The router's records were checked already.
 */
function storable(value: unknown, op: string): unknown {
  checkSession(value, 'value', undefined, undefined, op);
  return value;
}
