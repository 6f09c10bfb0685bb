/**
 * The reply router: routes the typed webhook events to handlers, keeps each customer's state, serialises one
 * customer's events, records each reply before sending it, and guards the 24-hour service window.
 *
 * The order of one message event, under the customer's lock:
 *   1. load the customer's record (session, flow position, takeover, the last events handled);
 *   2. record the inbound time in the window store;
 *   3. an event already handled to the end (its key is in the record) is skipped whole;
 *   4. middleware, then (unless a person took the customer over) the active flow step, else the first route that
 *      matches, else the fallback; a reply refused for good (a closed window, a template or message the SDK refused
 *      before sending, a `GW_001`) that they let through ends them here, reported to `onError`, and the session
 *      they changed is not kept;
 *   5. save the record with the event's key, release the lock.
 * A reply is claimed in the reply ledger (`<event key>#<n>`) before it is sent: when the event runs again
 * (a retry after a crash or a failed save), the replies already claimed are skipped, so none is sent twice.
 */
import { boundedDurationMs, durationMs, MAX_RETENTION_MS, MAX_TIMER_MS } from '../core/duration.js';
import { ApiError, ConfigurationError, MessageValidationError, requireText } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { type Logger, log, resolveLogger } from '../core/logger.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { mayHaveBeenSent } from '../core/retry-policy.js';
import { withMethods } from '../core/shape.js';
import type { OutboundMessage, OutboundTemplateMessage } from '../gateway/message-schema.js';
import { GATEWAY_RETRY_RULES } from '../gateway/retry-rules.js';
import { checkServiceWindow, ServiceWindowClosedError, type WindowStore } from '../gateway/service-window.js';
import { checkedTemplate, type FilledTemplate } from '../gateway/template-message.js';
import type { TemplateDefinition, TemplateValues, ValuesArgument } from '../templates/define.js';
import { TemplateSendError } from '../templates/send-check.js';
import { customerOf } from '../webhooks/customer.js';
import type {
  AccountUpdateEvent,
  IncomingMessage,
  MessageEvent,
  StatusEvent,
  TemplateStatusEvent,
  WebhookEvent,
} from '../webhooks/events.js';
import type {
  AccountUpdateValue,
  ButtonMessage,
  InteractiveMessage,
  KnownMessageType,
  StatusError,
  TemplateStatusValue,
  TextMessage,
  WebhookStatus,
} from '../webhooks/schemas.js';
import { ConversationError } from './errors.js';
import { fallbackOf } from './fallback-template.js';
import { checkSession, markChecked } from './session-data.js';
import { MemorySessionStore, MemoryWindowStore, type SessionLock, type SessionStore } from './stores.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A message to the customer of the event: any outbound message without `to` (the router fills it in). */
export type ReplyMessage = DistributiveOmit<OutboundMessage, 'to'>;
/**
 * A template as one value, what `ctx.replyTemplate(template)` and the router's `fallbackTemplate` take: the
 * `template` object of a template message (name, language, components). Build it from a definition and its values
 * with `filledTemplate(definition, values)` (main entry), checked as `sendTemplate` checks them, rather than
 * writing the components by hand.
 */
export type ReplyTemplate = FilledTemplate;

/** What the router's `onError` receives: a reply that every redelivery of the event would see refused again. */
export type RefusedReplyError =
  | ServiceWindowClosedError
  | TemplateSendError
  | MessageValidationError
  | ApiError;

/** A refusal that a redelivery cannot change: the local refusals, and the codes the gateway's table never retries. */
function refusedForGood(error: unknown): error is RefusedReplyError {
  if (
    error instanceof ServiceWindowClosedError ||
    error instanceof TemplateSendError ||
    error instanceof MessageValidationError
  )
    return true;
  return (
    error instanceof ApiError &&
    error.code !== null &&
    GATEWAY_RETRY_RULES.neverRetryCodes.includes(error.code) &&
    error.earlierAttemptMayHaveBeenSent !== true
  );
}

/**
 * The arguments of `ctx.replyTemplate`: a {@link ReplyTemplate}, or a definition (from `defineTemplate`) and its
 * values, typed from the definition (a wrong number or type of values does not compile).
 */
export type ReplyTemplateArguments<T> = T extends TemplateDefinition ? ValuesArgument<TemplateValues<T>> : [];

/** What `ctx.reply` resolves to. */
export interface ReplyResult {
  /** The wamid of the message sent; `undefined` when it was skipped. */
  messageId: string | undefined;
  /** `true` when this reply was already sent by an earlier run of the same event, so not sent again. */
  skipped: boolean;
  /** `true` when the window was closed and the router's `fallbackTemplate` was sent instead. */
  fallback: boolean;
}

/** The message of a given `type`. */
export type MessageOfType<T extends IncomingMessage['type']> = Extract<IncomingMessage, { type: T }>;

