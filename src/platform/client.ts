import {
  type ClientTransportConfig,
  COMMON_CLIENT_KEYS,
  type CommonClientOptions,
  refuseVersionSuffix,
  requireBaseUrl,
  requireSecret,
  transportConfigOf,
} from '../core/client-options.js';
import { ConfigurationError } from '../core/errors.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { describeSecret, secretAdvice } from '../core/secret-advice.js';
import { REDACTED } from '../core/secrets.js';
import { Transport } from '../core/transport.js';
import { Auth } from './auth.js';
import { Conversations } from './conversations.js';
import { Customers } from './customers.js';
import { PlatformHttp } from './http.js';
import { PlatformMessages } from './messages.js';
import { Reports } from './reports.js';
import { PLATFORM_RETRY_RULES } from './retry-rules.js';
import { Stats } from './stats.js';
import { TokenManager } from './token-manager.js';
import type { TokenStore } from './token-store.js';

export interface PlatformClientOptions extends CommonClientOptions {
  /** `{platform_url}`: login, reports, batch send and the `/v2` operations. */
  platformUrl: string;
  /** `{stream_url}`: stats and the message stream. */
  streamUrl: string;
  /** Login username. With `password`, the client logs in by itself and again whenever the token is refused. */
  username?: string | undefined;
  password?: string | undefined;
  /** A ready token, used until the platform refuses it (then the client logs in, if it has credentials). */
  token?: string | undefined;
  /** Where tokens are shared between clients and processes. Default: in memory, per client. */
  tokenStore?: TokenStore | undefined;
  /**
   * Per-request timeout in ms (for a stream: until the answer's headers arrive, and the longest silence of
   * the server while its body is read, unless the call sets `idleTimeoutMs`). Default 30,000.
   */
  timeoutMs?: number | undefined;
  /** Retries of requests that are safe to repeat (GETs, login). Default 2. */
  maxRetries?: number | undefined;
  /** A custom fetch. By default `globalThis.fetch`, looked up per request. */
  fetch?: typeof fetch | undefined;
}

/** `new PlatformClient`'s options, every one (see `OptionKeys`). */
const CLIENT_KEYS = [
  'platformUrl',
  'streamUrl',
  'username',
  'password',
  'token',
  'tokenStore',
  'timeoutMs',
  'maxRetries',
  'fetch',
  ...COMMON_CLIENT_KEYS,
] as const;
const clientKeys: OptionKeys<PlatformClientOptions, typeof CLIENT_KEYS> = CLIENT_KEYS;

const inspect = Symbol.for('nodejs.util.inspect.custom');

/**
 * Client of the conversation platform: login, stats, reports, the message stream, sending into
 * conversations, and conversation and customer operations.
 *
 * Logs in lazily with `username`/`password` (or uses a ready `token`), caches the token for 24 hours minus a
 * safety margin, shares one login between concurrent calls, and on a 401 logs in once and repeats the call.
 *
 * @example
 * import { PlatformClient } from 'wa-gateway-sdk';
 * const platform = new PlatformClient({
 *   platformUrl: 'https://platform.example.com',
 *   streamUrl: 'https://stream.example.com',
 *   username: process.env.PLATFORM_USERNAME!,
 *   password: process.env.PLATFORM_PASSWORD!,
 * });
 * const report = await platform.reports.get({ date_range: 'last_7', trunc: 'day', data: 'messages' });
 */
export class PlatformClient {
  readonly auth: Auth;
  readonly stats: Stats;
  readonly reports: Reports;
  readonly messages: PlatformMessages;
  readonly conversations: Conversations;
  readonly customers: Customers;
  readonly platformUrl: string;
  readonly streamUrl: string;
  readonly #username: string | undefined;

  constructor(options: PlatformClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(
        'new PlatformClient(options) needs an options object with platformUrl, streamUrl and credentials.',
      );
    }
    refuseNearMisses(options, clientKeys, 'new PlatformClient');
    this.platformUrl = refuseVersionSuffix(
      requireBaseUrl(options.platformUrl, 'platformUrl'),
      'platformUrl',
      'v2',
      'https://platform.example.com',
    );
    this.streamUrl = requireBaseUrl(options.streamUrl, 'streamUrl');
    const { username, password } = credentialsOf(options);
    const token = options.token === undefined ? undefined : requireToken(options.token);
    if (username === undefined && token === undefined) {
      throw new ConfigurationError(
        'PlatformClient needs username and password (to log in) or a token: neither was given.',
      );
    }
    this.#username = username;
    const store = requireTokenStore(options.tokenStore);
    // The platform takes no maxRetryWaitMs option: waits up to the default are honoured.
    const config: ClientTransportConfig = transportConfigOf(
      { ...options, maxRetryWaitMs: undefined },
      {
        retryRules: PLATFORM_RETRY_RULES,
        // Read on every error and log line, so tokens obtained later are scrubbed too.
        secrets: () => tokens.secrets(),
      },
    );
    const tokens: TokenManager = new TokenManager({
      // Login is the one open endpoint: no Authorization header at all.
      transport: new Transport({ ...config, baseUrl: this.platformUrl, authorization: () => undefined }),
      username,
      password,
      token,
      store,
      logger: config.logger,
    });
    const http = new PlatformHttp({
      tokens,
      platformUrl: this.platformUrl,
      streamUrl: this.streamUrl,
      config,
    });
    this.auth = new Auth(tokens);
    this.stats = new Stats(http);
    this.reports = new Reports(http);
    this.messages = new PlatformMessages(http);
    this.conversations = new Conversations(http);
    this.customers = new Customers(http);
  }

  /** @internal Keeps credentials out of `console.log(client)`. */
  [inspect](): string {
    return `PlatformClient ${JSON.stringify(this.toJSON())}`;
  }

  toJSON(): Record<string, unknown> {
    return {
      platformUrl: this.platformUrl,
      streamUrl: this.streamUrl,
      username: this.#username ?? null,
      password: REDACTED,
      token: REDACTED,
    };
  }
}

function credentialsOf(options: PlatformClientOptions): { username?: string; password?: string } {
  const { username, password } = options;
  if (username === undefined && password === undefined) return {};
  if (typeof username !== 'string' || username.trim() === '') {
    throw new ConfigurationError('username is required with password: the platform login name.');
  }
  if (typeof password !== 'string' || password === '') {
    // Not held to the header rule: a password goes in the login's JSON body, where a space is a character like any.
    throw new ConfigurationError(
      `password is required with username: the platform login password; got ${describeSecret(password)}.` +
        secretAdvice(password, { env: 'PLATFORM_PASSWORD' }),
    );
  }
  return { username, password };
}

function requireToken(value: unknown): string {
  return requireSecret(value, 'token', 'a platform token from POST /jwt/', { scheme: 'JWT' });
}

function requireTokenStore(store: unknown): TokenStore | undefined {
  if (store === undefined) return undefined;
  const s = store as Partial<TokenStore> | null;
  if (typeof s !== 'object' || s === null || typeof s.get !== 'function' || typeof s.set !== 'function') {
    throw new ConfigurationError('tokenStore must have get() and set(entry) methods (see TokenStore).');
  }
  return store as TokenStore;
}
