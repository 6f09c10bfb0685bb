import { z } from 'zod';
import { compareAndSet, DEFAULT_CAS_ATTEMPTS, LOST_RACE } from '../core/compare-and-set.js';
import { countOption } from '../core/duration.js';
import { requireText } from '../core/errors.js';
import type { StatusEvent } from '../webhooks/events.js';
import { STATUS_VALUES, statusErrorSchema, type WebhookStatus } from '../webhooks/schemas.js';
import { announceStatusChange } from '../webhooks/status-change-announce.js';
import {
  announced,
  applyStatus,
  type StatusChange,
  type StatusUpdateResult,
  type TrackedStatus,
  trackedStatusFrom,
  undoneStatus,
  wamidOf,
} from '../webhooks/status-tracker.js';
import type { RedisClient } from './client.js';
import { RedisStoreError } from './errors.js';
import { hashId, type KeySpace } from './keys.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { Script, type ScriptKey, writes } from './script.js';
import { DEFAULT_RETENTION_MS, openStore, type RedisStoreOptions, retentionMs } from './store-options.js';

/**
 * Compare-and-set: writes the new snapshot ARGV[2] ('' = delete) only if the stored one is still ARGV[1], the one
 * the change was computed from ('' = absent), and moves the billable count by ARGV[3] in the same step, so a
 * billable delivery is counted exactly once. An update and its undo (`undoneStatus`) both write through it.
 */
const COMPARE_AND_SET = new Script(`
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2]) end
if ARGV[3] ~= '0' then redis.call('INCRBY', KEYS[2], ARGV[3]) end
return 1
`);

/** What `get` and `delete` ask for. */
const WAMID = 'the message id (wamid) the gateway answered the send with';

/** What is stored per message: the tracker's snapshot, absent fields left out. */
const storedSchema = z.object({
  wamid: z.string(),
  status: z.enum(STATUS_VALUES),
  timestamp: z.number().optional(),
  sentAt: z.number().optional(),
  deliveredAt: z.number().optional(),
  readAt: z.number().optional(),
  failedAt: z.number().optional(),
  delivered: z.boolean(),
  billable: z.boolean(),
  recipientId: z.string().optional(),
  recipientUserId: z.string().optional(),
  errors: z.array(statusErrorSchema).optional(),
  events: z.number(),
});

export interface RedisStatusStoreOptions extends RedisStoreOptions {
  /** How long a message's state is kept after its last update. Default 30 days. */
  ttlMs?: number | undefined;
  /**
   * Called after every update that moved a message's `status` (in the process whose update won), and awaited.
   * The change stands only if it succeeds: when it throws or rejects, the update is undone (unless another update
   * of the message moved its status on) and `update` rejects with its error, so the gateway's retry calls it again.
   */
  onChange?: ((change: StatusChange) => void | Promise<void>) | undefined;
  /** Most compare-and-set rounds lost to concurrent updates of one message before giving up. Default 50. */
  maxAttempts?: number | undefined;
}

/**
 * `StatusTracker`'s rules over Redis, for many processes receiving one message's statuses in any order:
 * `update(event)` returns what `StatusTracker.update` returns, but the state is shared.
 *
 * Each update reads the message's snapshot, applies the same pure step `StatusTracker` uses (`applyStatus`)
 * and writes back with a compare-and-set script; a concurrent update of the same message makes it read and
 * apply again. So states never regress whatever the interleaving, `failed` stays final, and a billable
 * delivery is counted once (`billableCount()`), by the one update whose write won. One set of rules, two
 * stores: the shared state cannot drift from the in-process tracker's.
 *
 * `onChange` runs after the write won and before `update` resolves. The write comes first so that only a state
 * that is really stored is ever announced (announcing before the write could tell the application `delivered`
 * while another instance had already stored `read`). If `onChange` fails, a compare-and-set takes back what this
 * update set (and its billable count), keeping what another instance wrote meanwhile (a late billable `delivered`),
 * unless another instance already moved the message's status on, whose own `onChange` then carries the newer state
 * (`StatusTracker`'s rule).
 *
 * Keys: `<prefix>status:<sha256 of the wamid>` (expiring `ttlMs` after the last update) and
 * `<prefix>status-billable` (the count, expiring `ttlMs` after the last billable delivery). On a Redis Cluster the
 * messages are spread over 256 buckets, each with its own count beside them (`status:{b3f}:<sha256>`,
 * `status-billable:{b3f}`), so that a message and the count it moves are written in one step; `billableCount()`
 * adds them up. Failures reject with `RedisStoreError`.
 *
 * @example
 * import Redis from 'ioredis';
 * import { RedisStatusStore } from 'wa-gateway-sdk/redis';
 * const statuses = new RedisStatusStore({ redis: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 }) });
 * // in onEvent: if (event.kind === 'status') { const { changed, current } = await statuses.update(event); }
 */