/** What every handler of a customer's message receives. `S` is the router's session type. */
export interface MessageContext<S, M extends IncomingMessage = IncomingMessage> {
  readonly kind: 'message';
  readonly event: MessageEvent;
  readonly message: M;
  /** The customer's id (`from`, or `from_user_id` for business-scoped users): the key of every store. */
  readonly customer: string;
  /**
   * The text of a text message, the title of a button or list reply, or the label of a template's quick-reply
   * button the customer tapped (`type: 'button'`); else `undefined`.
   */
  readonly text: string | undefined;
  /**
   * The id of a tapped reply button or chosen list row (the `id` the business sent), or the `payload` of a
   * template's quick-reply button (`type: 'button'`); else `undefined`.
   */
  readonly choice: string | undefined;
  /** The customer's session: read and change it freely; it is saved when the event has been handled. */
  session: S;
  /** `true` while a person has the customer (the router runs middleware only). */
  readonly human: boolean;
  /** Sends a message to the customer (a string is a text message). See the router's doc for the guarantees. */
  reply(message: string | ReplyMessage): Promise<ReplyResult>;
  /**
   * Sends a template to the customer (allowed outside the service window): a definition and its values, built and
   * checked as `sendTemplate` does it (`ctx.replyTemplate(orderShipped, { body: ['Ali', '#1042'] })`), or a
   * `template` object (`{ name, language: { code }, components }`). A mismatch with the definition rejects with
   * `TemplateSendError` and sends nothing.
   */
  replyTemplate<const T extends ReplyTemplate | TemplateDefinition>(
    template: T,
    ...values: ReplyTemplateArguments<T>
  ): Promise<ReplyResult>;
  /** Starts flow `flow`: the customer's next message goes to its step `step` (default: its first step). */
  enter(flow: string, step?: string): void;
  /** Inside a flow: the customer's next message goes to `step` of the same flow (the timeout starts again). */
  wait(step: string): void;
  /** Ends the current flow. (A step that neither waits nor enters also ends it.) */
  leave(): void;
  /** Hands the customer to a person after this event: the bot stays silent until `router.release(customer)`. */
  takeOver(): void;
}

/** A context whose route matched `match`: the RegExp's match for a pattern, the string itself for a string. */
export type MatchedContext<S, M extends IncomingMessage, P> = MessageContext<S, M> & {
  readonly match: MatchOf<P>;
};
/** `RegExpExecArray` for a pattern, the exact string for a string. */
export type MatchOf<P> = P extends RegExp ? RegExpExecArray : string;

/** A status of a message the business sent. `error` is the first of `errors` (filled on `failed`). */
export interface StatusContext {
  readonly kind: 'status';
  readonly event: StatusEvent;
  readonly status: WebhookStatus;
  readonly error: StatusError | undefined;
  readonly customer: string | undefined;
}

/** A template's review changed. */
export interface TemplateStatusContext {
  readonly kind: 'template_status';
  readonly event: TemplateStatusEvent;
  readonly template: TemplateStatusValue;
}

/** An account update. */
export interface AccountUpdateContext {
  readonly kind: 'account_update';
  readonly event: AccountUpdateEvent;
  readonly account: AccountUpdateValue;
}

/** An event the SDK could not type. */
export interface UnknownEventContext {
  readonly kind: 'unknown';
  readonly event: Extract<WebhookEvent, { kind: 'unknown' }>;
}

/** What middleware receives: the context of any event, discriminated by `kind`. */
export type EventContext<S> =
  | MessageContext<S>
  | StatusContext
  | TemplateStatusContext
  | AccountUpdateContext
  | UnknownEventContext;

type Awaitable = void | Promise<void> | unknown;
/** A message handler. */
export type MessageHandler<S, C = MessageContext<S>> = (ctx: C) => Awaitable;
/** Middleware: call `next()` to go on; not calling it stops the event here. */
export type Middleware<S> = (ctx: EventContext<S>, next: () => Promise<void>) => Awaitable;

/** A flow: named steps, each handling the customer's next message. */
export interface FlowDefinition<S> {
  /** Each step handles one message; in it `ctx.wait(step)` sets the next one, else the flow ends. */
  steps: Record<string, MessageHandler<S>>;
  /**
   * How long the flow waits for the customer's next message. Default 1 hour. A message after that goes to
   * `onTimeout` (when given, it handles that message) or, without it, to the routes as if no flow were active.
   */
  timeoutMs?: number | undefined;
  onTimeout?: MessageHandler<S> | undefined;
}

/**
 * What the router sends replies through: a `GatewayClient` (give it `serviceWindow` too, to guard the sends made
 * outside the router), or anything with the same `messages.send`, for a runtime where the main entry does not run.
 */
export interface RouterGateway {
  readonly messages: { send(message: OutboundMessage): PromiseLike<{ messageId: string }> };
}

