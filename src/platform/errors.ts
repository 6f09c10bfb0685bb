/**
 * The platform's own errors: a refused login and a stream stopped part-way. Each extends the shared class a caller
 * already catches (`AuthenticationError`, `StreamError`) with what only the platform knows.
 */
import { AuthenticationError, type BadRequestError, brandError, StreamError } from '../core/errors.js';
import { isRecord } from '../core/plain-data.js';
import { LOGIN_PATH } from './login.js';

/**
 * The login was refused (`POST /jwt/` answered 400, e.g. `non_field_errors: ["Unable to log in with provided
 * credentials."]`). An `AuthenticationError`, not a `BadRequestError`: the request was fine, the credentials
 * were not. `reasons` holds the server's messages.
 */
export class LoginFailedError extends AuthenticationError {
  override name = 'LoginFailedError';
  /** The server's messages: `non_field_errors`, or `field: message` for field errors. */
  readonly reasons: string[];

  constructor(from: BadRequestError) {
    const reasons = reasonsOf(from.body);
    const description = reasons.length > 0 ? reasons.join(' ') : from.description;
    super(
      {
        status: from.status,
        code: from.code,
        group: from.group,
        description,
        body: from.body,
        request: from.request ?? { method: 'POST', path: LOGIN_PATH },
        ...(from.requestId ? { requestId: from.requestId } : {}),
      },
      `Login to the platform failed (${from.status}): ${description} (POST ${LOGIN_PATH})`,
    );
    this.reasons = reasons;
  }
}
brandError(LoginFailedError, 'LoginFailedError');

function reasonsOf(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    const texts = Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    if (typeof value === 'string') texts.push(value);
    for (const t of texts) out.push(key === 'non_field_errors' || key === 'detail' ? t : `${key}: ${t}`);
  }
  return out;
}

/**
 * The message stream stopped part-way for a reason that may pass: the connection was cut, the server fell
 * silent for longer than `idleTimeoutMs`, the body ended in the middle of a record, or (`streamRange`) a
 * later window's request failed on the connection or with a 5xx or 429. `cause` holds the underlying error
 * (`ConnectionError`, `TimeoutError`, an `ApiError`) when there is one.
 *
 * Every record delivered before it is complete. To carry on, call `streamRange` again from `lastCreatedAt`:
 * `from` is inclusive to the millisecond, so the records of that millisecond already received come again;
 * drop them by `id`.
 *
 * A `StreamError` that is not a `StreamInterruptedError` (a line that is not JSON or not a record) comes back
 * on every attempt: resuming does not help.
 *
 * @example
 * let from: Instant = '2024-01-01T00:00:00Z';
 * let tailMs = Number.NaN; // the millisecond of the latest record saved, and the ids saved in it:
 * let tail = new Set<number>(); // a resume from lastCreatedAt sends them again
 * for (let attempt = 1; ; attempt++) {
 *   try {
 *     for await (const m of platform.messages.streamRange({ from, to })) {
 *       const ms = Date.parse(m.created_at);
 *       if (ms === tailMs && tail.has(m.id)) continue;
 *       if (ms !== tailMs) [tailMs, tail] = [ms, new Set()];
 *       tail.add(m.id);
 *       await save(m);
 *     }
 *     break;
 *   } catch (error) {
 *     if (!(error instanceof StreamInterruptedError) || attempt === 3) throw error;
 *     from = error.lastCreatedAt ?? from;
 *   }
 * }
 */
export class StreamInterruptedError extends StreamError {
  override name = 'StreamInterruptedError';
  /** `created_at` of the last record delivered, as the server wrote it; `undefined` when none was. */
  readonly lastCreatedAt: string | undefined;

  constructor(
    message: string,
    options: { recordsDelivered: number; lastCreatedAt: string | undefined; cause?: unknown },
  ) {
    super(message, {
      recordsDelivered: options.recordsDelivered,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.lastCreatedAt = options.lastCreatedAt;
  }
}
brandError(StreamInterruptedError, 'StreamInterruptedError');
