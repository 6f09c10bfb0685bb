import { type ApiPromise, apiPromise } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions } from '../core/call-options.js';
import { refuseNearMisses } from '../core/option-keys.js';
import type { LoginResult } from './login.js';
import type { TokenManager } from './token-manager.js';

/** Login. The client logs in by itself when needed; call `login()` to do it now or to read the account. */
export class Auth {
  readonly #tokens: TokenManager;

  /** @internal */
  constructor(tokens: TokenManager) {
    this.#tokens = tokens;
  }

  /**
   * Logs in (`POST /jwt/`) now, joining a login already in flight, and caches the token for every later call.
   * A refused login throws `LoginFailedError` (an `AuthenticationError`) with the server's `reasons`.
   * `otp: true` in the answer is returned and logged as a warning. Like every call, `.withResponse()` adds the
   * answer's status, headers and request id (a caller that joined a login in flight gets that login's).
   *
   * Per-call `options` as every method takes them: `timeoutMs`, `maxRetries` and `headers` apply to the login
   * request this call makes; when it joins a login already in flight, that request is out already and only
   * `signal` applies (it ends this call's wait, never the login the others wait for).
   *
   * @example
   * const { accountUuid, otp, expiresAt } = await platform.auth.login();
   * const { response } = await platform.auth.login({ timeoutMs: 5_000 }).withResponse();
   */
  login(options: RequestOptions = {}): ApiPromise<LoginResult> {
    return apiPromise(() => {
      refuseNearMisses(options, REQUEST_KEYS, 'auth.login');
      return this.#tokens.login(options);
    }, this.#tokens);
  }
}