/** Options of {@link createRouter}. */
export interface RouterOptions<S> {
  /** The client replies go through: a `GatewayClient`. */
  gateway: RouterGateway;
  /** Sessions, locks and the reply ledger. Default `MemorySessionStore` (one process). */
  sessions?: SessionStore | undefined;
  /** Each customer's last inbound time. Default `MemoryWindowStore` (one process). */
  window?: WindowStore | undefined;
  /** A new customer's session. Default `{}`. */
  initialSession?: (() => S) | undefined;
  /** How long a customer's state is kept after their last event. Default 30 days; at most 5 years. */
  sessionTtlMs?: number | undefined;
  /**
   * The lock's lease: how long a dead instance keeps a customer's events waiting. A live one renews it. Default
   * 5,000 ms: with direct webhooks the gateway's retries (+1 s, +2 s) still reach a freed customer; the durable
   * inbox retries longer.
   */
  lockLeaseMs?: number | undefined;
  /** How long the reply ledger remembers a sent reply: longer than any redelivery. Default 7 days; at most 5 years. */
  replyLedgerTtlMs?: number | undefined;
  /**
   * Sent instead of a free-form reply when the customer's window is closed (the reply resolves with `fallback:
   * true`): a template, as `ctx.replyTemplate` takes it, or a function of the context that returns one (sync or
   * async). Anything else is a `ConfigurationError` from `createRouter`. Without it the reply rejects with
   * `ServiceWindowClosedError`, which a handler may catch; one it lets through goes to `onError`.
   *
   * @example
   * createRouter({ gateway: gw, fallbackTemplate: { name: 'we_missed_you', language: { code: 'en_US' } } });
   */
  fallbackTemplate?:
    | ReplyTemplate
    | ((ctx: MessageContext<S>) => ReplyTemplate | PromiseLike<ReplyTemplate>)
    | undefined;
  /**
   * A reply refused for good, which a handler (or middleware) let through: the same reply would get the same answer
   * on every redelivery. That is a `ServiceWindowClosedError` (the customer's window is closed and no
   * `fallbackTemplate` was given), a `TemplateSendError` or `MessageValidationError` (the SDK refused the reply before
   * any request: a value that does not fit the template, a template not `APPROVED`, a message the spec does not
   * allow) and an `ApiError` whose code the gateway's table never retries (`GW_001`: the upstream refused the
   * message). The router does not fail the event: it calls this, counts the event as handled (a redelivery skips
   * it) and resolves, so the webhook handler answers 200 and the gateway does not retry. The handler's session
   * changes are not saved, as for any handler that did not finish. Throw from it to fail the delivery after all.
   * Default: a warning through `logger`, with the error's name and code or rule.
   */
  onError?: ((error: RefusedReplyError, ctx: MessageContext<S>) => Awaitable) | undefined;
  /**
   * Where the router warns of what it absorbed (see `onError`): never message content or phone numbers. Default:
   * `console`, filtered to the `WA_GATEWAY_LOG` level (else `warn`); `false` for silence.
   */
  logger?: Logger | false | undefined;
}

/** `createRouter`'s options, every one (see `OptionKeys`). */
const ROUTER_KEYS = [
  'gateway',
  'sessions',
  'window',
  'initialSession',
  'sessionTtlMs',
  'lockLeaseMs',
  'replyLedgerTtlMs',
  'fallbackTemplate',
  'onError',
  'logger',
] as const;
const routerKeys: OptionKeys<RouterOptions<unknown>, typeof ROUTER_KEYS> = ROUTER_KEYS;

/** A flow as `router.flow` checked it: its steps on a null prototype (no `toString` step), its timeout a number. */
interface Flow<S> {
  steps: Record<string, MessageHandler<S>>;
  timeoutMs: number;
  onTimeout: MessageHandler<S> | undefined;
}

interface FlowPosition {
  name: string;
  step: string;
  expiresAt: number;
}

/** What is stored per customer. Short keys: it is written on every event. */
interface CustomerRecord {
  s?: unknown;
  flow?: FlowPosition;
  /** Since when a person has the customer (ms). */
  human?: number;
  /** The keys of the last events handled to the end. */
  seen?: string[];
}

const SEEN_KEPT = 32;
const DAY = 24 * 60 * 60 * 1000;

type Route<S> = (ctx: MessageCtx<S>) => Promise<boolean>;

/** The router `createRouter` returns. */
export interface Router<S> {
  /** Runs every event through middleware and routes. Pass it as `onEvent` (webhook handler or inbox worker). */
  readonly handle: (event: WebhookEvent) => Promise<void>;
  use(middleware: Middleware<S>): this;
  /** Messages of a type (`'image'`, `'location'`, ...). */
  on<T extends KnownMessageType>(
    type: T,
    handler: MessageHandler<S, MessageContext<S, MessageOfType<T>>>,
  ): this;
  /** Text messages equal to a string (trimmed, case-insensitive) or matching a pattern. */
  text<P extends string | RegExp>(
    pattern: P,
    handler: MessageHandler<S, MatchedContext<S, TextMessage, P>>,
  ): this;
  /**
   * Taps on a button whose id equals a string or matches a pattern: a reply button of an interactive message (its
   * `reply.id`) or a template's quick-reply button (its `payload`, a `type: 'button'` message). `ctx.choice` is
   * that id, `ctx.text` the button's label, either way.
   */
  button<P extends string | RegExp>(id: P, handler: MessageHandler<S, MatchedContext<S, ButtonTap, P>>): this;
  /** Rows chosen from a list whose id equals a string or matches a pattern. */
  list<P extends string | RegExp>(
    id: P,
    handler: MessageHandler<S, MatchedContext<S, ChoiceMessage<'list_reply'>, P>>,
  ): this;
  /** Status events of one value (`'failed'`, ...) or of every value (`'*'`). */
  status(value: string, handler: (ctx: StatusContext) => Awaitable): this;
  /** Template status updates of one event (`'REJECTED'`, ...) or of every event (`'*'`). */
  templateStatus(event: string, handler: (ctx: TemplateStatusContext) => Awaitable): this;
  accountUpdate(handler: (ctx: AccountUpdateContext) => Awaitable): this;
  /** The handler of a customer's message no flow or route took. */
  otherwise(handler: MessageHandler<S>): this;
  /** Declares a multi-step flow, entered with `ctx.enter(name)`. */
  flow(name: string, definition: FlowDefinition<S>): this;
  /** Hands a customer to a person: the bot stays silent for them until `release`. */
  takeOver(customer: string): Promise<void>;
  /** Gives a customer back to the bot. */
  release(customer: string): Promise<void>;
  /** Whether a person has the customer. */
  isTakenOver(customer: string): Promise<boolean>;
  /** The customer's session, or `undefined` (for an agent tool or a test). */
  session(customer: string): Promise<S | undefined>;
}

