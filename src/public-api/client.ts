import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import {
  COMMON_CLIENT_KEYS,
  type CommonClientOptions,
  refuseVersionSuffix,
  requireBaseUrl,
  requireSecret,
  transportConfigOf,
} from '../core/client-options.js';
import { ConfigurationError } from '../core/errors.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { isBelowBase } from '../core/request-path.js';
import type { RetryRules } from '../core/retry-policy.js';
import { refusedSecretAdvice, type SecretKind } from '../core/secret-advice.js';
import { Transport } from '../core/transport.js';
import type { HttpMethod, QueryParams } from '../core/transport-request.js';
import { Templates } from './templates.js';

export interface PublicApiClientOptions extends CommonClientOptions {
  /** The organisation's secret key (`sk_...`). Server-side only; the organisation is derived from it. */
  secretKey: string;
  /** The public API base address, ending in `/api/v1`. Give this or `onPremBase`. */
  baseUrl?: string | undefined;
  /** For on-premises installs: your own domain; the SDK appends `/public/api/v1`. */
  onPremBase?: string | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  maxRetryWaitMs?: number | undefined;
  fetch?: typeof fetch | undefined;
}

export interface PublicApiRequestOptions extends RequestOptions {
  query?: QueryParams | undefined;
  body?: unknown;
  /**
   * Whether repeating the request has no further effect (so it may be retried on connection errors and
   * 5xx). Defaults to `true` for GET and DELETE, `false` otherwise.
   */
  idempotent?: boolean | undefined;
}

/** `new PublicApiClient`'s options, every one (see `OptionKeys`). */
const CLIENT_KEYS = [
  'secretKey',
  'baseUrl',
  'onPremBase',
  'timeoutMs',
  'maxRetries',
  'maxRetryWaitMs',
  'fetch',
  ...COMMON_CLIENT_KEYS,
] as const;
const clientKeys: OptionKeys<PublicApiClientOptions, typeof CLIENT_KEYS> = CLIENT_KEYS;

/** `request()`'s options, every one (see `OptionKeys`). */
const REQUEST_CALL_KEYS = [...REQUEST_KEYS, 'query', 'body', 'idempotent'] as const;
const requestKeys: OptionKeys<PublicApiRequestOptions, typeof REQUEST_CALL_KEYS> = REQUEST_CALL_KEYS;

/** `WA_TPL_001` to `WA_TPL_046` and `WA_TPL_048` to `WA_TPL_055`: the local rules of the spec's 422 row. */
const LOCAL_RULE_CODES = [
  ...Array.from({ length: 46 }, (_, i) => i + 1),
  ...Array.from({ length: 8 }, (_, i) => i + 48),
].map((n) => `WA_TPL_${String(n).padStart(3, '0')}`);

/**
 * The public API's error table, as "was anything done?" and "may it be repeated?":
 * - `UPSTREAM_020` (429, the upstream's rate limit) created nothing, and is repeated (as every 429 is);
 * - refused before anything was done, never repeated (a repeat meets the same answer): `REQ_001` (400, malformed),
 *   `ORGANIZATION_SECRET_010` / `011` (401, missing or invalid key), `APPLICATION_004` (404, not the organisation's
 *   app), and the `WA_TPL_*` local rules (422, "before the request reaches the upstream platform");
 * - refused by the upstream platform, nothing created: `UPSTREAM_021` (400, a parameter rejected), `UPSTREAM_018`
 *   (401), `UPSTREAM_019` (403), `UPSTREAM_017` (409, name and language exist), `UPSTREAM_022` to `029` (422,
 *   upstream validation);
 * - anything else may have been done: `UPSTREAM_003` (502, "general upstream creation failure"), `SYS_001`, a
 *   code the table does not list.
 */
export const PUBLIC_API_RETRY_RULES: RetryRules = {
  retryableCodes: ['UPSTREAM_020'],
  refusedCodes: [
    'REQ_001',
    'ORGANIZATION_SECRET_010',
    'ORGANIZATION_SECRET_011',
    'APPLICATION_004',
    ...LOCAL_RULE_CODES,
    'UPSTREAM_017',
    'UPSTREAM_018',
    'UPSTREAM_019',
    'UPSTREAM_021',
    'UPSTREAM_022',
    'UPSTREAM_023',
    'UPSTREAM_024',
    'UPSTREAM_025',
    'UPSTREAM_026',
    'UPSTREAM_027',
    'UPSTREAM_028',
    'UPSTREAM_029',
  ],
  neverRetryCodes: [],
};

const inspect = Symbol.for('nodejs.util.inspect.custom');

