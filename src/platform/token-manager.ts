import { raceSignal } from '../core/abort.js';
import { responseInfo, type WithResponse } from '../core/api-promise.js';
import { type RequestOptions, requestOf } from '../core/call-options.js';
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  InvalidResponseError,
  unexpectedAnswer,
} from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import { isHeaderSecret } from '../core/secret-advice.js';
import { REDACTED } from '../core/secrets.js';
import { traced } from '../core/tracing.js';
import type { Transport } from '../core/transport.js';
import { LoginFailedError } from './errors.js';
import {
  LOGIN_PATH,
  type LoginResult,
  loginResponseSchema,
  loginResult,
  TOKEN_LIFETIME_MS,
} from './login.js';
import { MemoryTokenStore, type TokenEntry, type TokenStore, tokenEntrySchema } from './token-store.js';

/** A token is replaced this long before it expires, so no request goes out with a token about to lapse. */
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

const inspect = Symbol.for('nodejs.util.inspect.custom');

export interface TokenManagerOptions {
  /** A transport to `{platform_url}` that sends no Authorization header (login is the one open endpoint). */
  transport: Transport;
  username?: string | undefined;
  password?: string | undefined;
  /** A ready token: used until the platform rejects it. */
  token?: string | undefined;
  store?: TokenStore | undefined;
  logger?: Logger | undefined;
  /** Default `TOKEN_REFRESH_MARGIN_MS`. */
  refreshMarginMs?: number | undefined;
}

/** What a caller's options change in a login request: never its signal (the login may be shared). */
type LoginRequestOptions = Omit<RequestOptions, 'signal'>;

/** How many past tokens stay registered for scrubbing: a server may echo an older one in an error body. */
const REMEMBERED_TOKENS = 8;

/**
 * How long the manager waits on the token store before going on without it: for a read or a write, and for the
 * lock to start its task. A store that accepts and never answers (a Redis frozen or cut off by the network, and
 * a client without `commandTimeout`) must not hold every call: past this the manager logs in on its own. Longer
 * than a healthy store takes, shorter than a call's usual deadline; another process's login the lock waits for
 * usually ends within it (if not, this process logs in too: one more token, no harm).
 */
export const TOKEN_STORE_WAIT_MS = 2_000;

