import type { LoginResult, TokenManager } from './token-manager.js';

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
   * `otp: true` in the answer is returned and logged as a warning.
   *
   * @example
   * const { accountUuid, otp, expiresAt } = await platform.auth.login();
   */
  login(options: { signal?: AbortSignal } = {}): Promise<LoginResult> {
    return this.#tokens.login(options.signal);
  }
}
