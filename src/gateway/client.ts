import {
  COMMON_CLIENT_KEYS,
  type CommonClientOptions,
  optionalBoolean,
  refuseVersionSuffix,
  requireBaseUrl,
  requireSecret,
  transportConfigOf,
} from '../core/client-options.js';
import { ConfigurationError } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { noteOwnLimiter, RateLimiter, type SendLimiter } from '../core/rate-limiter.js';
import { refusedSecretAdvice, type SecretKind } from '../core/secret-advice.js';
import { withMethods } from '../core/shape.js';
import { Transport } from '../core/transport.js';
import type { TemplateCatalog } from '../templates/catalog.js';
import { Media } from './media.js';
import { Messages } from './messages.js';
import { GATEWAY_RETRY_RULES } from './retry-rules.js';
import type { CampaignObserver } from './send-many.js';
import type { WindowStore } from './service-window.js';

export interface GatewayClientOptions extends CommonClientOptions {
  /** The gateway API key (`pk_...` production, `sk_...` staging). Server-side only. */
  apiKey: string;
  /** The gateway's base address, e.g. `https://gw.example.com` (paths below it start with `/v1`). */
  baseUrl: string;
  /** Per-request timeout in ms. Default 30,000. Each call can override it. */
  timeoutMs?: number | undefined;
  /** Retries of requests that are safe to repeat. Default 2. */
  maxRetries?: number | undefined;
  /** The longest `retry_after` the SDK waits on its own before retrying; longer waits are thrown. Default 60,000. */
  maxRetryWaitMs?: number | undefined;
  /**
   * Client-side send rate limit. Default `{ perSecond: 80 }`, the gateway's documented limit. Pass a shared
   * `RateLimiter` to make several clients of one process share one budget, a `RedisRateLimiter`
   * (`wa-gateway-sdk/redis`) to share it across processes, or `false` to turn it off.
   */
  rateLimit?: { perSecond: number } | SendLimiter | false | undefined;
  /** A custom fetch (a proxy agent, instrumentation). By default `globalThis.fetch`, looked up per request. */
  fetch?: typeof fetch | undefined;
  /**
   * Retry sends that failed in flight (connection reset, timeout). Default `false`: the message may already
   * be out, and a retry would send it twice. Turn on only if duplicates are acceptable to your recipients.
   */
  retryInFlightSends?: boolean | undefined;
  /** The `messaging_product` constant the SDK puts in every send. Default `'whatsapp'`. */
  messagingProduct?: string | undefined;
  /**
   * Guards every free-form send with the 24-hour service window: a non-template message to a customer who has
   * not written in 24 hours (or never) is refused with `ServiceWindowClosedError` before any request. Give it
   * the window store the conversations router records inbound messages in (`wa-gateway-sdk/conversations`).
   */
  serviceWindow?: WindowStore | undefined;
  /**
   * Records `sendMany(messages, { campaign })` results for campaign reports: a `CampaignTracker` (any
   * `CampaignObserver`).
   */
  campaigns?: CampaignObserver | undefined;
  /**
   * A `TemplateCatalog`: template sends (`sendTemplate`, `send` and `sendMany` of a template message) are checked against it
   * before any request (known name and language, status `APPROVED`, parameters), and `sendTemplate` takes names.
   */
  templates?: TemplateCatalog | undefined;
}

const inspect = Symbol.for('nodejs.util.inspect.custom');

/** The gateway's API key as the spec documents it, for the message of an `AUTH_001`. */
const GATEWAY_KEY: SecretKind = {
  server: 'The gateway',
  secret: 'API key',
  takes: 'a key made in its dashboard under API keys',
  prefixes: { pk_: 'production', sk_: 'staging/development' },
  env: 'GATEWAY_API_KEY',
};

/** `new GatewayClient`'s options, every one (see `OptionKeys`). */
const CLIENT_KEYS = [
  'apiKey',
  'baseUrl',
  'timeoutMs',
  'maxRetries',
  'maxRetryWaitMs',
  'rateLimit',
  'fetch',
  'retryInFlightSends',
  'messagingProduct',
  'serviceWindow',
  'campaigns',
  'templates',
  ...COMMON_CLIENT_KEYS,
] as const;
const clientKeys: OptionKeys<GatewayClientOptions, typeof CLIENT_KEYS> = CLIENT_KEYS;

/**
 * Client of the messaging gateway: send messages, download media.
 *
 * @example
 * import { GatewayClient } from 'wa-gateway-sdk';
 * const gw = new GatewayClient({ apiKey: process.env.GATEWAY_API_KEY!, baseUrl: 'https://gw.example.com' });
 * const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
 */
export class GatewayClient {
  readonly messages: Messages;
  readonly media: Media;
  readonly baseUrl: string;
  /** The client's send limiter (`undefined` when turned off). */
  readonly rateLimiter: SendLimiter | undefined;
  readonly #apiKey: string;

