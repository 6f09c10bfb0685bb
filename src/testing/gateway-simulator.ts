import { requireSecret } from '../core/client-options.js';
import { ConfigurationError } from '../core/errors.js';
import type { ValidatedMessage } from '../gateway/message-schema.js';
import { validateMessage } from '../gateway/validate-message.js';
import type { WebhookEnvelope } from '../webhooks/schemas.js';
import type { SimulatedRequest, SimulatedResponse } from './simulated-http.js';
import type { TemplateRegistry } from './template-registry.js';
import { statusEnvelope, statusObject } from './webhook-fixtures.js';

/**
 * The gateway's behaviour as data, shared by the msw handlers and the sandbox HTTP server: the order of
 * checks (auth → rate limit → balance → forward), the auth codes, `RATE_001` per second, `BILL_001` when the
 * balance is spent, `is_fake`, generated wamids, media downloads, and the status events a send produces.
 * It knows nothing of HTTP frameworks: it takes the parts of a request and returns status and body.
 */
export interface GatewaySimulatorOptions {
  /** Keys that authenticate. Default `['sk_test_sandbox']`. */
  apiKeys?: readonly string[] | undefined;
  /** Sends allowed per second per key before `RATE_001`. Default 80 (the documented limit). */
  ratePerSecond?: number | undefined;
  /** Account balance. Checked before forwarding (`BILL_001` at or below zero). Default: unlimited. */
  balance?: number | undefined;
  /** Fee deducted when a billable `delivered` status is produced. Default 1. */
  feePerDelivery?: number | undefined;
  /**
   * Approved templates as `name → language codes`. When set, other names or languages give `GW_001`, except a
   * template the `templateRegistry` holds: the registry judges it (its status, its parameters).
   */
  templates?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Media that `GET /v1/wa/media/{id}` serves. */
  media?: Readonly<Record<string, { contentType: string; body: Uint8Array | string }>> | undefined;
  /**
   * The `messaging_product` constant sends must carry, as `GatewayClient({ messagingProduct })` does. Default
   * `'whatsapp'`. A send without it, or with another value, is refused the way the upstream refuses it.
   */
  messagingProduct?: string | undefined;
  /**
   * Display number and id of the business number, used in status events (and the sandbox's injected messages).
   * With `phoneNumberId` set, a media download for another `phone_number_id` is refused (`400 BAD_REQUEST`).
   */
  phoneNumberId?: string | undefined;
  displayPhoneNumber?: string | undefined;
  /**
   * The 24-hour service window (gateway.md, rule 1). `'open'` (default): every recipient's window is open unless
   * it is in `closedWindows`. `'enforced'`: a recipient's window opens when the customer writes (the sandbox's
   * `injectMessage`, or `openWindow(customer, at?)`) and closes 24 hours after, by `now`; a non-template send
   * outside it gets `GW_001`, as on the gateway.
   */
  serviceWindow?: 'open' | 'enforced' | undefined;
  /** The clock the service window is judged by, in ms since the epoch. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Templates created through the public API: a send of one must match its parameters (`GW_001`). */
  templateRegistry?: TemplateRegistry | undefined;
}

/** An upstream error, as a `failed` status event carries it in `errors[]`. */
export interface UpstreamFailure {
  /** The upstream platform's integer code. */
  code: number;
  title: string;
  message?: string;
  details?: string;
}

/** A message the simulator accepted. */
export interface SentMessage {
  wamid: string;
  to: string;
  type: string;
  isFake: boolean;
  mmlite: boolean;
  /** The request body as received. */
  body: Record<string, unknown>;
  acceptedAt: number;
}

const fail = (
  status: number,
  code: string,
  group: string,
  description: string,
  params?: Record<string, unknown>,
) => ({
  status,
  body: { isSuccess: false, errors: { code, group, description, ...(params ? { params } : {}) } },
});

const refuse = (...args: Parameters<typeof fail>) => ({ refused: fail(...args) });

/** The service window: 24 hours from the customer's last message (gateway.md, `POST /v1/wa/message`, rule 1). */
const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

const badRequest = (description: string) => fail(400, 'BAD_REQUEST', 'BAD_REQUEST', description);