/** `promise`, or a `TimeoutError` once `TOKEN_STORE_WAIT_MS` passed while `pending()` still says so. */
function bounded<T>(promise: Promise<T>, what: string, pending: () => boolean = () => true): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const check = () => {
      if (!pending()) return;
      const error = new Error(`the token store's ${what} did not answer within ${TOKEN_STORE_WAIT_MS} ms`);
      reject(Object.assign(error, { name: 'TimeoutError' }));
    };
    timer = setTimeout(check, TOKEN_STORE_WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Obtains and caches the platform token. Guarantees:
 *
 * - one login in flight at a time, whatever the number of callers waiting on it (they share its promise; a
 *   caller's own `AbortSignal` stops only its own wait, never the shared login);
 * - a token is reused until 24 h after its login minus the refresh margin, then replaced;
 * - `refresh(rejected)` replaces a token only if it is still the rejected one: a burst of 401s answered to
 *   many concurrent calls causes a single re-login, and calls whose 401 arrives after the re-login simply
 *   take the new token;
 * - the `TokenStore` is read before logging in, so processes sharing a store share one login.
 *
 * @internal The SDK's own plumbing: built by the clients, never by a user; kept out of the published types.
 */
export class TokenManager {
  readonly #transport: Transport;
  readonly #username: string | undefined;
  readonly #password: string | undefined;
  readonly #store: TokenStore;
  readonly #logger: Logger | undefined;
  readonly #marginMs: number;
  #entry: TokenEntry | undefined;
  #acquiring: Promise<string> | undefined;
  #loggingIn: Promise<WithResponse<LoginResult>> | undefined;
  /** Logins performed, so `refresh` can tell a token a login just issued from a stale stored one. */
  #logins = 0;
  readonly #seen: string[] = [];

  constructor(options: TokenManagerOptions) {
    this.#transport = options.transport;
    this.#username = options.username;
    this.#password = options.password;
    this.#store = options.store ?? new MemoryTokenStore();
    this.#logger = options.logger;
    this.#marginMs = options.refreshMarginMs ?? TOKEN_REFRESH_MARGIN_MS;
    if (options.token !== undefined) {
      // Its real expiry is unknown: it is used until the platform rejects it.
      this.#adopt({ token: options.token, expiresAt: Number.POSITIVE_INFINITY });
    }
  }

  /** Whether username and password are configured, so a rejected or expired token can be replaced. */
  get canLogIn(): boolean {
    return this.#username !== undefined && this.#password !== undefined;
  }

  /** The cached token when it is still fresh, else `undefined` (then `token()` obtains one). */
  cached(): string | undefined {
    const entry = this.#entry;
    return entry && this.#fresh(entry) ? entry.token : undefined;
  }

  /** `text` with every credential of the client scrubbed (for the login's `withResponse()`). */
  redact(text: string): string {
    return this.#transport.redact(text);
  }

  /** A valid token: the cached one, the store's, or a fresh login. */
  token(signal?: AbortSignal): Promise<string> {
    const entry = this.#entry;
    if (entry && this.#fresh(entry)) return Promise.resolve(entry.token);
    return raceSignal(this.#acquire(undefined), signal);
  }

  /**
   * A replacement for `rejected`, the token a call was refused with (401). If the current token is already a
   * different one (another call refreshed first), that one is returned without logging in.
   */
  async refresh(rejected: string | undefined, signal?: AbortSignal): Promise<string> {
    for (let round = 0; round < 2; round++) {
      const entry = this.#entry;
      if (entry && entry.token !== rejected && this.#fresh(entry)) return entry.token;
      if (!this.canLogIn) throw noCredentials();
      if (entry && entry.token === rejected) this.#entry = undefined;
      const loginsBefore = this.#logins;
      const token = await raceSignal(this.#acquire(rejected), signal);
      // A token that a login just issued is trusted even if it equals the refused one: platforms whose tokens
      // have one-second resolution issue the same string twice within a second.
      if (token !== rejected || this.#logins > loginsBefore) return token;
    }
    // The store keeps handing back the rejected token: only a login can replace it.
    return (await raceSignal(this.#loginShared(), signal)).data.token;
  }

  /**
   * Logs in now (joining a login already in flight) and caches the token. The answer's `ResponseInfo` is that of
   * the login joined. `options`' `timeoutMs`, `maxRetries` and `headers` shape the login request when this call
   * starts it; its `signal` ends only this caller's wait, never a login others share.
   */
  login(options: RequestOptions = {}): Promise<WithResponse<LoginResult>> {
    if (!this.canLogIn) {
      return Promise.reject(
        new ConfigurationError(
          'auth.login() needs username and password in the PlatformClient options; this client only has a token.',
        ),
      );
    }
    const { signal, ...request } = requestOf(options);
    return raceSignal(this.#loginShared(request), signal);
  }

  /** Every credential held: the password and the tokens seen, for scrubbing errors and logs. */
  secrets(): string[] {
    return this.#password === undefined ? [...this.#seen] : [this.#password, ...this.#seen];
  }

  #fresh(entry: TokenEntry): boolean {
    return entry.expiresAt - this.#marginMs > Date.now();
  }

  #adopt(entry: TokenEntry): void {
    this.#entry = entry;
    if (!this.#seen.includes(entry.token)) {
      this.#seen.push(entry.token);
      if (this.#seen.length > REMEMBERED_TOKENS) this.#seen.shift();
    }
  }

  #acquire(rejected: string | undefined): Promise<string> {
    if (!this.#acquiring) {
      const run = async (): Promise<string> => {
        const stored = await this.#readStore();
        if (stored && stored.token !== rejected && this.#fresh(stored)) {
          this.#adopt(stored);
          return stored.token;
        }
        if (!this.canLogIn) throw noCredentials();
        return (await this.#loginShared()).data.token;
      };
      const store = this.#store;
      // Tells the task's own failure (a refused login: the caller's error) from the lock's (a store that is
      // down: not worth failing the call for), whatever their classes.
      let taskFailed = false;
      // The lock's task started, or the wait for it was given up (the login then goes on without the lock).
      let started = false;
      let gaveUp = false;
      const tracked = (): Promise<string> => {
        if (gaveUp) return Promise.resolve(''); // a lock granted after the wait was given up: nothing to do
        started = true;
        return run().catch((error: unknown) => {
          taskFailed = true;
          throw error;
        });
      };
      const giveUp = () => {
        gaveUp = !started;
        return gaveUp;
      };
      const locked =
        typeof store.lock === 'function'
          ? bounded(store.lock(tracked), 'lock', giveUp).catch((error: unknown) => {
              // A lock that fails must not cost the call: carry on without it (the token may come twice).
              if (taskFailed) throw error;
              log(
                this.#logger,
                'warn',
                'wa-gateway-sdk: the token store lock failed; logging in without it',
                {
                  error: error instanceof Error ? error.name : typeof error,
                },
              );
              return run();
            })
          : run();
      const promise = locked.finally(() => {
        this.#acquiring = undefined;
      });
      // Waiters may all have aborted; the shared promise must not become an unhandled rejection.
      promise.catch(() => {});
      this.#acquiring = promise;
    }
    return this.#acquiring;
  }

  /** The login in flight, or a new one made with `request` (the options of the call that starts it). */
  #loginShared(request: LoginRequestOptions = {}): Promise<WithResponse<LoginResult>> {
    if (!this.#loggingIn) {
      const promise = this.#login(request).finally(() => {
        this.#loggingIn = undefined;
      });
      promise.catch(() => {});
      this.#loggingIn = promise;
    }
    return this.#loggingIn;
  }

  async #login(options: LoginRequestOptions): Promise<WithResponse<LoginResult>> {
    this.#logins++;
    const started = Date.now();
    const request = { method: 'POST', path: LOGIN_PATH };
    let data: unknown;
    let status: number;
    let response: WithResponse<LoginResult>['response'];
    try {
      // A span like every platform call's (`PlatformHttp.call`), which the login cannot go through: it is the one
      // request without the token.
      const transport = this.#transport;
      const answer = await traced(
        'wa-gateway platform POST',
        () => ({ 'http.request.method': 'POST', 'server.address': transport.host, 'url.path': LOGIN_PATH }),
        async () => {
          const sent = await transport.json({
            ...options,
            method: 'POST',
            path: LOGIN_PATH,
            body: { username: this.#username, password: this.#password },
            // Logging in twice has no effect beyond a second valid token, so a fault may be retried.
            idempotent: true,
          });
          return { data: sent.data, response: responseInfo(sent.response, sent.attempts, sent.call) };
        },
      );
      data = answer.data;
      status = answer.response.status;
      response = answer.response;
    } catch (error) {
      if (error instanceof BadRequestError) throw new LoginFailedError(error);
      if (error instanceof InvalidResponseError) {
        // Its excerpt could hold a token from a half-written answer.
        throw new InvalidResponseError(
          `POST ${LOGIN_PATH} answered ${error.status} with a body that is not valid JSON.`,
          { status: error.status, bodyExcerpt: '', request },
        );
      }
      throw error;
    }
    const parsed = loginResponseSchema.safeParse(data);
    if (!parsed.success) {
      throw unexpectedAnswer({ status, ...request }, 'without a token.');
    }
    const answer = parsed.data;
    if (!isHeaderSecret(answer.token)) {
      // Sent as it is, it would fail every call as a connection fault that names nothing. Never quoted: a token.
      throw unexpectedAnswer(
        { status, ...request },
        'with a token that cannot be sent in the Authorization header (a space, a line break or a character ' +
          "that is not visible ASCII); it was not used. Check that platformUrl is the platform's address.",
      );
    }
    const entry = { token: answer.token, expiresAt: started + TOKEN_LIFETIME_MS };
    this.#adopt(entry);
    await this.#writeStore(entry);
    const otp = answer.otp === true;
    if (otp) {
      log(
        this.#logger,
        'warn',
        'wa-gateway-sdk: the platform login answered otp: true. The account may require a one-time password, ' +
          'a step the platform spec does not describe; calls made with this token may be refused.',
        { path: LOGIN_PATH },
      );
    }
    log(this.#logger, 'debug', 'wa-gateway-sdk: logged in to the platform', {
      path: LOGIN_PATH,
      expiresAt: new Date(entry.expiresAt).toISOString(),
    });
    const deviceId = answer.client?.device_id;
    const result = loginResult({
      token: answer.token,
      accountUuid: answer.account?.uuid ?? null,
      otp,
      deviceId: deviceId === undefined || deviceId === null ? null : String(deviceId),
      expiresAt: entry.expiresAt,
    });
    return { data: result, response };
  }

  async #readStore(): Promise<TokenEntry | undefined> {
    let entry: unknown;
    try {
      entry = await bounded(
        Promise.resolve().then(() => this.#store.get()),
        'read',
      );
    } catch (error) {
      log(this.#logger, 'warn', 'wa-gateway-sdk: the token store could not be read; logging in instead', {
        error: error instanceof Error ? error.name : typeof error,
      });
      return undefined;
    }
    if (entry === undefined || entry === null) return undefined;
    const parsed = tokenEntrySchema.safeParse(entry);
    if (!parsed.success) {
      log(
        this.#logger,
        'warn',
        'wa-gateway-sdk: the token store returned something that is not a TokenEntry',
        {},
      );
      return undefined;
    }
    if (!isHeaderSecret(parsed.data.token)) {
      // A token no header can carry (a line break, a space, a character that is not visible ASCII): a corrupt
      // entry, replaced by the login it now takes. Never quoted: a token.
      log(
        this.#logger,
        'warn',
        'wa-gateway-sdk: the token store returned a token that cannot be sent in a header; logging in instead',
        {},
      );
      return undefined;
    }
    return { token: parsed.data.token, expiresAt: parsed.data.expiresAt };
  }

  async #writeStore(entry: TokenEntry): Promise<void> {
    try {
      await bounded(
        Promise.resolve().then(() => this.#store.set({ token: entry.token, expiresAt: entry.expiresAt })),
        'write',
      );
    } catch (error) {
      log(
        this.#logger,
        'warn',
        'wa-gateway-sdk: the token store could not be written; the token is still used',
        {
          error: error instanceof Error ? error.name : typeof error,
        },
      );
    }
  }

  /** @internal */
  [inspect](): string {
    return `TokenManager { username: ${JSON.stringify(this.#username ?? null)}, password: '${REDACTED}', token: '${REDACTED}' }`;
  }

  toJSON(): Record<string, unknown> {
    return { username: this.#username ?? null, password: REDACTED, token: REDACTED };
  }
}

function noCredentials(): AuthenticationError {
  return new AuthenticationError(
    {
      status: 401,
      code: null,
      group: null,
      description: 'The platform rejected the token and no username/password are configured to log in again.',
      body: undefined,
    },
    'The platform rejected the token and no username/password are configured to log in again: ' +
      'pass username and password (or a fresh token) to the PlatformClient.',
  );
}