/**
 * Creates a reply router over the webhook events. `S` types every handler's `ctx.session`.
 *
 * Every option is checked here, an unusable one refused with a `ConfigurationError` naming it (a missing gateway
 * with `ConversationError`, `invalid_options`), rather than failing every event later: the stores must have their
 * methods, `initialSession` and `onError` be functions, the durations positive (`lockLeaseMs`, renewed on a timer
 * while held, at most the timer maximum), `logger` a Logger or `false`. A key that is a near miss of an option's
 * (`sessionTTLMs`, `on_error`) is a `ConfigurationError` naming the option meant; a key close to none is left alone.
 *
 * @example
 * import { createRouter } from 'wa-gateway-sdk/conversations';
 * const router = createRouter<{ name?: string }>({ gateway: gw });
 * router.text(/^hi$/i, (ctx) => ctx.reply('Hello!'));
 * router.button(/^slot:(\d+)$/, (ctx) => ctx.reply(`Booked ${ctx.match[1]}`));
 * const handler = createWebhookHandler({ secret, onEvent: router.handle });
 */
export function createRouter<S = Record<string, unknown>>(options: RouterOptions<S>): Router<S> {
  // A near miss first (`Gateway`, `session_ttl_ms`): it names the option meant, where the missing one would not.
  if (typeof options === 'object' && options !== null) refuseNearMisses(options, routerKeys, 'createRouter');
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.gateway?.messages?.send !== 'function'
  ) {
    throw new ConversationError(
      'invalid_options',
      'createRouter({ gateway }) needs a GatewayClient: createRouter({ gateway: new GatewayClient({ apiKey, baseUrl }) }).',
    );
  }
  return new RouterImpl<S>(options);
}

class RouterImpl<S> implements Router<S> {
  readonly gateway: RouterGateway;
  readonly sessions: SessionStore;
  readonly window: WindowStore;
  readonly initial: () => S;
  readonly ttlMs: number;
  readonly leaseMs: number;
  readonly ledgerTtlMs: number;
  readonly windowFallback: ((ctx: MessageContext<S>) => Promise<ReplyTemplate>) | undefined;
  readonly onError: RouterOptions<S>['onError'];
  readonly logger: Logger | undefined;
  /** What the router has warned about once already (a session holding values JSON changes). */
  readonly #warned = { session: false };
  readonly middleware: Middleware<S>[] = [];
  readonly routes: Route<S>[] = [];
  readonly flows = new Map<string, Flow<S>>();
  readonly statusRoutes: [string, (ctx: StatusContext) => Awaitable][] = [];
  readonly templateRoutes: [string, (ctx: TemplateStatusContext) => Awaitable][] = [];
  readonly accountRoutes: ((ctx: AccountUpdateContext) => Awaitable)[] = [];
  fallback: MessageHandler<S> | undefined;

  constructor(options: RouterOptions<S>) {
    const name = (option: string) => `createRouter: \`${option}\``;
    this.gateway = options.gateway;
    this.sessions = withMethods(
      options.sessions ?? new MemorySessionStore(),
      name('sessions'),
      'a SessionStore (MemorySessionStore, RedisSessionStore)',
      ['get', 'set', 'delete', 'lock', 'claim', 'unclaim'],
    );
    this.window = withMethods(
      options.window ?? new MemoryWindowStore(),
      name('window'),
      'a WindowStore (MemoryWindowStore, RedisWindowStore)',
      ['recordInbound', 'lastInbound'],
    );
    this.initial =
      optionalFunction(
        options.initialSession,
        name('initialSession'),
        " returning a new customer's session: () => ({ ... })",
      ) ?? (() => ({}) as S);
    // At most what the Redis stores keep (5 years): a longer TTL would fail every save there, not this call.
    this.ttlMs = boundedDurationMs(options.sessionTtlMs, name('sessionTtlMs'), 30 * DAY, MAX_RETENTION_MS);
    this.leaseMs = boundedDurationMs(options.lockLeaseMs, name('lockLeaseMs'), 5_000, MAX_TIMER_MS);
    this.ledgerTtlMs = boundedDurationMs(
      options.replyLedgerTtlMs,
      name('replyLedgerTtlMs'),
      7 * DAY,
      MAX_RETENTION_MS,
    );
    this.windowFallback = fallbackOf<MessageContext<S>>(options.fallbackTemplate);
    this.onError = optionalFunction(options.onError, name('onError'), '');
    const { logger } = options;
    if (logger !== undefined && logger !== false && (typeof logger !== 'object' || logger === null)) {
      throw new ConfigurationError(
        `${name('logger')} must be a Logger (console, pino) or false; got ${givenValue(logger)}.`,
      );
    }
    this.logger = logger === false ? undefined : resolveLogger({ logger });
  }

  readonly handle = async (event: WebhookEvent): Promise<void> => {
    checkEvent(event);
    if (event.kind === 'message') return this.#message(event);
    const ctx = otherContext(event);
    await this.#run(ctx as EventContext<S>, () => this.#other(ctx));
  };

  use(middleware: Middleware<S>): this {
    this.middleware.push(requireFunction('router.use', 'middleware', middleware));
    return this;
  }

