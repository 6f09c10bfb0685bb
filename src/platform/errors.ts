import { AuthenticationError, type BadRequestError, brandError } from '../core/errors.js';
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