  constructor(options: GatewayClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(
        'new GatewayClient(options) needs an options object with apiKey and baseUrl.',
      );
    }
    refuseNearMisses(options, clientKeys, 'new GatewayClient');
    this.#apiKey = requireSecret(options.apiKey, 'apiKey', 'the gateway API key (GATEWAY_API_KEY)', {
      env: 'GATEWAY_API_KEY',
      scheme: 'Bearer',
    });
    this.baseUrl = refuseVersionSuffix(
      requireBaseUrl(options.baseUrl, 'baseUrl', 'GATEWAY_BASE_URL'),
      'baseUrl',
      'v1',
      'https://gw.example.com',
    );
    const config = transportConfigOf(options, {
      retryRules: GATEWAY_RETRY_RULES,
      secrets: () => [this.#apiKey],
    });
    // Every option is checked before the limiter and the transport are built (CONTRIBUTING.md, "Following a
    // client's options").
    const sends = {
      messagingProduct: messagingProductOf(options.messagingProduct),
      retryInFlight: optionalBoolean(options.retryInFlightSends, 'retryInFlightSends') ?? false,
      timeoutMs: config.timeoutMs,
      serviceWindow: shaped(options, 'serviceWindow'),
      campaigns: shaped(options, 'campaigns'),
      templates: shaped(options, 'templates'),
    };
    this.rateLimiter = toRateLimiter(options.rateLimit);
    // A limiter built here (not one the caller shares) only limits this client: a second such client on one key
    // (a client per request) is the usual cause of a RATE_001 storm.
    if (this.rateLimiter instanceof RateLimiter && this.rateLimiter !== options.rateLimit) {
      noteOwnLimiter(this.rateLimiter, this.#apiKey, config.logger, 'GatewayClient');
    }
    const apiKey = this.#apiKey;
    const transport = new Transport({
      ...config,
      rateLimiter: this.rateLimiter,
      baseUrl: this.baseUrl,
      authorization: () => `Bearer ${apiKey}`,
      refusedCredential: {
        codes: ['AUTH_001'],
        advice: (origin) => refusedSecretAdvice(apiKey, GATEWAY_KEY, origin),
      },
    });
    this.messages = new Messages(transport, sends);
    this.media = new Media(transport);
  }

  /** @internal Keeps the key out of `console.log(client)`. */
  [inspect](): string {
    return `GatewayClient { baseUrl: '${this.baseUrl}', apiKey: '[redacted]' }`;
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl, apiKey: '[redacted]' };
  }
}

/**
 * The options that take an object of the SDK's (or the user's own of that shape): the methods the client calls on
 * each, checked at construction, so that `serviceWindow: {}` is refused there rather than failing every send.
 */
const SHAPES = {
  serviceWindow: {
    is: "a WindowStore (the conversations router's, from wa-gateway-sdk/conversations)",
    methods: ['lastInbound'],
  },
  campaigns: { is: 'a CampaignTracker (or another CampaignObserver)', methods: ['recorder'] },
  templates: { is: 'a TemplateCatalog', methods: ['get', 'check', 'problem', 'languages'] },
} as const;

function shaped<K extends keyof typeof SHAPES>(
  options: GatewayClientOptions,
  name: K,
): GatewayClientOptions[K] {
  const value = options[name];
  if (value === undefined) return undefined;
  return withMethods(value, name, SHAPES[name].is, SHAPES[name].methods);
}

/**
 * The `messagingProduct` option, sent in every message: the spec's constant is lowercase, and `'WhatsApp'` or a
 * padded value would be refused by the gateway on every send.
 */
function messagingProductOf(value: unknown): string {
  if (value === undefined) return 'whatsapp';
  if (typeof value !== 'string' || value === '' || /\s/.test(value) || value !== value.toLowerCase()) {
    throw new ConfigurationError(
      `messagingProduct must be the network's name in lowercase, without spaces (default 'whatsapp'); got ${givenValue(value)}.`,
    );
  }
  return value;
}

/** The `rateLimit` option as a limiter: a shared one as given, `{ perSecond }` as a `RateLimiter` (which checks it). */
function toRateLimiter(option: GatewayClientOptions['rateLimit']): SendLimiter | undefined {
  if (option === false) return undefined;
  if (option === undefined) return new RateLimiter({ perSecond: 80 });
  if (option instanceof RateLimiter) return option;
  if (
    typeof option === 'object' &&
    option !== null &&
    typeof (option as Partial<SendLimiter>).acquire === 'function' &&
    typeof (option as Partial<SendLimiter>).pause === 'function'
  ) {
    return option as SendLimiter;
  }
  if (typeof option !== 'object' || option === null) {
    throw new ConfigurationError(
      'rateLimit must be { perSecond: <positive integer> }, a RateLimiter (or another limiter with acquire and pause), or false.',
    );
  }
  return new RateLimiter({ perSecond: (option as { perSecond: number }).perSecond });
}