  on<T extends KnownMessageType>(
    type: T,
    handler: MessageHandler<S, MessageContext<S, MessageOfType<T>>>,
  ): this {
    requireString('router.on', 'type', type, 'a message type such as `image`');
    return this.#route('router.on', (ctx) => (ctx.message.type === type ? true : undefined), handler);
  }

  text<P extends string | RegExp>(
    pattern: P,
    handler: MessageHandler<S, MatchedContext<S, TextMessage, P>>,
  ): this {
    requirePattern('router.text', 'pattern', pattern);
    return this.#route(
      'router.text',
      (ctx) => (ctx.message.type === 'text' ? matchOf(pattern, ctx.message.text.body, true) : undefined),
      handler,
    );
  }

  button<P extends string | RegExp>(
    id: P,
    handler: MessageHandler<S, MatchedContext<S, ButtonTap, P>>,
  ): this {
    requirePattern('router.button', 'id', id);
    return this.#route(
      'router.button',
      (ctx) =>
        matchOf(
          id,
          ctx.message.type === 'button'
            ? ctx.message.button.payload
            : interactiveId(ctx.message, 'button_reply'),
          false,
        ),
      handler,
    );
  }

  list<P extends string | RegExp>(
    id: P,
    handler: MessageHandler<S, MatchedContext<S, ChoiceMessage<'list_reply'>, P>>,
  ): this {
    requirePattern('router.list', 'id', id);
    return this.#route(
      'router.list',
      (ctx) => matchOf(id, interactiveId(ctx.message, 'list_reply'), false),
      handler,
    );
  }

  status(value: string, handler: (ctx: StatusContext) => Awaitable): this {
    requireString('router.status', 'value', value, "a status such as 'failed', or '*'");
    this.statusRoutes.push([value, requireFunction('router.status', 'handler', handler)]);
    return this;
  }

  templateStatus(event: string, handler: (ctx: TemplateStatusContext) => Awaitable): this {
    requireString('router.templateStatus', 'event', event, "an event such as 'REJECTED', or '*'");
    this.templateRoutes.push([event, requireFunction('router.templateStatus', 'handler', handler)]);
    return this;
  }

  accountUpdate(handler: (ctx: AccountUpdateContext) => Awaitable): this {
    this.accountRoutes.push(requireFunction('router.accountUpdate', 'handler', handler));
    return this;
  }

  otherwise(handler: MessageHandler<S>): this {
    this.fallback = requireFunction('router.otherwise', 'handler', handler);
    return this;
  }

  flow(name: string, definition: FlowDefinition<S>): this {
    requireString('router.flow', 'name', name, 'the name ctx.enter(name) takes');
    const call = `router.flow('${name}')`;
    const given = definition?.steps;
    if (typeof given !== 'object' || given === null || Object.keys(given).length === 0) {
      throw new ConversationError('invalid_options', `${call}: give it at least one step.`);
    }
    const steps: Record<string, MessageHandler<S>> = Object.create(null);
    for (const [step, handler] of Object.entries(given))
      steps[step] = requireFunction(call, `steps.${step}`, handler);
    const onTimeout = definition.onTimeout;
    this.flows.set(name, {
      steps,
      // Checked here: a timeout that is not a positive number would expire every flow at once, or never.
      timeoutMs: durationMs(definition.timeoutMs, `${call}: \`timeoutMs\``, 60 * 60 * 1000),
      onTimeout: onTimeout === undefined ? undefined : requireFunction(call, 'onTimeout', onTimeout),
    });
    return this;
  }

  takeOver(customer: string): Promise<void> {
    return this.#update('router.takeOver', customer, (r) => {
      r.human = r.human ?? Date.now();
    });
  }

  release(customer: string): Promise<void> {
    return this.#update('router.release', customer, (r) => {
      r.human = undefined;
      r.flow = undefined;
    });
  }

  async isTakenOver(customer: string): Promise<boolean> {
    return (await this.#load(requireCustomer('router.isTakenOver', customer))).human !== undefined;
  }

  async session(customer: string): Promise<S | undefined> {
    return (await this.#load(requireCustomer('router.session', customer))).s as S | undefined;
  }

  #route<C>(call: string, test: (ctx: MessageCtx<S>) => unknown, given: MessageHandler<S, C>): this {
    const handler = requireFunction(call, 'handler', given as MessageHandler<S>);
    this.routes.push(async (ctx) => {
      const match = test(ctx);
      if (match === undefined) return false;
      if (match !== true) ctx.match = match;
      await handler(ctx);
      return true;
    });
    return this;
  }

  async #load(customer: string): Promise<CustomerRecord> {
    const raw = await this.sessions.get(recordKey(customer));
    return typeof raw === 'object' && raw !== null ? (raw as CustomerRecord) : {};
  }

  async #update(call: string, customer: string, change: (record: CustomerRecord) => void): Promise<void> {
    requireCustomer(call, customer);
    const lock = await this.sessions.lock(recordKey(customer), this.leaseMs);
    await this.#holding(lock, async () => {
      const record = await this.#load(customer);
      change(record);
      await this.#save(lock, customer, record);
    });
  }

  /**
   * Runs `work` under `lock`, then lets the lock go. A release that fails is logged, never thrown: the work's
   * outcome stands (a handled, saved event answered 500 would be retried for nothing, and its retries would wait on
   * the lock), and the lock ends with its lease (`lockLeaseMs`).
   */
  async #holding(lock: SessionLock, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } finally {
      try {
        await lock.release();
      } catch (error) {
        log(
          this.logger,
          'warn',
          "wa-gateway-sdk: the router could not release a customer's lock; it ends with its lease " +
            `(lockLeaseMs, ${this.leaseMs} ms), and the event's outcome stands`,
          { errorName: error instanceof Error ? error.name : typeof error },
        );
      }
    }
  }

  async #message(event: MessageEvent): Promise<void> {
    const customer = customerOf(event)?.key;
    if (customer === undefined) {
      throw new ConversationError(
        'no_customer',
        'a message carries no sender (from or from_user_id): the router cannot key it to a customer.',
      );
    }
    const key = recordKey(customer);
    const lock = await this.sessions.lock(key, this.leaseMs);
    await this.#holding(lock, async () => {
      const record = await this.#load(customer);
      await this.window.recordInbound(customer, inboundTime(event));
      if (record.seen?.includes(event.idempotencyKey)) return;
      const ctx = new MessageCtx<S>(this, event, customer, record);
      if (await this.#finished(ctx, () => this.#run(ctx, () => this.#dispatch(ctx, record)))) {
        // The rule of session-data.ts, whatever the store: unwritable is refused, changed is warned of once.
        checkSession(ctx.session, 'session', this.logger, this.#warned);
        record.s = ctx.session;
        record.flow = ctx.position;
        if (ctx.handOver) record.human = record.human ?? Date.now();
      }
      record.seen = [...(record.seen ?? []), event.idempotencyKey].slice(-SEEN_KEPT);
      await this.#save(lock, customer, record);
    });
  }

  /**
   * Runs the event's handlers: `true` when they finished, `false` when a reply was refused for good (see the
   * `onError` option), which ends the event without failing it. Any other error fails the event, to be retried.
   */
  async #finished(ctx: MessageCtx<S>, run: () => Promise<void>): Promise<boolean> {
    try {
      await run();
      return true;
    } catch (error) {
      if (!refusedForGood(error)) throw error;
      if (this.onError !== undefined) await this.onError(error, ctx);
      else
        log(
          this.logger,
          'warn',
          error instanceof ServiceWindowClosedError
            ? "wa-gateway-sdk: a reply was refused: the customer's 24-hour service window is closed, and the router " +
                'has no fallbackTemplate. The event is handled (answered 200, not retried); give createRouter a ' +
                'fallbackTemplate to send a template instead, or onError to handle the refusal.'
            : `wa-gateway-sdk: a reply was refused for good (${error.name}); a redelivery would meet the same ` +
                'refusal, so the event is handled (answered 200, not retried). Give createRouter onError to handle it.',
          {
            // Not the message's id: a wamid encodes the customer's number, and logs carry none.
            ...(error instanceof ServiceWindowClosedError ? { closedAt: error.closedAt?.toISOString() } : {}),
            ...(error instanceof TemplateSendError ? { rule: error.rule } : {}),
            ...(error instanceof ApiError ? { code: error.code } : {}),
          },
        );
      return false;
    }
  }

  /** Fenced when the store can (see `SessionLock.save`): a holder that lost its lease must not overwrite. */
  #save(lock: SessionLock, customer: string, record: CustomerRecord): Promise<void> {
    // Its session was checked (or read back from a store): the SDK's stores need not walk it again.
    markChecked(record);
    return lock.save !== undefined
      ? lock.save(record, this.ttlMs)
      : this.sessions.set(recordKey(customer), record, this.ttlMs);
  }

  async #run(ctx: EventContext<S>, last: () => Promise<void>): Promise<void> {
    const chain = this.middleware;
    const step = async (i: number): Promise<void> => {
      const m = chain[i];
      if (m === undefined) return last();
      let called = false;
      await m(ctx, () => {
        if (called) return Promise.resolve();
        called = true;
        return step(i + 1);
      });
    };
    await step(0);
  }

  async #dispatch(ctx: MessageCtx<S>, record: CustomerRecord): Promise<void> {
    if (record.human !== undefined) return;
    const position = record.flow;
    if (position !== undefined) {
      const flow = this.flows.get(position.name);
      ctx.position = undefined; // a step that does not wait ends the flow
      ctx.flowName = position.name;
      if (flow !== undefined && Date.now() < position.expiresAt) {
        const step = flow.steps[position.step];
        if (step !== undefined) {
          await step(ctx);
          return;
        }
      } else if (flow?.onTimeout !== undefined) {
        await flow.onTimeout(ctx);
        return;
      }
      ctx.flowName = undefined;
    }
    for (const route of this.routes) if (await route(ctx)) return;
    await this.fallback?.(ctx);
  }

  async #other(ctx: Exclude<EventContext<S>, MessageContext<S>>): Promise<void> {
    if (ctx.kind === 'status') {
      for (const [value, handler] of this.statusRoutes)
        if (value === '*' || value === ctx.status.status) await handler(ctx);
    } else if (ctx.kind === 'template_status') {
      for (const [value, handler] of this.templateRoutes)
        if (value === '*' || value === ctx.template.event) await handler(ctx);
    } else if (ctx.kind === 'account_update') {
      for (const handler of this.accountRoutes) await handler(ctx);
    }
  }

  /** @internal Called by the context. */
  flowDefinition(name: string): Flow<S> {
    const flow = this.flows.get(name);
    if (flow === undefined) {
      throw new ConversationError(
        'unknown_flow',
        `No flow named '${name}': declare it with router.flow('${name}', { steps }).`,
      );
    }
    return flow;
  }
}

