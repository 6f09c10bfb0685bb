import { durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../webhooks/dedup.js';
import type { ClaimResult, IdempotencyStore } from '../webhooks/index.js';
import {
  type Binding,
  callObject,
  type DurableObjectStoreOptions,
  holderToken,
  openBinding,
  unexpectedAnswer,
} from './binding.js';

const CLAIM_RESULTS: readonly unknown[] = ['claimed', 'in_progress', 'done'];

/**
 * Options of {@link DurableObjectIdempotencyStore}.
 *
 * @example
 * new DurableObjectIdempotencyStore({ namespace: env.WA_STATE, ttlMs: 48 * 60 * 60 * 1000 });
 */
export interface DurableObjectIdempotencyStoreOptions extends DurableObjectStoreOptions {
  /** How long `done` is remembered when `complete` is called without a TTL. Default 24 h. */
  ttlMs?: number | undefined;
}

/**
 * An `IdempotencyStore` on Durable Objects: one object per idempotency key (`<prefix>dedup:<key>`), so every
 * delivery of one event, from any isolate and any location, meets in one single-threaded object, and events spread
 * over as many objects as there are events.
 *
 * - `claim` takes the key with the handler's short lease, in one event of the object: of many concurrent
 *   claims exactly one answers `'claimed'`; the others `'in_progress'` (or `'done'` once it completed).
 * - `renew` extends the lease only while this store still holds it (a token check in the object).
 * - `complete` marks the key `done` for the TTL (24 h by default); `release` frees it only for its holder.
 * - A holder that dies stops renewing: its lease ends in the object by itself, before the gateway's next attempt.
 *
 * Each call is one request to the object. Failures reject with `DurableObjectStoreError`, which the webhook
 * handlers answer with 500 (or, with `onStoreUnavailable: 'process'`, run the event undeduplicated).
 *
 * @example
 * import { createWebhookHandler } from 'wa-gateway-sdk/webhooks';
 * import { DurableObjectIdempotencyStore } from 'wa-gateway-sdk/durable-objects';
 * const handler = createWebhookHandler({
 *   secret: env.WEBHOOK_SECRET,
 *   dedupe: new DurableObjectIdempotencyStore({ namespace: env.WA_STATE }),
 *   onEvent,
 * });
 */
export class DurableObjectIdempotencyStore implements IdempotencyStore {
  readonly #binding: Binding;
  readonly #ttlMs: number;
  /** Tokens of the claims this store holds, by idempotency key. */
  readonly #held = new Map<string, string>();

  constructor(options: DurableObjectIdempotencyStoreOptions) {
    const op = 'new DurableObjectIdempotencyStore';
    this.#binding = openBinding(options, op);
    this.#ttlMs = durationMs(options.ttlMs, `${op}: \`ttlMs\``, DEFAULT_DEDUPE_TTL_MS);
  }

  /**
   * Takes `key` for `leaseMs` if it is free; otherwise tells whether it is being processed or done.
   *
   * @example
   * const claim = await store.claim(event.idempotencyKey, 800); // 'claimed' | 'in_progress' | 'done'
   */
  async claim(key: string, leaseMs: number = this.#ttlMs): Promise<ClaimResult> {
    const op = 'DurableObjectIdempotencyStore.claim';
    const token = holderToken();
    const answer = await callObject(
      this.#binding,
      this.#name(key),
      'cell.claim',
      { token, ms: this.#ms(leaseMs), done: false },
      op,
    );
    if (!CLAIM_RESULTS.includes(answer)) throw unexpectedAnswer(op, 'a claim of no known state');
    if (answer === 'claimed') this.#held.set(key, token);
    return answer;
  }

  /**
   * Marks `key` processed for `ttlMs` (default the store's TTL), whoever holds it now: the work is done.
   *
   * @example
   * await store.complete(event.idempotencyKey, 24 * 60 * 60 * 1000);
   */
  async complete(key: string, ttlMs: number = this.#ttlMs): Promise<void> {
    const op = 'DurableObjectIdempotencyStore.complete';
    this.#held.delete(key);
    await callObject(this.#binding, this.#name(key), 'cell.complete', { ttlMs: this.#ms(ttlMs) }, op);
  }

  /**
   * Frees `key` after a failure, if this store still holds it.
   *
   * @example
   * await store.release(event.idempotencyKey); // the gateway's retry processes the event
   */
  async release(key: string): Promise<void> {
    const token = this.#held.get(key);
    if (token === undefined) return;
    this.#held.delete(key);
    await callObject(
      this.#binding,
      this.#name(key),
      'cell.release',
      { token },
      'DurableObjectIdempotencyStore.release',
    );
  }

  /**
   * Extends this store's claim on `key` to `leaseMs` from now; `false` when it no longer holds it.
   *
   * @example
   * if (!(await store.renew(event.idempotencyKey, 800))) console.warn('the claim was lost');
   */
  async renew(key: string, leaseMs: number): Promise<boolean> {
    const op = 'DurableObjectIdempotencyStore.renew';
    const token = this.#held.get(key);
    if (token === undefined) return false;
    const answer = await callObject(
      this.#binding,
      this.#name(key),
      'cell.renew',
      { token, leaseMs: this.#ms(leaseMs) },
      op,
    );
    if (typeof answer !== 'boolean') throw unexpectedAnswer(op, 'a renewal that is not true or false');
    return answer;
  }

  /**
   * The state of `key`, or `undefined` when it is free.
   *
   * @example
   * await store.peek(event.idempotencyKey); // 'in_progress' | 'done' | undefined
   */
  async peek(key: string): Promise<'in_progress' | 'done' | undefined> {
    const op = 'DurableObjectIdempotencyStore.peek';
    const answer = await callObject(this.#binding, this.#name(key), 'cell.peek', {}, op);
    if (answer === null) return undefined;
    if (answer === 'in_progress' || answer === 'done') return answer;
    throw unexpectedAnswer(op, 'a state of no known kind');
  }

  #name(key: string): string {
    if (typeof key !== 'string' || key === '') {
      throw new ConfigurationError(
        'DurableObjectIdempotencyStore: the idempotency key must be a non-empty string.',
      );
    }
    return `dedup:${key}`;
  }

  /** A duration the handler passed, by the one rule (core/duration.ts): `undefined` is the store's TTL. */
  #ms(ms: number | undefined): number {
    return durationMs(ms, 'DurableObjectIdempotencyStore: a lease or TTL', this.#ttlMs);
  }
}
