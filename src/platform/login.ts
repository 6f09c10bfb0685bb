/** The platform's login (`POST /jwt/`): its answer's schema, the token's lifetime and what `auth.login()` returns. */
import { z } from 'zod';
import { REDACTED } from '../core/secrets.js';

/** The platform's tokens are valid for 24 hours from login. */
export const TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

export const LOGIN_PATH = '/jwt/';

/** `POST /jwt/` answer. Only `token` is required: the login must not fail over an ancillary field. */
export const loginResponseSchema = z.looseObject({
  token: z.string().min(1),
  account: z.looseObject({ uuid: z.string() }).nullable().optional(),
  otp: z.boolean().nullable().optional(),
  client: z
    .looseObject({ device_id: z.union([z.string(), z.number()]).nullable().optional() })
    .nullable()
    .optional(),
});
export interface LoginResponse extends z.infer<typeof loginResponseSchema> {}

const inspect = Symbol.for('nodejs.util.inspect.custom');

/** What `auth.login()` returns. `JSON.stringify` and `util.inspect` of it show the token as `[redacted]`. */
export interface LoginResult {
  /** The token, sent as `Authorization: JWT <token>`. Server-side use only. */
  readonly token: string;
  /** `account.uuid` of the answer, or `null` when the server sent none. */
  readonly accountUuid: string | null;
  /**
   * `otp` of the answer. `true` means the account has one-time passwords enabled; the spec describes no OTP
   * step, so the SDK logs a warning and calls made with the token may be refused.
   */
  readonly otp: boolean;
  /** `client.device_id` of the answer, as a string, or `null`. */
  readonly deviceId: string | null;
  /** When the token expires (login time + 24 h), epoch milliseconds. */
  readonly expiresAt: number;
}

/** A `LoginResult` whose `toJSON` and `util.inspect` show the token as `[redacted]`. */
export function loginResult(fields: LoginResult): LoginResult {
  const visible = () => ({ ...fields, token: REDACTED });
  const result = { ...fields };
  Object.defineProperty(result, 'toJSON', { value: visible, enumerable: false });
  Object.defineProperty(result, inspect, {
    value: () => `LoginResult ${JSON.stringify(visible())}`,
    enumerable: false,
  });
  return result;
}
