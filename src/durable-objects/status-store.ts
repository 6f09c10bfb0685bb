import { durationMs } from '../core/duration.js';
import { WebhookParseError } from '../core/errors.js';
import { type Logger, type LogLevel, resolveLogger } from '../core/logger.js';
import { isRecord } from '../core/plain-data.js';
import type { StatusEvent, WebhookStatus } from '../webhooks/index.js';
import { announceStatusChange } from '../webhooks/status-change-announce.js';
import {
  announced,
  applyStatus,
  type StatusChange,
  type StatusUpdateResult,
  type TrackedStatus,
  trackedStatusFrom,
  wamidOf,
} from '../webhooks/status-tracker.js';
import {
  type Binding,
  callObject,
  type DurableObjectStoreOptions,
  openBinding,
  RETENTION_MS,
  unexpectedAnswer,
} from './binding.js';

/**
 * Options of {@link DurableObjectStatusStore}.
 *
 * @example
 * new DurableObjectStatusStore({ namespace: env.WA_STATE, onChange: ({ current }) => record(current) });
 */
export interface DurableObjectStatusStoreOptions extends DurableObjectStoreOptions {
  /** How long a message's state is kept after its last update. Default 30 days. */
  ttlMs?: number | undefined;
  /**
   * Called after every update that moved a message's `status` (in the request whose update the object applied),
   * and awaited. The change stands only if it succeeds: when it throws or rejects, the update is undone (unless
   * another update of the message moved its status on) and `update` rejects with its error, so the gateway's
   * retry calls it again.
   */
  onChange?: ((change: StatusChange) => void | Promise<void>) | undefined;
  /** Told when an undo fails; operation names and error classes only. Default `console`, filtered to `logLevel`. */
  logger?: Logger | undefined;
  /** The least severe level logged. Default: the `WA_GATEWAY_LOG` environment variable, else `'warn'`. */
  logLevel?: LogLevel | undefined;
}

/**
 * `StatusTracker`'s rules on Durable Objects, for statuses that reach any isolate in any order:
 * `update(event)` returns what `StatusTracker.update` returns, but the state is shared.
 *
 * One object per message (`<prefix>status:<wamid>`): the object applies the tracker's own step (`applyStatus`)
 * to its snapshot and stores the result in one event, so concurrent updates of one message are applied one after
 * another, never lost and never regressing; `failed` stays final. One update is one request to the object.
 *
 * `onChange` runs after the object stored the change and before `update` resolves; if it fails, the object takes
 * back what this update set, keeping what another update wrote meanwhile (a late billable `delivered`), unless
 * another update already moved the status on (whose own `onChange` then carries the newer state). There is no `billableCount()` (as `RedisStatusStore` has): a count across messages
 * would make every update meet in one object; count `newlyBillable` from `update`'s result instead.
 *
 * @example
 * import { DurableObjectStatusStore } from 'wa-gateway-sdk/durable-objects';
 * const statuses = new DurableObjectStatusStore({ namespace: env.WA_STATE });
 * // in onEvent: if (event.kind === 'status') { const { changed, current } = await statuses.update(event); }
 */
export class DurableObjectStatusStore {
  readonly #binding: Binding;
  readonly #ttlMs: number;
  readonly #onChange: DurableObjectStatusStoreOptions['onChange'];
  readonly #logger: Logger | undefined;

  constructor(options: DurableObjectStatusStoreOptions) {
    const op = 'new DurableObjectStatusStore';
    this.#binding = openBinding(options, op);
    this.#ttlMs = durationMs(options.ttlMs, `${op}: \`ttlMs\``, RETENTION_MS);
    this.#onChange = options.onChange;
    this.#logger = resolveLogger(options);
  }