/**
 * The simulator's options, checked once where they are given (`where` names that call in the message): `apiKeys`
 * a non-empty list of keys a client could send in its Authorization header, `ratePerSecond` a finite number above
 * 0, `feePerDelivery` a finite number of 0 or more, `balance` a number. Throws `ConfigurationError`: a simulator no
 * send can authenticate to, one that refuses every send with `RATE_001` or one that never says `BILL_001` would
 * fail each test for a reason it does not say.
 */
export function checkSimulatorOptions(options: GatewaySimulatorOptions, where: string): void {
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError(`${where}: options must be an object.`);
  const { apiKeys, ratePerSecond } = options;
  if (apiKeys !== undefined) {
    if (!Array.isArray(apiKeys) || apiKeys.length === 0) {
      throw new ConfigurationError(
        `${where}: \`apiKeys\` must list at least one key (e.g. ['sk_test_sandbox']): with none, no send can authenticate.`,
      );
    }
    for (const [i, key] of apiKeys.entries())
      requireSecret(key, `${where}: \`apiKeys[${i}]\``, 'an API key the gateway accepts');
  }
  if (
    ratePerSecond !== undefined &&
    (typeof ratePerSecond !== 'number' || !Number.isFinite(ratePerSecond) || ratePerSecond <= 0)
  ) {
    throw new ConfigurationError(
      `${where}: \`ratePerSecond\` must be a finite number above 0 (the gateway's is 80); got ${String(ratePerSecond)}.`,
    );
  }
  const { serviceWindow, now } = options;
  if (serviceWindow !== undefined && serviceWindow !== 'open' && serviceWindow !== 'enforced') {
    throw new ConfigurationError(
      `${where}: \`serviceWindow\` must be 'open' (the default) or 'enforced'; got ${String(serviceWindow)}.`,
    );
  }
  if (now !== undefined && typeof now !== 'function') {
    throw new ConfigurationError(
      `${where}: \`now\` must be a function returning ms since the epoch (as Date.now).`,
    );
  }
  // A NaN fee or balance makes the balance NaN, and `NaN <= 0` is false: BILL_001 would never come.
  const { feePerDelivery, balance } = options;
  if (
    feePerDelivery !== undefined &&
    (typeof feePerDelivery !== 'number' || !Number.isFinite(feePerDelivery) || feePerDelivery < 0)
  ) {
    throw new ConfigurationError(
      `${where}: \`feePerDelivery\` must be a finite number of 0 or more (default 1); got ${String(feePerDelivery)}.`,
    );
  }
  if (balance !== undefined && (typeof balance !== 'number' || Number.isNaN(balance))) {
    throw new ConfigurationError(
      `${where}: \`balance\` must be a number (Infinity, the default, for no limit); got ${String(balance)}.`,
    );
  }
}

export class GatewaySimulator {
  readonly sent: SentMessage[] = [];
  /** Requests answered per code (`OK`, `AUTH_001`, `RATE_001`, ...): what a test asserts on. */
  readonly answered: Record<string, number> = {};
  balance: number;
  readonly options: Required<Pick<GatewaySimulatorOptions, 'apiKeys' | 'ratePerSecond' | 'feePerDelivery'>> &
    GatewaySimulatorOptions;
  /**
   * Recipients whose 24-hour service window is closed, whatever `serviceWindow` says: a non-template send to them
   * gets `GW_001` until the customer writes again (`openWindow`).
   */
  readonly closedWindows = new Set<string>();
  /** When each customer last wrote (ms, by `now`): what an `'enforced'` service window is judged by. */
  readonly #lastCustomerMessage = new Map<string, number>();
  readonly #arrivals = new Map<string, number[]>();
  readonly #uploaded = new Map<string, { contentType: string; body: Uint8Array | string }>();
  #counter = 0;

  constructor(options: GatewaySimulatorOptions = {}) {
    checkSimulatorOptions(options, 'new GatewaySimulator');
    // Each default by `??`, not spread under the options: `ratePerSecond: config.rate` left undefined is the default.
    this.options = {
      ...options,
      apiKeys: options.apiKeys ?? ['sk_test_sandbox'],
      ratePerSecond: options.ratePerSecond ?? 80,
      feePerDelivery: options.feePerDelivery ?? 1,
    };
    this.balance = options.balance ?? Number.POSITIVE_INFINITY;
  }

