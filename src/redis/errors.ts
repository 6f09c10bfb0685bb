import { brandError, WaGatewayError } from '../core/errors.js';

/**
 * Why a Redis-backed store failed:
 * - `unavailable`: Redis could not be reached, the connection dropped, or a command timed out;
 * - `unexpected_reply`: Redis answered something of a shape the store never writes (another program's key under
 *   the same prefix, a proxy that rewrote the answer);
 * - `command_failed`: Redis refused the command (`ReplyError`: out of memory, a read-only replica, ...);
 * - `lock_timeout`: another process held a lock for longer than this one would wait;
 * - `contention`: a compare-and-set lost too many times in a row to writers of the same key.
 */
export type RedisStoreFailure =
  | 'unavailable'
  | 'unexpected_reply'
  | 'command_failed'
  | 'lock_timeout'
  | 'contention';

/**
 * A Redis-backed store (`wa-gateway-sdk/redis`) could not do its work. The message names the store and the
 * operation, never a key, a value or the Redis client's own error text (ioredis attaches the command's arguments,
 * tokens included, to its errors, so neither the original error nor its message is kept).
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