class MessageCtx<S> implements MessageContext<S> {
  readonly kind = 'message';
  readonly message: IncomingMessage;
  readonly text: string | undefined;
  readonly choice: string | undefined;
  readonly human: boolean;
  session: S;
  match: unknown;
  position: FlowPosition | undefined;
  flowName: string | undefined;
  handOver = false;
  #replies = 0;

  constructor(
    readonly router: RouterImpl<S>,
    readonly event: MessageEvent,
    readonly customer: string,
    record: CustomerRecord,
  ) {
    this.message = event.message;
    this.text = textOf(event.message);
    this.choice =
      event.message.type === 'button'
        ? event.message.button.payload
        : (interactiveId(event.message, 'button_reply') ?? interactiveId(event.message, 'list_reply'));
    this.human = record.human !== undefined;
    this.session = record.s === undefined ? router.initial() : (record.s as S);
    this.position = record.flow;
  }

  reply(message: string | ReplyMessage): Promise<ReplyResult> {
    const full = (
      typeof message === 'string' ? { type: 'text', text: { body: message } } : message
    ) as ReplyMessage;
    return this.#send({ ...full, to: this.customer } as OutboundMessage);
  }

  replyTemplate<const T extends ReplyTemplate | TemplateDefinition>(
    template: T,
    ...[values]: ReplyTemplateArguments<T>
  ): Promise<ReplyResult> {
    try {
      // A definition names its language as a string; a template object as `{ code }`.
      const filled =
        typeof (template as { language?: unknown }).language === 'string'
          ? checkedTemplate('ctx.replyTemplate', template, values)
          : (template as ReplyTemplate);
      return this.#send(templateReply(this.customer, filled));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  enter(flow: string, step?: string): void {
    const definition = this.router.flowDefinition(flow);
    const first = step ?? Object.keys(definition.steps)[0];
    if (first === undefined || definition.steps[first] === undefined) {
      throw new ConversationError('unknown_flow', `Flow '${flow}' has no step '${String(step)}'.`);
    }
    this.flowName = flow;
    this.position = {
      name: flow,
      step: first,
      expiresAt: Date.now() + definition.timeoutMs,
    };
  }

  wait(step: string): void {
    if (this.flowName === undefined) {
      throw new ConversationError(
        'unknown_flow',
        'ctx.wait(step) is for flow steps: start a flow with ctx.enter(flow, step).',
      );
    }
    this.enter(this.flowName, step);
  }

  leave(): void {
    this.position = undefined;
    this.flowName = undefined;
  }

  takeOver(): void {
    this.handOver = true;
    this.leave();
  }

  async #send(message: OutboundMessage): Promise<ReplyResult> {
    // Every reply goes `to` the customer's key: for a customer known only by a user id that is no number at all.
    if (customerOf(this.event)?.phone === undefined) throw noNumberToReplyTo();
    // The n-th reply of this event: a re-run of the event makes the same replies in the same order.
    const id = `reply:${this.event.idempotencyKey}#${this.#replies++}`;
    const { router } = this;
    let fallback = false;
    try {
      await checkServiceWindow(router.window, message);
    } catch (error) {
      if (router.windowFallback === undefined) throw error;
      message = templateReply(this.customer, await router.windowFallback(this));
      fallback = true;
    }
    if (!(await router.sessions.claim(id, router.ledgerTtlMs))) {
      return { messageId: undefined, skipped: true, fallback };
    }
    try {
      const { messageId } = await router.gateway.messages.send(message);
      return { messageId, skipped: false, fallback };
    } catch (error) {
      // Certainly not out: free the claim so that the event's retry sends it. Maybe out: keep it (at most once).
      if (error instanceof MessageValidationError || !mayHaveBeenSent(error, GATEWAY_RETRY_RULES)) {
        await router.sessions.unclaim(id);
      }
      throw error;
    }
  }
}