  /** Forgets every send, answer count and rate-limit window, and restores the starting balance. */
  reset(): void {
    this.sent.length = 0;
    for (const key of Object.keys(this.answered)) delete this.answered[key];
    this.#arrivals.clear();
    this.closedWindows.clear();
    this.#lastCustomerMessage.clear();
    this.balance = this.options.balance ?? Number.POSITIVE_INFINITY;
  }

  /** The simulator's clock (`now`, else `Date.now()`), in ms. */
  now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /**
   * The customer wrote at `at` (default: now): their 24-hour window is open until 24 hours after it, and no longer
   * in `closedWindows`. The sandbox calls it for every injected message; msw tests call it to seed a window.
   */
  openWindow(customer: string, at: number = this.now()): void {
    this.closedWindows.delete(customer);
    const last = this.#lastCustomerMessage.get(customer);
    if (last === undefined || at > last) this.#lastCustomerMessage.set(customer, at);
  }

  /** Whether a non-template send to `customer` is inside their 24-hour service window now. */
  windowOpen(customer: string): boolean {
    if (this.closedWindows.has(customer)) return false;
    if (this.options.serviceWindow !== 'enforced') return true;
    const last = this.#lastCustomerMessage.get(customer);
    return last !== undefined && this.now() - last < SERVICE_WINDOW_MS;
  }

  /** `POST /v1/wa/message`. */
  send(request: SimulatedRequest): SimulatedResponse & { accepted?: SentMessage } {
    const answer = this.#send(request);
    const key = answer.accepted
      ? 'OK'
      : ((answer.body as { errors?: { code?: string } }).errors?.code ?? 'UNKNOWN');
    this.answered[key] = (this.answered[key] ?? 0) + 1;
    return answer;
  }

  #send(request: SimulatedRequest): SimulatedResponse & { accepted?: SentMessage } {
    const auth = this.#authenticate(request.authorization);
    if ('status' in auth) return auth;
    const limited = this.#rateLimit(auth.key);
    if (limited) return limited;
    if (this.balance <= 0)
      return fail(402, 'BILL_001', 'PAYMENT_REQUIRED', 'Insufficient balance. Top up to send.');

