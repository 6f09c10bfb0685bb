import { brandError, WaGatewayError } from '../core/errors.js';

/**
 * @internal The name and string `code` of an error, for logs and typed errors: never its message, which may quote
 * a command's arguments. A hostile error object (a throwing getter or Proxy) gives its `typeof`.
 */
export function errorMeta(error: unknown): { errorName: string; code?: string } {
  try {
    if (error instanceof Error) {
      const code = (error as { code?: unknown }).code;
      return typeof code === 'string' ? { errorName: error.name, code } : { errorName: error.name };
    }
  } catch {
    // A hostile error object: fall through.
  }
  return { errorName: typeof error };
}

/** @internal An error's message (for matching, never for a log), or `''` (not an `Error`, or a hostile one whose message getter throws). */
export function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : '';
  } catch {
    return '';
  }
}

/**
 * Why a Redis-backed store failed:
 * - `unavailable`: Redis could not be reached, the connection dropped, or a command timed out;
 * - `unexpected_reply`: Redis answered something of a shape the store never writes (another program's key under
 *   the same prefix, a key of another type there (`WRONGTYPE`: the message names the key), a proxy that rewrote
 *   the answer);
 * - `command_failed`: Redis refused the command (`ReplyError`: out of memory, no or a wrong password (`NOAUTH`,
 *   `WRONGPASS`), a user without the permission (`NOPERM`), ...);
 * - `lock_timeout`: another process held a lock for longer than this one would wait;
 * - `lease_lost`: a write fenced by a lease was refused: the lease ran out (or another holder took it) first;
 * - `contention`: a compare-and-set lost too many times in a row to writers of the same key;
 * - `needs_cluster_client`: the Redis is a node of a Redis Cluster, reached through a standalone client (it
 *   answered `MOVED`): connect with ioredis's `Cluster` instead.
 */
export type RedisStoreFailure =
  | 'unavailable'
  | 'unexpected_reply'
  | 'command_failed'
  | 'lock_timeout'
  | 'lease_lost'
  | 'contention'
  | 'needs_cluster_client';

/**
 * A Redis-backed store (`wa-gateway-sdk/redis`) could not do its work. The message names the store and the
 * operation, never a value or the Redis client's own error text (ioredis attaches the command's arguments, tokens
 * included, to its errors, so neither the original error nor its message is kept). The one key it names is the key
 * of a `WRONGTYPE` refusal, with the store prefix it is under, for the owner of that key to be found (key names hold
 * the prefix, a kind, hashes and labels: never a value).
 */
export class RedisStoreError extends WaGatewayError {
  override name = 'RedisStoreError';
  readonly failure: RedisStoreFailure;
  /** Which store and operation, e.g. `RedisTokenStore.lock`. */
  readonly operation: string;
  /** The client error's class name (`MaxRetriesPerRequestError`, `ReplyError`, ...), when there was one. */
  readonly causeName: string | undefined;
  /** The system error code when there was one (`ECONNREFUSED`, `ECONNRESET`, ...). */
  readonly errno: string | undefined;
  /**
   * Always `false`: a store fails before any request to the gateway or the platform, so a send refused by a
   * `RedisRateLimiter` whose Redis is down was certainly not sent (`sendMany` reports it `notSent`).
   */
  readonly mayHaveBeenSent = false;

  constructor(
    message: string,
    options: { failure: RedisStoreFailure; operation: string; causeName?: string; errno?: string },
  ) {
    super(message);
    this.failure = options.failure;
    this.operation = options.operation;
    this.causeName = options.causeName;
    this.errno = options.errno;
  }
}
brandError(RedisStoreError, 'RedisStoreError');

/** Why an inbox operation failed. */
export type InboxErrorReason =
  /** Redis is not connected, or refused the write: the handler answers 500 and the gateway retries. */
  | 'unavailable'
  /** The Redis is a node of a Redis Cluster reached through a standalone client: connect with ioredis's `Cluster`. */
  | 'needs_cluster_client'
  /** Redis did not answer within `enqueueTimeoutMs`. */
  | 'timeout'
  /** Redis answered something the inbox did not expect (a job without an id, data of another shape). */
  | 'unexpected_reply'
  /** The inbox was closed. */
  | 'closed';

/**
 * An inbox operation failed. The message names the operation and the reason, never an event's content, its
 * idempotency key or a connection secret.
 */
export class InboxError extends WaGatewayError {
  override name = 'InboxError';
  readonly reason: InboxErrorReason;
  /** The underlying error's class name, when there was one. */
  readonly causeName: string | undefined;
  /** The system error code, when there was one (`ECONNREFUSED`, ...). */
  readonly errno: string | undefined;

  // The Redis or BullMQ error itself is not kept: ioredis attaches the command's arguments to its errors, and an
  // enqueue's arguments are the event, customer data included.
  constructor(message: string, reason: InboxErrorReason, cause?: unknown) {
    super(message);
    this.reason = reason;
    const meta = cause === undefined ? undefined : errorMeta(cause);
    this.causeName = meta?.errorName;
    this.errno = meta?.code;
  }
}
brandError(InboxError, 'InboxError');

/** Why a campaign queue operation was refused. */
export type CampaignQueueErrorReason =
  /** The campaign was cancelled: final, nothing more is enqueued, paused, resumed or resent. */
  | 'cancelled'
  /** `resend` or `drop` of a message that is not in doubt (sent, not sent, queued, or no such key). */
  | 'not_in_doubt'
  /** `resend` of a message whose BullMQ job is gone: enqueue it again under a new key. */
  | 'job_gone'
  /** `pause`, `resume` or `cancel` of a campaign never enqueued (or expired): a mistyped id; nothing was written. */
  | 'unknown_campaign'
  /**
   * `enqueue` with a `startAt` other than the one the campaign was first enqueued with: its messages queued already
   * keep theirs. Enqueue without `startAt` (the campaign's is kept), or under another campaign id.
   */
  | 'start_at_differs'
  /** A call after `close()`: the queue's BullMQ connection is closed; build a new `CampaignQueue`. */
  | 'closed';

/** A campaign queue operation was refused: the message says why and what to do instead. */
export class CampaignQueueError extends WaGatewayError {
  override name = 'CampaignQueueError';
  readonly reason: CampaignQueueErrorReason;
  constructor(message: string, reason: CampaignQueueErrorReason) {
    super(message);
    this.reason = reason;
  }
}
brandError(CampaignQueueError, 'CampaignQueueError');