  /**
   * Applies a status event (from `parseWebhook`) or a raw `statuses[]` object to the shared state. An input that
   * cannot be read (a throwing getter or Proxy) is a `WebhookParseError`, and nothing is written.
   *
   * @example
   * const { changed, current, newlyBillable } = await statuses.update(event);
   */
  async update(input: StatusEvent | WebhookStatus): Promise<StatusUpdateResult> {
    const op = 'DurableObjectStatusStore.update';
    const wamid = wamidOf(input);
    if (wamid === undefined) return applyStatus(undefined, input);
    const answer = await callObject(
      this.#binding,
      `status:${wamid}`,
      'status.update',
      { input: plainStatus(input), retainMs: this.#ttlMs },
      op,
    );
    const result = decodeResult(op, answer);
    if (announced(result) && result.current !== undefined)
      await this.#announce(wamid, result, result.current);
    return result;
  }

  /** Runs `onChange` for a stored change; on its failure asks the object to undo it (`undoneStatus`), and rethrows. */
  #announce(wamid: string, result: StatusUpdateResult, current: TrackedStatus): Promise<void> {
    const undo = { current, previous: result.previous ?? null, retainMs: this.#ttlMs };
    return announceStatusChange(
      this.#onChange,
      { ...result, current },
      () =>
        callObject(
          this.#binding,
          `status:${wamid}`,
          'status.undo',
          undo,
          'DurableObjectStatusStore.update undo',
        ),
      this.#logger,
    );
  }

  /**
   * The shared state of a message, or `undefined`.
   *
   * @example
   * const state = await statuses.get('wamid.HBgM...');
   */
  async get(wamid: string): Promise<TrackedStatus | undefined> {
    const op = 'DurableObjectStatusStore.get';
    const answer = await callObject(this.#binding, `status:${String(wamid)}`, 'status.get', {}, op);
    return answer === null ? undefined : snapshot(op, answer);
  }

  /**
   * Stops tracking a message. Resolves `true` when it was tracked.
   *
   * @example
   * await statuses.delete('wamid.HBgM...');
   */
  async delete(wamid: string): Promise<boolean> {
    const op = 'DurableObjectStatusStore.delete';
    const answer = await callObject(this.#binding, `status:${String(wamid)}`, 'status.delete', {}, op);
    if (typeof answer !== 'boolean') throw unexpectedAnswer(op, 'a deletion that is not true or false');
    return answer;
  }
}

/**
 * The input as the object reads it: the event's own fields `applyStatus` reads (its raw status and parsed
 * timestamp), or the raw status, as plain JSON. One whose getter or Proxy trap throws is a `WebhookParseError`,
 * as `StatusTracker` makes it.
 */
function plainStatus(input: StatusEvent | WebhookStatus): Record<string, unknown> {
  try {
    const event = input as Partial<StatusEvent>;
    const source =
      event.kind === 'status' && isRecord(event.status)
        ? { kind: 'status', status: event.status, timestamp: event.timestamp }
        : input;
    return JSON.parse(JSON.stringify(source)) as Record<string, unknown>;
  } catch {
    throw new WebhookParseError('Status event could not be read (a getter or proxy threw)');
  }
}

function decodeResult(op: string, answer: unknown): StatusUpdateResult {
  if (
    !isRecord(answer) ||
    typeof answer['changed'] !== 'boolean' ||
    typeof answer['newlyBillable'] !== 'boolean'
  )
    throw unexpectedAnswer(op, 'an update result of another shape');
  const read = (v: unknown) => (v === undefined || v === null ? undefined : snapshot(op, v));
  const result = {
    changed: answer['changed'],
    previous: read(answer['previous']),
    current: read(answer['current']),
    newlyBillable: answer['newlyBillable'],
  };
  return answer['ignored'] === 'unknown_status' ? { ...result, ignored: 'unknown_status' } : result;
}

/** A snapshot as `StatusTracker` holds it: every field present, `undefined` where JSON left it out. */
function snapshot(op: string, value: unknown): TrackedStatus {
  if (
    !isRecord(value) ||
    typeof value['wamid'] !== 'string' ||
    typeof value['status'] !== 'string' ||
    typeof value['events'] !== 'number'
  )
    throw unexpectedAnswer(op, 'a status snapshot of another shape');
  return trackedStatusFrom(value as unknown as TrackedStatus);
}