function otherContext(
  event: Exclude<WebhookEvent, MessageEvent>,
): Exclude<EventContext<never>, MessageContext<never>> {
  switch (event.kind) {
    case 'status':
      return {
        kind: 'status',
        event,
        status: event.status,
        error: event.status.errors?.[0],
        customer: customerOf(event)?.key,
      };
    case 'template_status':
      return { kind: 'template_status', event, template: event.template };
    case 'account_update':
      return { kind: 'account_update', event, account: event.account };
    default:
      return { kind: 'unknown', event };
  }
}

/** An `interactive` message narrowed to one documented reply kind: what a `button` or `list` route hands over. */
export type ChoiceMessage<K extends 'button_reply' | 'list_reply'> = InteractiveMessage & {
  interactive: Extract<InteractiveMessage['interactive'], { type: K }>;
};

/**
 * A tap on a button, what `router.button` hands over: a reply button of an interactive message, or a quick-reply
 * button of a template (`type: 'button'`). Read `ctx.choice` and `ctx.text` for both, or narrow on `type`.
 */
export type ButtonTap = ChoiceMessage<'button_reply'> | ButtonMessage;

/**
 * A reply to a customer known only by a business-scoped user id (`from_user_id`): the gateway sends to phone
 * numbers only, so the same reply would be refused on every redelivery (a refusal for `onError`).
 */