/** The public API's secret key as the spec documents it, for the message of an `ORGANIZATION_SECRET_011`. */
const SECRET_KEY: SecretKind = {
  server: 'The public API',
  secret: 'secret key',
  takes: "the organisation's secret key the operator issued",
  prefixes: { sk_: '' },
};

/**
 * Client of the organisation-scoped public API.
 *
 * @example
 * import { PublicApiClient } from 'wa-gateway-sdk';
 * const api = new PublicApiClient({ secretKey: process.env.SECRET_KEY!, baseUrl: 'https://api.example.com/api/v1' });
 * const created = await api.templates.create(appId, template);
 */
export class PublicApiClient {
  readonly templates: Templates;
  readonly baseUrl: string;
  readonly #secretKey: string;
  readonly #transport: Transport;

  constructor(options: PublicApiClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(
        'new PublicApiClient(options) needs an options object with secretKey and baseUrl.',
      );
    }
    refuseNearMisses(options, clientKeys, 'new PublicApiClient');
    this.#secretKey = requireSecret(options.secretKey, 'secretKey', 'the organisation secret key (sk_...)', {
      scheme: 'Bearer',
    });
    this.baseUrl = resolveBaseUrl(options);
    this.#transport = new Transport({
      ...transportConfigOf(options, {
        retryRules: PUBLIC_API_RETRY_RULES,
        secrets: () => [this.#secretKey],
      }),
      baseUrl: this.baseUrl,
      authorization: () => `Bearer ${this.#secretKey}`,
      refusedCredential: {
        codes: ['ORGANIZATION_SECRET_011'],
        advice: (origin) => refusedSecretAdvice(this.#secretKey, SECRET_KEY, origin),
      },
    });
    this.templates = new Templates(this.#transport);
  }

  /**
   * Calls any public API operation with the client's auth, errors and retries. For the operations whose
   * paths the spec does not show (list, detail, update and delete templates, media upload, analytics,
   * business profile, webhook configuration, API keys): the SDK does not invent their paths, so take them
   * from your API documentation. Returns the parsed JSON body.
   *
   * @example
   * const list = await api.request('GET', '/wa/app_123/templates', { query: { language: 'en_US' } });
   */
  request(method: HttpMethod, path: string, options: PublicApiRequestOptions = {}): ApiPromise<unknown> {
    return apiPromise(() => this.#request(method, path, options), this.#transport);
  }

  async #request(
    method: HttpMethod,
    path: string,
    given: PublicApiRequestOptions | null,
  ): Promise<WithResponse<unknown>> {
    refuseNearMisses(given, requestKeys, 'request');
    const options = given ?? {};
    if (!isBelowBase(path)) {
      throw new ConfigurationError(
        `request() path must start with '/' and be below the base URL (no '.' or '..' segment, no lone surrogate), without a query (use options.query); got '${String(path)}'.`,
      );
    }
    const { data, response, attempts, call } = await this.#transport.json({
      method,
      path,
      query: options.query,
      body: options.body,
      ...requestOf(options),
      idempotent: options.idempotent ?? (method === 'GET' || method === 'DELETE'),
    });
    return { data, response: responseInfo(response, attempts, call) };
  }

  /** @internal Keeps the secret key out of `console.log(client)`. */
  [inspect](): string {
    return `PublicApiClient { baseUrl: '${this.baseUrl}', secretKey: '[redacted]' }`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, secretKey: '[redacted]' };
  }
}

/** What the SDK appends to `onPremBase`. */
const ON_PREM_PATH = '/public/api/v1';

function resolveBaseUrl(options: PublicApiClientOptions): string {
  if (options.baseUrl !== undefined && options.onPremBase !== undefined) {
    throw new ConfigurationError('Give baseUrl or onPremBase, not both.');
  }
  if (options.onPremBase !== undefined) {
    const root = requireBaseUrl(options.onPremBase, 'onPremBase');
    return `${refuseVersionSuffix(root, 'onPremBase', ON_PREM_PATH, 'https://crm.example.com')}${ON_PREM_PATH}`;
  }
  if (options.baseUrl === undefined) {
    throw new ConfigurationError(
      "baseUrl is required: the public API address ending in '/api/v1' (or onPremBase for an on-premises install).",
    );
  }
  const url = requireBaseUrl(options.baseUrl, 'baseUrl');
  if (!url.endsWith('/api/v1')) {
    throw new ConfigurationError(
      `baseUrl must end in '/api/v1' (e.g. 'https://api.example.com/api/v1'); got '${url}'.`,
    );
  }
  return url;
}