export class RedisStatusStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;
  readonly #ttlMs: number;
  readonly #maxAttempts: number;
  readonly #onChange: RedisStatusStoreOptions['onChange'];
  readonly #logger: RedisStoreOptions['logger'];

  constructor(options: RedisStatusStoreOptions) {
    const op = 'new RedisStatusStore';
    const { redis, keys, logger } = openStore(options, op);
    this.#redis = redis;
    this.#keys = keys;
    this.#ttlMs = retentionMs(options.ttlMs, `${op}: \`ttlMs\``, DEFAULT_RETENTION_MS);
    this.#maxAttempts = countOption(options.maxAttempts, `${op}: \`maxAttempts\``, DEFAULT_CAS_ATTEMPTS);
    this.#onChange = options.onChange;
    this.#logger = logger;
  }

  /**
   * Applies a status event (from `parseWebhook`) or a raw `statuses[]` object to the shared state.
   *
   * @example
   * const { changed, current, newlyBillable } = await statuses.update(event);
   */
  async update(input: StatusEvent | WebhookStatus): Promise<StatusUpdateResult> {
    const op = 'RedisStatusStore.update';
    const wamid = wamidOf(input);
    if (wamid === undefined) return applyStatus(undefined, input);
    const keys = this.#written(wamid);
    return this.#compareAndSet(op, keys, (previous) => {
      const result = applyStatus(previous, input);
      if (result.ignored || !result.current) return { result };
      return { result, next: result.current, billed: result.newlyBillable ? 1 : 0 };
    }).then(async (result) => {
      if (result.current && announced(result)) await this.#announce(keys, result, result.current);
      return result;
    });
  }

  /**
   * One compare-and-set of a message: `step` computes from the stored snapshot what to write (`next`, `undefined`
   * = delete; no `next` key = nothing) and how the billable count moves; lost rounds read and compute again.
   */
  #compareAndSet<T>(
    op: string,
    keys: [ScriptKey, ScriptKey],
    step: (stored: TrackedStatus | undefined) => {
      result: T;
      next?: TrackedStatus | undefined;
      billed?: number;
    },
  ): Promise<T> {
    return compareAndSet(
      op,
      async () => {
        const raw = await call(op, () => this.#redis.get(keys[0].key));
        const previous = raw === null ? undefined : decode(op, raw);
        const outcome = step(previous);
        if (!('next' in outcome)) return outcome.result;
        const { next, billed = 0 } = outcome;
        const args = [raw ?? '', next === undefined ? '' : JSON.stringify(next), String(billed)];
        const written = expectNumber(op, await call(op, () => COMPARE_AND_SET.run(this.#redis, keys, args)));
        return written === 1 ? outcome.result : LOST_RACE;
      },
      {
        maxAttempts: this.#maxAttempts,
        exhausted: (operation, attempts) =>
          new RedisStoreError(
            `${operation}: ${attempts} concurrent updates of one message in a row won the race; try again.`,
            { failure: 'contention', operation },
          ),
      },
    );
  }

  /** Runs `onChange` for a written change; on its failure undoes it by `undoneStatus`'s rule, and rethrows. */
  #announce(keys: [ScriptKey, ScriptKey], result: StatusUpdateResult, current: TrackedStatus): Promise<void> {
    const op = 'RedisStatusStore.update undo';
    const undo = () =>
      this.#compareAndSet(op, keys, (stored) => {
        const next = undoneStatus(stored, result.previous, current);
        if (next === stored) return { result: false };
        return { result: true, next, billed: stored?.billable && !next?.billable ? -1 : 0 };
      });
    return announceStatusChange(this.#onChange, { ...result, current }, undo, this.#logger);
  }

  /** The shared state of a message, or `undefined`. */
  async get(wamid: string): Promise<TrackedStatus | undefined> {
    const op = 'RedisStatusStore.get';
    const [{ key }] = this.#written(requireText(op, 'wamid', wamid, WAMID));
    const raw = await call(op, () => this.#redis.get(key));
    return raw === null ? undefined : decode(op, raw);
  }

  /** Stops tracking a message. Resolves `true` when it was tracked. */
  async delete(wamid: string): Promise<boolean> {
    const op = 'RedisStatusStore.delete';
    const [{ key }] = this.#written(requireText(op, 'wamid', wamid, WAMID));
    return expectNumber(op, await call(op, () => this.#redis.del(key))) > 0;
  }

  /**
   * Messages marked billable across every process since the count was created (it expires `ttlMs` after the last
   * billable delivery).
   */
  async billableCount(): Promise<number> {
    const op = 'RedisStatusStore.billableCount';
    const counts = await call(op, () =>
      Promise.all(
        this.#keys.buckets().map((bucket) => this.#redis.get(this.#keys.name('status-billable', bucket))),
      ),
    );
    return counts.reduce((sum: number, raw) => sum + (raw === null ? 0 : expectNumber(op, raw)), 0);
  }

  /** A message's key and its bucket's billable count, as its scripts write them. */
  #written(wamid: string): [ScriptKey, ScriptKey] {
    const hash = hashId(wamid);
    const bucket = this.#keys.bucketOf(hash);
    return [
      writes(this.#keys.name('status', bucket, hash), this.#ttlMs),
      writes(this.#keys.name('status-billable', bucket), this.#ttlMs),
    ];
  }
}

function decode(operation: string, raw: unknown): TrackedStatus {
  let value: unknown;
  try {
    value = typeof raw === 'string' ? JSON.parse(raw) : raw;
  } catch {
    throw unexpectedReply(operation, 'a stored status', 'unparsable text');
  }
  const parsed = storedSchema.safeParse(value);
  if (!parsed.success) throw unexpectedReply(operation, 'a stored status', typeof value);
  return trackedStatusFrom(parsed.data);
}