function noNumberToReplyTo(): MessageValidationError {
  return new MessageValidationError(
    [
      {
        path: ['to'],
        message:
          'the customer is known only by a business-scoped user id (from_user_id), not a phone number: there is no number to reply to until one of their messages carries it (customerOf(ctx.event).phone)',
        code: 'custom',
        rule: 'to.digits_only',
      },
    ],
    'reply',
  );
}

/**
 * The template message of `ctx.replyTemplate` and of the window fallback: one builder, so both take the same
 * template.
 */
function templateReply(to: string, template: ReplyTemplate): OutboundTemplateMessage {
  return { to, type: 'template', template };
}

/** What the router reads of each kind of event besides `kind`: a value without it did not come from `parseWebhook`. */
const EVENT_FIELDS: Readonly<
  Partial<Record<WebhookEvent['kind'], Readonly<Record<string, 'object' | 'string'>>>>
> = {
  message: { message: 'object', idempotencyKey: 'string' },
  status: { status: 'object' },
  template_status: { template: 'object' },
  account_update: { account: 'object' },
  unknown: {},
};

/** Refuses a value that is no webhook event, rather than failing on it with a `TypeError` (or routing it as one). */
function checkEvent(event: unknown): asserts event is WebhookEvent {
  const kind = (event as { kind?: unknown } | null)?.kind;
  // Any kind named by a string is an event (a kind added later reaches `otherwise`); the kinds the router reads
  // fields of must carry them.
  const fields =
    typeof kind !== 'string'
      ? undefined
      : Object.hasOwn(EVENT_FIELDS, kind)
        ? EVENT_FIELDS[kind as WebhookEvent['kind']]
        : {};
  const missing =
    fields === undefined
      ? 'kind'
      : Object.keys(fields).find((field) => {
          const value = (event as Record<string, unknown>)[field];
          return typeof value !== fields[field] || value === null;
        });
  if (missing !== undefined) {
    throw new ConversationError(
      'invalid_event',
      `router.handle(event) takes a webhook event from parseWebhook or a webhook handler's onEvent; got ${
        typeof event === 'object' && event !== null
          ? `an object without a valid \`${missing}\``
          : givenValue(event)
      }.`,
    );
  }
}

/** A function option, or `undefined` when it was left out; anything else is refused, naming the option. */
function optionalFunction<F>(value: F | undefined, name: string, what = ''): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new ConfigurationError(`${name} must be a function${what}; got ${givenValue(value)}.`);
  }
  return value;
}

/** A string argument of a registration; else the router's registration error, naming the argument. */
function requireString(call: string, name: string, value: unknown, give: string): void {
  if (typeof value !== 'string') {
    throw new ConversationError(
      'invalid_options',
      `${call}: \`${name}\` must be ${give}; got ${givenValue(value)}.`,
    );
  }
}

/** A handler is checked when it is registered: one that is not a function would fail every event it matches. */
function requireFunction<F>(call: string, name: string, value: F): F {
  if (typeof value !== 'function') {
    throw new ConversationError(
      'invalid_options',
      `${call}: \`${name}\` must be a function; got ${givenValue(value)}.`,
    );
  }
  return value;
}

/** A route's pattern: a string (matched whole) or a RegExp. Anything else would fail every event at `matchOf`. */
function requirePattern(call: string, name: string, value: unknown): void {
  if (typeof value !== 'string' && !(value instanceof RegExp)) {
    throw new ConversationError(
      'invalid_options',
      `${call}: \`${name}\` must be a string or a RegExp; got ${givenValue(value)}.`,
    );
  }
}

/** The customer of an agent call: their id as `ctx.customer` gives it, never `conv:undefined`. */
function requireCustomer(call: string, customer: unknown): string {
  return requireText(call, 'customer', customer, "the customer's id (ctx.customer: their number or user id)");
}

function recordKey(customer: string): string {
  return `conv:${customer}`;
}

/** The message's own time (ms), or now when it carried none: the window opens when the customer wrote. */
function inboundTime(event: MessageEvent): number {
  const sent = event.timestamp === undefined ? undefined : event.timestamp * 1000;
  return sent !== undefined && sent <= Date.now() ? sent : Date.now();
}

function textOf(message: IncomingMessage): string | undefined {
  if (message.type === 'text') return message.text.body;
  if (message.type === 'button') return message.button.text;
  if (message.type === 'interactive') {
    const i = message.interactive;
    if (i.type === 'button_reply') return i.button_reply.title;
    if (i.type === 'list_reply') return i.list_reply.title;
  }
  return undefined;
}

function interactiveId(message: IncomingMessage, kind: 'button_reply' | 'list_reply'): string | undefined {
  if (message.type !== 'interactive') return undefined;
  const i = message.interactive;
  if (i.type !== kind) return undefined;
  return i.type === 'button_reply'
    ? i.button_reply.id
    : i.type === 'list_reply'
      ? i.list_reply.id
      : undefined;
}

/** The route's match: the exec result of a pattern, the string for an equal string, `undefined` for no match. */
function matchOf(pattern: string | RegExp, value: string | undefined, loose: boolean): unknown {
  if (value === undefined) return undefined;
  if (typeof pattern === 'string') {
    const equal = loose ? pattern.trim().toLowerCase() === value.trim().toLowerCase() : pattern === value;
    return equal ? value : undefined;
  }
  pattern.lastIndex = 0;
  return pattern.exec(value) ?? undefined;
}