    // A request the gateway cannot forward at all: the spec's "400 malformed or incomplete request". Its validation
    // codes are not shown: `BAD_REQUEST` is the kit's own.
    const { contentType } = request;
    if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType ?? '')) {
      return badRequest(
        `Content-Type must be application/json; got ${contentType === null ? 'none' : `'${contentType}'`}.`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return badRequest('Malformed request: the body is not valid JSON.');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return badRequest('Malformed request: the body must be a JSON object (an outbound message).');
    for (const field of ['to', 'type'] as const) {
      const value = (body as Record<string, unknown>)[field];
      if (typeof value !== 'string' || value === '')
        return badRequest(`Incomplete request: \`${field}\` is required (a string).`);
    }
    // `is_fake`: authentication, rate limiting and billing ran; the upstream call is skipped, and with it every
    // refusal that stands for the upstream's (the message's own rules, templates, the 24-hour window).
    const isFake = request.query.get('is_fake') === 'true';
    const checked = isFake ? { message: body as ValidatedMessage } : this.#upstream(body, request.query);
    if ('refused' in checked) return checked.refused;
    const { message } = checked;
    const expected = this.options.messagingProduct ?? 'whatsapp';
    const wamid = `wamid.${isFake ? 'FAKE' : 'SBX'}${(++this.#counter).toString().padStart(8, '0')}${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const accepted: SentMessage = {
      wamid,
      to: message.to,
      type: message.type,
      isFake,
      mmlite: request.query.get('mmlite') === 'true',
      body: body as Record<string, unknown>,
      acceptedAt: Date.now(),
    };
    this.sent.push(accepted);
    return {
      status: 200,
      body: {
        isSuccess: true,
        data: {
          messaging_product: expected,
          contacts: [{ input: message.to, wa_id: message.to }],
          messages: [{ id: wamid }],
        },
      },
      accepted,
    };
  }

  /** What the upstream refuses in a message (`GW_001`), or the message as it would be forwarded. */
  #upstream(
    body: unknown,
    query: URLSearchParams,
  ): { refused: SimulatedResponse } | { message: ValidatedMessage } {
    // The SDK fills messaging_product itself; the gateway forwards the body and the upstream refuses a wrong one.
    const product = (body as { messaging_product?: unknown } | null)?.messaging_product;
    const expected = this.options.messagingProduct ?? 'whatsapp';
    if (product !== expected) {
      return refuse(
        502,
        'GW_001',
        'UPSTREAM_ERROR',
        product === undefined
          ? `Upstream rejected the message: messaging_product is required and must be '${expected}'.`
          : `Upstream rejected the message: messaging_product must be '${expected}'.`,
      );
    }
    const { messaging_product: _product, ...fields } = body as Record<string, unknown>;
    const checked = validateMessage(fields);
    // Fields the spec does not show (sent with `extraFields`) pass: the gateway relays them, the upstream judges.
    const issues = checked.valid ? [] : checked.issues.filter((i) => i.code !== 'unknown_field');
    if (!checked.valid && issues.length > 0) {
      const first = issues[0];
      // An issue's message names its field as a rule does ("text.body has ..."); the path is said once.
      const path = first?.path.join('.') ?? '';
      return refuse(
        502,
        'GW_001',
        'UPSTREAM_ERROR',
        `Upstream rejected the message: ${first?.message.startsWith(path) ? '' : `${path} `}${first?.message}`,
      );
    }
    const message = checked.valid ? checked.message : (fields as ValidatedMessage);
    // The marketing-lite route takes "the same body as a template message": the SDK refuses any other type locally
    // (`mmlite.template_only`); code that bypasses it meets the upstream's refusal.
    if (query.get('mmlite') === 'true' && message.type !== 'template') {
      return refuse(
        502,
        'GW_001',
        'UPSTREAM_ERROR',
        `Upstream rejected the message: the marketing-lite route (mmlite=true) takes template messages only, not '${String(message.type)}'.`,
      );
    }
    // A template the registry holds is the registry's to judge (below); the option judges the others.
    const registered =
      message.type === 'template' &&
      this.options.templateRegistry?.find(message.template.name, message.template.language.code);
    if (message.type === 'template' && this.options.templates && !registered) {
      const languages = this.options.templates[message.template.name];
      if (!languages?.includes(message.template.language.code)) {
        return refuse(
          502,
          'GW_001',
          'UPSTREAM_ERROR',
          'Upstream rejected the message: template name or language does not exist.',
        );
      }
    }
    const refusal =
      message.type === 'template'
        ? this.options.templateRegistry?.refusal(message.template)
        : !this.windowOpen(message.to)
          ? 'the recipient is outside the 24-hour service window; send a template.'
          : undefined;
    if (refusal) return refuse(502, 'GW_001', 'UPSTREAM_ERROR', `Upstream rejected the message: ${refusal}`);
    return { message };
  }

  /** `GET /v1/wa/media/{media_id}?phone_number_id=`. */
  media(request: {
    authorization: string | null;
    mediaId: string;
    phoneNumberId: string | null;
  }): SimulatedResponse {
    const auth = this.#authenticate(request.authorization);
    if ('status' in auth) return auth;
    if (!request.phoneNumberId)
      return fail(400, 'BAD_REQUEST', 'BAD_REQUEST', 'phone_number_id is required.');
    // It finds the account's credentials: another number's id finds none. Checked when the kit knows its number.
    const own = this.options.phoneNumberId;
    if (own !== undefined && request.phoneNumberId !== own) {
      return fail(
        400,
        'BAD_REQUEST',
        'BAD_REQUEST',
        "phone_number_id is not this account's business number (value.metadata.phone_number_id of the incoming event).",
      );
    }
    const file = this.#uploaded.get(request.mediaId) ?? this.options.media?.[request.mediaId];
    if (!file) return fail(404, 'MEDIA_NOT_FOUND', 'NOT_FOUND', 'Media not found or expired.');
    const bytes = typeof file.body === 'string' ? new TextEncoder().encode(file.body) : file.body;
    return {
      status: 200,
      headers: { 'content-type': file.contentType, 'content-length': String(bytes.byteLength) },
      body: bytes,
    };
  }

  /** Makes `GET /v1/wa/media/{mediaId}` serve this file, as for media a user sent. */
  addMedia(mediaId: string, file: { contentType: string; body: Uint8Array | string }): void {
    this.#uploaded.set(mediaId, file);
  }

  /**
   * The status events a real send produces, in order: sent, delivered (billable, deducting the fee), read.
   * A fake send produces none: the upstream call was skipped.
   */
  statusEventsFor(message: SentMessage): WebhookEnvelope[] {
    if (message.isFake) return [];
    const base = Math.floor(message.acceptedAt / 1000);
    const metadata = this.metadata();
    const origin = message.type === 'template' ? this.#categoryOf(message.body) : 'service';
    const common = { id: message.wamid, recipient_id: message.to };
    const conversation = { id: `conv_${message.wamid.slice(-8)}`, origin: { type: origin } };
    const pricing = { billable: true, pricing_model: 'PMP', category: origin };
    return [
      statusEnvelope(statusObject('sent', { ...common, timestamp: String(base), conversation, pricing }), {
        metadata,
      }),
      statusEnvelope(
        statusObject('delivered', { ...common, timestamp: String(base + 1), conversation, pricing }),
        {
          metadata,
        },
      ),
      statusEnvelope(statusObject('read', { ...common, timestamp: String(base + 2) }), { metadata }),
    ];
  }

  /** The `failed` status event for a send, carrying one upstream error (`errors[]` as the spec shapes it). */
  failedEventFor(message: SentMessage, error: UpstreamFailure): WebhookEnvelope {
    return statusEnvelope(
      statusObject('failed', {
        id: message.wamid,
        recipient_id: message.to,
        timestamp: String(Math.floor(message.acceptedAt / 1000) + 1),
        errors: [
          {
            code: error.code,
            title: error.title,
            message: error.message ?? error.title,
            error_data: { details: error.details ?? error.title },
          },
        ],
      }),
      { metadata: this.metadata() },
    );
  }

  /**
   * A template send's conversation category: the registry's category of that template when it holds it (utility,
   * authentication, marketing), else `marketing`.
   */
  #categoryOf(body: Record<string, unknown>): string {
    const template = body['template'] as { name?: unknown; language?: { code?: unknown } } | undefined;
    const { name } = template ?? {};
    const code = template?.language?.code;
    const held =
      typeof name === 'string' && typeof code === 'string'
        ? this.options.templateRegistry?.find(name, code)?.category.toLowerCase()
        : undefined;
    return held === 'utility' || held === 'authentication' ? held : 'marketing';
  }

  /**
   * The business number's `metadata` (`phoneNumberId`, `displayPhoneNumber`, else the kit's defaults): what status
   * events and the sandbox's injected customer messages carry, one number for both.
   */
  metadata(): { phone_number_id: string; display_phone_number: string } {
    return {
      phone_number_id: this.options.phoneNumberId ?? '100000000000001',
      display_phone_number: this.options.displayPhoneNumber ?? '15550000000',
    };
  }

  /** Call when a billable `delivered` event is produced: the gateway deducts the fee then. */
  chargeDelivery(): void {
    this.balance -= this.options.feePerDelivery;
  }

  #authenticate(header: string | null): SimulatedResponse | { key: string } {
    if (header === null || header === '')
      return fail(401, 'AUTH_002', 'UNAUTHORIZED', 'Authorization header is missing.');
    const match = /^Bearer (\S+)$/.exec(header);
    if (!match)
      return fail(401, 'AUTH_003', 'UNAUTHORIZED', 'Authorization header must be in Bearer <token> form.');
    const key = match[1]!;
    if (!this.options.apiKeys.includes(key))
      return fail(401, 'AUTH_001', 'UNAUTHORIZED', 'API key not found, revoked or expired.');
    return { key };
  }

  #rateLimit(key: string): SimulatedResponse | undefined {
    const now = performance.now();
    const recent = (this.#arrivals.get(key) ?? []).filter((t) => now - t < 1000);
    if (recent.length >= this.options.ratePerSecond) {
      this.#arrivals.set(key, recent);
      return {
        status: 429,
        body: {
          isSuccess: false,
          errors: {
            code: 'RATE_001',
            group: 'TOO_MANY_REQUESTS',
            description: 'Rate limit exceeded.',
            params: { limit_type: 'sec', retry_after: '1s' },
          },
        },
      };
    }
    recent.push(now);
    this.#arrivals.set(key, recent);
    return undefined;
  }
}
