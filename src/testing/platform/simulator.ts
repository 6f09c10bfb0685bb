import { HttpResponse, http, type RequestHandler } from 'msw';
import { z } from 'zod';
import {
  BATCH_SEND_MAX,
  type ConversationRecord,
  type CustomFieldValue,
  check,
  DATE_RANGES,
  type DateRange,
  FEEDBACK_TYPES,
  type Feedback,
  instantMs,
  isUuid,
  type MessageItem,
  REPORT_DATA,
  REPORT_TRUNCS,
  type ReportData,
  type ReportTrunc,
  STREAM_MESSAGE_TYPES,
  STREAM_SENDERS,
  type StatsChannel,
  type StreamMessage,
  sendMessagesBodySchema,
  uuidSchema,
} from '../../platform/schemas.js';

/**
 * msw handlers that behave like the conversation platform API: token login and expiry, the `JWT` header
 * check, stats, reports, the NDJSON message stream with its filters and limits, and the `/v2` operations,
 * whose effects land in a `PlatformState` a test asserts on. Behaviour is a table of routes; each answer is
 * built from the state, so what one call changes the next one sees (an archived conversation is archived in
 * `/reports/conversations/`, a sent message comes back in the stream).
 */

const DAY_MS = 24 * 60 * 60 * 1000;
/** The platform's tokens are valid for 24 hours. */
const DEFAULT_TOKEN_LIFETIME_MS = DAY_MS;
/** The most records one stream request returns. */
const STREAM_CAP = 100_000;
/** The longest range of one stream request. */
const STREAM_MAX_SPAN_US = 7 * DAY_MS * 1000;
const STREAM_PATH = '/stream/messages/';
const CUSTOMER_FIELDS = ['name', 'crm', 'telegram', 'facebook', 'email', 'instagram', 'twitter'] as const;
const DEFAULT_CHANNEL = {
  uuid: '00000000-0000-4000-8000-00000000c4a1',
  name: 'Simulated channel',
  backend: 'whatsapp',
} as const;

/** A user `POST /jwt/` accepts. */
export interface PlatformUser {
  username: string;
  password: string;
  /** `account.uuid` of the login answer. Default: a UUID derived from the user's position in `users`. */
  accountUuid?: string;
  /** `otp` of the login answer. Default `false`. */
  otp?: boolean;
}

/** A conversation type `POST /v2/conversations/type/` accepts. */
export interface ConversationTypeDefinition {
  name: string;
  /**
   * Its sub-types. A `sub` that is not listed is answered 404; a type that has sub-types cannot be set
   * without one (405, "main type cannot be set").
   */
  subs?: readonly string[];
  /** Channel UUIDs the type is allowed for; another channel is answered 405. Default: every channel. */
  channels?: readonly string[];
}

/** What a custom field accepts: a kind of value, or a closed list of strings. */
export type CustomFieldKind = 'text' | 'number' | 'boolean' | readonly string[];

/** Sections of `GET /reports/` served as given instead of being computed from the state. */
export type ReportSections = Partial<Record<ReportData | 'total_response_times', unknown>>;

export interface PlatformHandlersOptions {
  /** `{platform_url}`, as given to `PlatformClient`. */
  platformUrl: string;
  /** `{stream_url}`, as given to `PlatformClient`. */
  streamUrl: string;
  /** Who may log in. Default: one user, `agent@example.com` / `secret-password`. */
  users?: readonly PlatformUser[];
  /** How long a token is accepted after its login. Default 24 hours. */
  tokenLifetimeMs?: number;
  /** The server's clock (epoch ms): token expiry, report date ranges, timestamps of what is sent. Default `Date.now`. */
  now?: () => number;
  /** Records of the message stream (any order: the stream answers them in `created_at` order). */
  messages?: readonly StreamMessage[];
  /** Records of `/reports/conversations/`. Their UUIDs and customers are known to the `/v2` operations. */
  conversations?: readonly ConversationRecord[];
  /** Further conversation UUIDs the `/v2` operations accept (besides those of `conversations` and `messages`). */
  conversationUuids?: readonly string[];
  /** Further customer UUIDs `/v2/customers/` accepts (besides those of the seeded records). */
  customerUuids?: readonly string[];
  /** Accept every well-formed UUID as an existing conversation and customer. Default `false`. */
  acceptAnyUuid?: boolean;
  /** Channel objects of `GET {stream_url}/stats`. Default none. */
  channels?: readonly StatsChannel[];
  /** Records of `/reports/feedbacks/`. */
  feedbacks?: readonly Feedback[];
  /** `/reports/` sections served as given; the others are computed from messages, conversations and feedbacks. */
  reportSections?: ReportSections;
  /** Agent emails `assign` accepts (others: 400). Default: the usernames of `users`. */
  agents?: readonly string[];
  /** Agent group names `assign_to_group` accepts (others: 404). Default `['Support', 'Billing']`. */
  groups?: readonly string[];
  /** Conversation types. Default: `Complaint` (sub-types `Delivery`, `Billing`) and `Question` (none). */
  types?: readonly ConversationTypeDefinition[];
  /** Custom fields of conversations, by identifier. Default: any identifier, any scalar value. */
  conversationCustomFields?: Readonly<Record<string, CustomFieldKind>>;
  /** Custom fields of customers, by identifier. Default: any identifier, any scalar value. */
  customerCustomFields?: Readonly<Record<string, CustomFieldKind>>;
  /** Records per stream request. Default 100,000 (the documented cap); lower it to test continuation. */
  maxStreamMessages?: number;
  /** Messages sent (`/v2/messages/`, batch send) are added to the stream as agent messages. Default `true`. */
  echoSentMessages?: boolean;
  /** Answer 404 (unknown path) and 405 (wrong method) below both URLs, as the server does. Default `true`. */
  catchAll?: boolean;
}

/** A login the server accepted. */
export interface PlatformLogin {
  username: string;
  token: string;
  /** Server time of the login, epoch ms. */
  at: number;
}

/** A token the server issued. */
export interface PlatformToken {
  username: string;
  issuedAt: number;
  /** Epoch ms; `state.expireTokens()` sets it to `-Infinity`. */
  expiresAt: number;
}

/** A request the handlers answered. */
export interface PlatformRequest {
  host: 'platform' | 'stream';
  method: string;
  /** Path below the host's URL, e.g. `/stream/messages/`. */
  path: string;
  query: Record<string, string>;
  status: number;
  /** The authenticated user, or `null` (login, refused credentials). */
  username: string | null;
}

/** The assignment of a conversation. */
export interface PlatformAssignment {
  /** The agent's email, or `null` when only a group is set. */
  agent: string | null;
  /** Whether the agent was chosen by auto assignment. */
  auto: boolean;
  group: string | null;
}

/** What `/v2/customers/` changed for one customer (values as last set). */
export interface PlatformCustomerState {
  fields: Partial<Record<(typeof CUSTOMER_FIELDS)[number], string | null>>;
  customFields: Record<string, CustomFieldValue>;
}

export interface PlatformBatchSend {
  message: string;
  conversations: string[];
  username: string | null;
  at: number;
}

/** An answer to force on the next matching requests (after the credentials are checked). */
export interface PlatformFault {
  /** Path below the host's URL, e.g. `/batch_send_message/`. */
  path: string;
  method?: 'GET' | 'POST';
  status: number;
  /** JSON body. Default `{ detail: 'Simulated failure.' }`. */
  body?: unknown;
  /** How many requests get it. Default 1. */
  times?: number;
}

/**
 * What the platform handlers hold. Seeded collections (`streamRecords`, `conversationRecords`, `feedbacks`,
 * `channels`, `reportSections`) can be changed at any time; the recorded ones say what the code under test
 * did. UUID keys are lower-case. `reset()` restores the seeds and forgets what was recorded.
 */
export class PlatformState {
  /** Message stream records (copies of `options.messages`, plus echoed sends). */
  readonly streamRecords: StreamMessage[] = [];
  /** `/reports/conversations/` records; archive, group, type and customer updates are applied to them. */
  readonly conversationRecords: ConversationRecord[] = [];
  readonly feedbacks: Feedback[] = [];
  /** `GET /stats` channel objects. */
  readonly channels: StatsChannel[] = [];
  /** `/reports/` sections served as given. */
  reportSections: ReportSections = {};
  /** Extra conversation and customer UUIDs that exist. */
  readonly knownConversations = new Set<string>();
  readonly knownCustomers = new Set<string>();

  /** Every accepted login, in order. */
  readonly logins: PlatformLogin[] = [];
  /** Tokens issued, by token. */
  readonly tokens = new Map<string, PlatformToken>();
  /** Every request answered, in order. */
  readonly requests: PlatformRequest[] = [];
  /** Items sent with `/v2/messages/`, per conversation, in order. */
  readonly sentMessages = new Map<string, MessageItem[]>();
  /** Conversations that are archived. */
  readonly archived = new Set<string>();
  readonly assignments = new Map<string, PlatformAssignment>();
  /** Type set per conversation. */
  readonly types = new Map<string, { name: string; sub: string | null }>();
  /** Custom fields per conversation (values unwrapped). */
  readonly customFields = new Map<string, Record<string, CustomFieldValue>>();
  /** Customers updated through `/v2/customers/`. */
  readonly customers = new Map<string, PlatformCustomerState>();
  readonly batchSends: PlatformBatchSend[] = [];
  /** Faults still to be answered. */
  readonly faults: PlatformFault[] = [];

  readonly #options: PlatformHandlersOptions;

  constructor(options: PlatformHandlersOptions) {
    this.#options = options;
    this.reset();
  }

  /** Makes every token issued so far invalid: the next call gets 401 and the client logs in again. */
  expireTokens(): void {
    for (const token of this.tokens.values()) token.expiresAt = Number.NEGATIVE_INFINITY;
  }

  /** The next `times` requests to `path` (default 1) are answered `status` with `body`. */
  failNext(fault: PlatformFault): void {
    this.faults.push({ times: 1, ...fault });
  }

  /** Restores the seeded records and forgets logins, requests and every change. Issued tokens stay valid. */
  reset(): void {
    const o = this.#options;
    replace(this.streamRecords, o.messages);
    replace(this.conversationRecords, o.conversations);
    replace(this.feedbacks, o.feedbacks);
    replace(this.channels, o.channels);
    this.reportSections = structuredClone(o.reportSections ?? {});
    this.knownConversations.clear();
    for (const uuid of o.conversationUuids ?? []) this.knownConversations.add(uuid.toLowerCase());
    this.knownCustomers.clear();
    for (const uuid of o.customerUuids ?? []) this.knownCustomers.add(uuid.toLowerCase());
    this.logins.length = 0;
    this.requests.length = 0;
    this.faults.length = 0;
    this.batchSends.length = 0;
    for (const map of [this.sentMessages, this.assignments, this.types, this.customFields, this.customers]) {
      map.clear();
    }
    this.archived.clear();
    for (const record of this.conversationRecords) {
      if (record.is_archived) this.archived.add(record.uuid.toLowerCase());
    }
  }
}

function replace<T>(target: T[], seed: readonly T[] | undefined): void {
  target.length = 0;
  for (const item of seed ?? []) target.push(structuredClone(item));
}

/**
 * A stream record with realistic defaults, for seeding `messages`: a customer's text message in one
 * conversation of one channel. Every field can be overridden.
 *
 * @example
 * const messages = [platformMessageRecord({ id: 1, created_at: '2024-05-01T09:00:00Z', content: 'Hello' })];
 */
export function platformMessageRecord(overrides: Partial<StreamMessage> = {}): StreamMessage {
  return {
    id: 1,
    created_at: '2024-05-01T09:00:00.000000Z',
    conversation: {
      uuid: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f',
      customer: {
        name: 'Aziza Karimova',
        uuid: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        email: 'aziza@example.com',
        phone_number: '+998901234567',
      },
      is_archived: false,
    },
    channel: { ...DEFAULT_CHANNEL },
    type: 'text',
    agent: null,
    customer: { name: 'Aziza Karimova' },
    content: 'Hello',
    data: null,
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Routes

type Host = 'platform' | 'stream';
type Method = 'GET' | 'POST';

interface Answer {
  status: number;
  /** JSON-serialised; `undefined` is an empty body. */
  body?: unknown;
  /** NDJSON records instead of a JSON body. */
  ndjson?: readonly unknown[];
  headers?: Record<string, string>;
}

interface RouteContext {
  query: URLSearchParams;
  /** The parsed JSON object of a POST. */
  body: Record<string, unknown>;
  /** The authenticated user (`null` for login). */
  username: string | null;
}

interface Route {
  host: Host;
  method: Method;
  path: string;
  /** Login is the one endpoint without `Authorization: JWT <token>`. */
  open?: boolean;
  handle: (ctx: RouteContext) => Answer;
}

/** Thrown by a route to answer with an error body. */
class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`${status}`);
  }
}

const detail = (status: number, text: string): Refusal => new Refusal(status, { detail: text });
const ok = (text: string): Answer => ({ status: 200, body: { detail: text } });

/**
 * msw 2 handlers that behave like the conversation platform API, and the `state` they read and change.
 *
 * - `POST /jwt/` checks `users`; a token is accepted for `tokenLifetimeMs` (24 h), then 401 "invalid auth
 *   key"; `state.expireTokens()` forces that now. A missing or malformed header is 401 "invalid Authorization
 *   header".
 * - `GET /stats` serves `channels`; `GET /reports/` validates its enums (400 `{ error }`) and computes the
 *   messages, conversations and feedback sections from the seeded records; `/reports/conversations/` filters
 *   by the relative ranges; `/reports/feedbacks/` refuses a range over one calendar month.
 * - `GET /stream/messages/` answers NDJSON in `created_at` order with the filters, exclusive bounds (to the
 *   microsecond), the one-week limit and the 100,000 cap.
 * - The `/v2` operations and batch send check their bodies and the conversation, record into `state` and
 *   answer `{ detail }` (batch: 200, empty body), with the statuses of the spec's table.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createPlatformHandlers } from 'wa-gateway-sdk/testing';
 * const { handlers, state } = createPlatformHandlers({
 *   platformUrl: 'https://platform.test',
 *   streamUrl: 'https://stream.test',
 *   conversationUuids: [conversationUuid],
 * });
 * const server = setupServer(...handlers);
 * // ... code under test uses new PlatformClient({ platformUrl, streamUrl, username: 'agent@example.com', password: 'secret-password' })
 * expect(state.archived.has(conversationUuid)).toBe(true);
 */
export function createPlatformHandlers(options: PlatformHandlersOptions): {
  handlers: RequestHandler[];
  state: PlatformState;
} {
  const state = new PlatformState(options);
  const now = options.now ?? Date.now;
  const users = options.users ?? [{ username: 'agent@example.com', password: 'secret-password' }];
  const lifetime = options.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS;
  const agents = options.agents ?? users.map((u) => u.username);
  const groups = options.groups ?? ['Support', 'Billing'];
  const types = options.types ?? [{ name: 'Complaint', subs: ['Delivery', 'Billing'] }, { name: 'Question' }];
  const cap = options.maxStreamMessages ?? STREAM_CAP;
  const echo = options.echoSentMessages ?? true;
  let issued = 0;
  let autoTurn = 0;

  // --- identities -----------------------------------------------------------------------------------

  const conversationExists = (uuid: string): boolean => {
    const id = uuid.toLowerCase();
    return (
      options.acceptAnyUuid === true ||
      state.knownConversations.has(id) ||
      state.conversationRecords.some((r) => r.uuid.toLowerCase() === id) ||
      state.streamRecords.some((r) => r.conversation.uuid.toLowerCase() === id)
    );
  };

  const customerExists = (uuid: string): boolean => {
    const id = uuid.toLowerCase();
    const is = (c: { uuid: string } | null | undefined) => c?.uuid.toLowerCase() === id;
    return (
      options.acceptAnyUuid === true ||
      state.knownCustomers.has(id) ||
      state.conversationRecords.some((r) => is(r.customer)) ||
      state.streamRecords.some((r) => is(r.conversation.customer)) ||
      state.feedbacks.some((f) => is(f.customer))
    );
  };

  /** The conversation, which must exist: `missing` is the status the endpoint answers otherwise. */
  const conversation = (uuid: string, missing: 400 | 404): string => {
    if (!conversationExists(uuid)) throw detail(missing, 'Conversation not found.');
    return uuid.toLowerCase();
  };

  const recordsOf = (uuid: string) => state.conversationRecords.filter((r) => r.uuid.toLowerCase() === uuid);

  /** The conversation's latest stream record: its channel and customer are the conversation's. */
  const latestOf = (uuid: string): StreamMessage | undefined => {
    let latest: StreamMessage | undefined;
    let at = Number.NEGATIVE_INFINITY;
    for (const r of state.streamRecords) {
      if (r.conversation.uuid.toLowerCase() !== uuid) continue;
      const t = orderOf(instantMicros(r.created_at));
      if (latest === undefined || t >= at) [latest, at] = [r, t];
    }
    return latest;
  };

  // --- authentication ---------------------------------------------------------------------------------

  const authenticate = (header: string | null): string => {
    const match = header === null ? null : /^JWT\s+(\S+)\s*$/i.exec(header.trim());
    if (!match) {
      throw new Refusal(401, { detail: 'Invalid Authorization header. No credentials provided.' });
    }
    const token = state.tokens.get(match[1]!);
    if (!token) throw new Refusal(401, { detail: 'Invalid auth key.' });
    if (token.expiresAt <= now()) {
      throw new Refusal(401, { detail: 'Signature has expired: invalid auth key.' });
    }
    return token.username;
  };

  const login = ({ body }: RouteContext): Answer => {
    const missing: Record<string, string[]> = {};
    for (const field of ['username', 'password'] as const) {
      const value = body[field];
      if (typeof value !== 'string' || value === '') missing[field] = ['This field is required.'];
    }
    if (Object.keys(missing).length > 0) throw new Refusal(400, missing);
    const index = users.findIndex((u) => u.username === body['username'] && u.password === body['password']);
    const user = users[index];
    if (!user) throw new Refusal(400, { non_field_errors: ['Unable to log in with provided credentials.'] });
    issued++;
    const at = now();
    const token = `sim.${issued}.${globalThis.crypto.randomUUID().replaceAll('-', '')}`;
    state.tokens.set(token, { username: user.username, issuedAt: at, expiresAt: at + lifetime });
    state.logins.push({ username: user.username, token, at });
    return {
      status: 200,
      body: {
        token,
        account: {
          uuid: user.accountUuid ?? `00000000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
        },
        otp: user.otp ?? false,
        client: { device_id: `sim-device-${issued}` },
      },
    };
  };

  // --- stats and reports ------------------------------------------------------------------------------

  const report = ({ query }: RouteContext): Answer => {
    const dateRange = enumParam(query, 'date_range', DATE_RANGES);
    const trunc = enumParam(query, 'trunc', REPORT_TRUNCS) ?? 'day';
    const data = enumParam(query, 'data', REPORT_DATA);
    const groupBased = booleanParam(query, 'group_based', (v) => new Refusal(400, { error: v })) ?? false;
    const [from, to] = dateRange === undefined ? [-Infinity, Infinity] : rangeOf(dateRange, now());
    const within = (iso: string | null | undefined) => {
      const t = iso ? instantMs(iso) : Number.NaN;
      return t >= from && t <= to;
    };
    const key = (iso: string) => bucketOf(instantMs(iso), trunc);
    const out: Record<string, unknown> = {};
    const sections: readonly ReportData[] = data === undefined ? REPORT_DATA : [data];
    for (const section of sections) {
      const seeded = state.reportSections[section];
      if (seeded !== undefined) {
        out[section] = seeded;
        continue;
      }
      if (section === 'messages') {
        const rows = new Buckets(() => ({ outgoing_messages: 0, incoming_messages: 0, total_messages: 0 }));
        for (const m of state.streamRecords) {
          if (!within(m.created_at)) continue;
          const row = rows.at(key(m.created_at), groupBased ? (m.group?.name ?? null) : undefined);
          if (m.agent !== null) row.outgoing_messages++;
          else row.incoming_messages++;
          row.total_messages++;
        }
        out[section] = rows.list();
      } else if (section === 'conversations') {
        const total = new Buckets(() => ({ total: 0, ...(groupBased ? { archived: 0 } : {}) }));
        const typeCounts = new Map<string, { name: string | null; sub: string | null; total: number }>();
        const languages = new Map<string, { lang: string | null; count: number }>();
        for (const c of state.conversationRecords) {
          if (!within(c.created_at)) continue;
          const row = total.at(key(c.created_at), groupBased ? groupName(c.group) : undefined);
          row.total++;
          if (row.archived !== undefined && c.is_archived) row.archived++;
          const [name, sub] = typeNames(c.type);
          const t = typeCounts.get(`${name}\u0000${sub}`) ?? { name, sub, total: 0 };
          t.total++;
          typeCounts.set(`${name}\u0000${sub}`, t);
          const lang = c.language ?? null;
          const l = languages.get(String(lang)) ?? { lang, count: 0 };
          l.count++;
          languages.set(String(lang), l);
        }
        out[section] = {
          total: total.list(),
          types: [...typeCounts.values()],
          language: [...languages.values()],
        };
      } else if (section === 'feedback') {
        const rows = new Buckets(() => ({ total: 0, great: 0, good: 0, soso: 0, bad: 0, terrible: 0 }));
        const scale = ['terrible', 'bad', 'soso', 'good', 'great'] as const;
        for (const f of state.feedbacks) {
          if (!within(f.created_at)) continue;
          const row = rows.at(key(f.created_at), undefined);
          row.total++;
          const grade = f.type === 'emoji' ? scale[f.satisfaction - 1] : undefined;
          if (grade) row[grade]++;
        }
        out[section] = rows.list();
      } else {
        out[section] = [];
      }
      if (section === 'response_times' && state.reportSections.total_response_times === undefined) {
        out['total_response_times'] = groupBased
          ? []
          : { first_response_time: null, avg_response_time: null };
      }
    }
    if (state.reportSections.total_response_times !== undefined && sections.includes('response_times')) {
      out['total_response_times'] = state.reportSections.total_response_times;
    }
    return { status: 200, body: out };
  };

  const conversationsReport = ({ query }: RouteContext): Answer => {
    const created = enumParam(query, 'created_at_range', DATE_RANGES);
    const archivedRange = enumParam(query, 'archived_at_range', DATE_RANGES);
    const inRange = (range: DateRange | undefined, iso: string | null | undefined) => {
      if (range === undefined) return true;
      if (!iso) return false;
      const [from, to] = rangeOf(range, now());
      const t = instantMs(iso);
      return t >= from && t <= to;
    };
    const records = state.conversationRecords.filter(
      (c) => inRange(created, c.created_at) && inRange(archivedRange, c.archived_at),
    );
    return { status: 200, body: records };
  };

  const feedbacksReport = ({ query }: RouteContext): Answer => {
    const type = enumParam(query, 'type', FEEDBACK_TYPES);
    const channel = query.get('channel');
    if (channel !== null && !isUuid(channel)) throw new Refusal(400, { error: 'channel must be a UUID.' });
    const bound = (name: string): number | undefined => {
      const value = query.get(name);
      if (value === null) return undefined;
      const t = instantMs(value);
      if (Number.isNaN(t)) throw new Refusal(400, { error: `${name} must be an ISO 8601 date-time.` });
      return t;
    };
    const start = bound('start_date');
    const end = bound('end_date');
    if (start !== undefined && end !== undefined) {
      if (end < start) throw new Refusal(400, { error: 'end_date is before start_date.' });
      if (end > addMonth(start)) throw detail(400, 'The date range may span at most one month.');
    }
    const feedbacks = state.feedbacks
      .filter((f) => {
        const t = instantMs(f.created_at);
        return (
          (type === undefined || f.type === type) &&
          (channel === null || f.channel?.uuid.toLowerCase() === channel.toLowerCase()) &&
          (start === undefined || t >= start) &&
          (end === undefined || t <= end)
        );
      })
      .sort((a, b) => instantMs(a.created_at) - instantMs(b.created_at));
    return { status: 200, body: { feedbacks } };
  };

  // --- the message stream -----------------------------------------------------------------------------

  const stream = ({ query }: RouteContext): Answer => {
    const refuse = (text: string) => detail(400, text);
    const type = enumParam(query, 'type', STREAM_MESSAGE_TYPES, refuse);
    const sender = enumParam(query, 'sender', STREAM_SENDERS, refuse);
    const uuidParam = (name: string) => {
      const value = query.get(name);
      if (value !== null && !isUuid(value)) throw refuse(`${name} must be a UUID.`);
      return value?.toLowerCase();
    };
    const channel = uuidParam('channel');
    const conversationUuid = uuidParam('conversation_uuid');
    const withCustomer = booleanParam(query, 'conversation_customer', refuse) ?? false;
    const bound = (name: string): number | undefined => {
      const value = query.get(name);
      if (value === null) return undefined;
      const us = instantMicros(value);
      if (Number.isNaN(us)) throw refuse(`${name} must be an ISO 8601 date-time.`);
      return us;
    };
    const gt = bound('created_at__gt');
    const lt = bound('created_at__lt');
    if (gt !== undefined && lt !== undefined && lt - gt > STREAM_MAX_SPAN_US) {
      throw refuse('The date range may span at most one week.');
    }
    const selected = state.streamRecords
      .map((record) => ({ record, us: instantMicros(record.created_at) }))
      .filter(({ record: r, us }) => {
        if (gt !== undefined && !(us > gt)) return false;
        if (lt !== undefined && !(us < lt)) return false;
        if (type !== undefined && r.type !== type) return false;
        if (sender === 'agent' && r.agent === null) return false;
        if (sender === 'customer' && r.agent !== null) return false;
        if (channel !== undefined && r.channel.uuid.toLowerCase() !== channel) return false;
        return conversationUuid === undefined || r.conversation.uuid.toLowerCase() === conversationUuid;
      })
      .sort((a, b) => orderOf(a.us) - orderOf(b.us) || a.record.id - b.record.id)
      .slice(0, cap)
      .map(({ record }) => {
        if (withCustomer || record.conversation.customer === undefined) return record;
        const { customer: _customer, ...rest } = record.conversation;
        return { ...record, conversation: rest };
      });
    return { status: 200, ndjson: selected };
  };

  /** Adds what an agent sent to the stream, as the platform records it. */
  const echoSent = (uuid: string, username: string | null, items: readonly MessageItem[]) => {
    if (!echo) return;
    const previous = latestOf(uuid);
    const known = previous?.conversation.customer ?? recordsOf(uuid)[0]?.customer ?? null;
    const customer = known && {
      uuid: known.uuid,
      name: known.name ?? null,
      email: known.email ?? null,
      phone_number: known.phone_number ?? null,
    };
    let id = state.streamRecords.reduce((max, r) => Math.max(max, r.id), 0);
    const createdAt = new Date(now()).toISOString();
    for (const item of items) {
      const { type, data } = streamShapeOf(item);
      state.streamRecords.push({
        id: ++id,
        created_at: createdAt,
        conversation: {
          uuid,
          ...(customer ? { customer } : {}),
          is_archived: state.archived.has(uuid),
        },
        channel: previous ? { ...previous.channel } : { ...DEFAULT_CHANNEL },
        type,
        agent: username,
        customer: null,
        content: item.content,
        data,
      });
    }
  };

  // --- sending ----------------------------------------------------------------------------------------

  const send = ({ body, username }: RouteContext): Answer => {
    const result = check(sendMessagesBodySchema, body);
    if (!result.ok) throw detail(400, describe(result.issues));
    const uuid = conversation(result.data.uuid, 400);
    const items = result.data.messages as MessageItem[];
    const list = state.sentMessages.get(uuid) ?? [];
    list.push(...items);
    state.sentMessages.set(uuid, list);
    echoSent(uuid, username, items);
    return ok(items.length === 1 ? 'Message sent.' : `${items.length} messages sent.`);
  };

  const batchSend = ({ body, username }: RouteContext): Answer => {
    const conversations = body['conversations'];
    if (Array.isArray(conversations) && conversations.length > BATCH_SEND_MAX) {
      throw detail(400, `Too many conversations: at most ${BATCH_SEND_MAX} per request.`);
    }
    const b = parse(batchBody, body);
    const uuids = b.conversations.map((u) => u.toLowerCase());
    state.batchSends.push({ message: b.message, conversations: uuids, username, at: now() });
    for (const uuid of uuids) {
      if (conversationExists(uuid)) echoSent(uuid, username, [{ type: 'text', content: b.message }]);
    }
    return { status: 200 };
  };

  // --- conversation and customer operations -----------------------------------------------------------

  const archive =
    (archived: boolean) =>
    ({ body }: RouteContext): Answer => {
      const uuid = conversation(parse(uuidBody, body).uuid, 400);
      if (archived) state.archived.add(uuid);
      else state.archived.delete(uuid);
      for (const r of recordsOf(uuid)) {
        if (r.is_archived !== archived) r.archived_at = archived ? new Date(now()).toISOString() : null;
        r.is_archived = archived;
      }
      return ok(archived ? 'Conversation archived.' : 'Conversation unarchived.');
    };

  const assign = ({ body }: RouteContext): Answer => {
    const b = parse(assignBody, body);
    const uuid = conversation(b.uuid, 400);
    let agent: string;
    if ('email' in b.agent) {
      const email = b.agent.email;
      const found = agents.find((a) => a.toLowerCase() === email.toLowerCase());
      if (found === undefined) throw detail(400, 'Agent not found.');
      agent = found;
    } else {
      if (agents.length === 0) throw detail(400, 'No agent is available for auto assignment.');
      agent = agents[autoTurn++ % agents.length]!;
    }
    const current = state.assignments.get(uuid);
    state.assignments.set(uuid, { agent, auto: !('email' in b.agent), group: current?.group ?? null });
    return ok('Conversation assigned.');
  };

  const assignToGroup = ({ body }: RouteContext): Answer => {
    const b = parse(groupBody, body);
    const uuid = conversation(b.uuid, 404);
    const group = groups.find((g) => g === b.group.name);
    if (group === undefined) throw detail(404, 'Group not found.');
    const current = state.assignments.get(uuid);
    state.assignments.set(uuid, { agent: current?.agent ?? null, auto: current?.auto ?? false, group });
    for (const r of recordsOf(uuid)) r.group = group;
    return ok('Conversation assigned to the group.');
  };

  const unassign = ({ body }: RouteContext): Answer => {
    const uuid = conversation(parse(uuidBody, body).uuid, 400);
    state.assignments.delete(uuid);
    return ok('Conversation unassigned.');
  };

  const setType = ({ body }: RouteContext): Answer => {
    const b = parse(typeBody, body);
    const uuid = conversation(b.uuid, 404);
    const definition = types.find((t) => t.name === b.type.name);
    if (!definition) throw detail(404, 'Type not found.');
    const sub = b.type.sub ?? null;
    const subs = definition.subs ?? [];
    if (sub !== null && !subs.includes(sub)) throw detail(404, 'Sub-type not found.');
    if (sub === null && subs.length > 0) throw detail(405, 'The main type cannot be set: choose a sub-type.');
    const channel = latestOf(uuid)?.channel;
    if (
      definition.channels !== undefined &&
      channel !== undefined &&
      !definition.channels.some((c) => c.toLowerCase() === channel.uuid.toLowerCase())
    ) {
      throw detail(405, 'The type is not allowed for the channel.');
    }
    state.types.set(uuid, { name: definition.name, sub });
    for (const r of recordsOf(uuid)) r.type = { main_type: definition.name, sub_type1: sub, sub_type2: null };
    return ok('Conversation type set.');
  };

  const setCustomFields = ({ body }: RouteContext): Answer => {
    const b = parse(customFieldsBody, body);
    const uuid = conversation(b.uuid, 404);
    const values = customFieldValues(b.custom_fields, options.conversationCustomFields);
    state.customFields.set(uuid, { ...state.customFields.get(uuid), ...values });
    return ok('Custom fields updated.');
  };

  const updateCustomer = ({ body }: RouteContext): Answer => {
    const b = parse(customerBody, body);
    if (!customerExists(b.uuid)) throw detail(400, 'Customer not found.');
    const uuid = b.uuid.toLowerCase();
    const current = state.customers.get(uuid) ?? { fields: {}, customFields: {} };
    const { custom_fields: wrapped, ...plain } = b.customer;
    if (wrapped !== undefined) {
      if (Object.keys(plain).length > 0) {
        throw detail(400, 'Send customer fields and customer custom fields in separate requests.');
      }
      const fields = parse(z.record(z.string(), z.unknown()), wrapped, 'customer.custom_fields');
      const values = customFieldValues(fields, options.customerCustomFields);
      state.customers.set(uuid, { ...current, customFields: { ...current.customFields, ...values } });
      return ok('Customer custom fields updated.');
    }
    const entries = Object.entries(plain);
    if (entries.length === 0) throw detail(400, 'customer: no field to update.');
    const fields = { ...current.fields };
    for (const [key, value] of entries) {
      const name = CUSTOMER_FIELDS.find((f) => f === key);
      if (name === undefined) throw detail(400, `customer.${key}: unknown field.`);
      if (typeof value !== 'string' && value !== null)
        throw detail(400, `customer.${key}: must be a string.`);
      fields[name] = value;
    }
    state.customers.set(uuid, { ...current, fields });
    for (const { customer } of state.conversationRecords) {
      if (!customer || customer.uuid.toLowerCase() !== uuid) continue;
      for (const f of ['name', 'email', 'crm'] as const) if (f in fields) customer[f] = fields[f];
    }
    return ok('Customer updated.');
  };

  const routes: Route[] = [
    { host: 'platform', method: 'POST', path: '/jwt/', open: true, handle: login },
    { host: 'stream', method: 'GET', path: '/stats', handle: () => ({ status: 200, body: state.channels }) },
    { host: 'platform', method: 'GET', path: '/reports/', handle: report },
    { host: 'platform', method: 'GET', path: '/reports/conversations/', handle: conversationsReport },
    { host: 'platform', method: 'GET', path: '/reports/feedbacks/', handle: feedbacksReport },
    { host: 'stream', method: 'GET', path: STREAM_PATH, handle: stream },
    { host: 'platform', method: 'POST', path: '/batch_send_message/', handle: batchSend },
    { host: 'platform', method: 'POST', path: '/v2/messages/', handle: send },
    { host: 'platform', method: 'POST', path: '/v2/conversations/archive/', handle: archive(true) },
    { host: 'platform', method: 'POST', path: '/v2/conversations/unarchive/', handle: archive(false) },
    { host: 'platform', method: 'POST', path: '/v2/conversations/assign/', handle: assign },
    { host: 'platform', method: 'POST', path: '/v2/conversations/assign_to_group/', handle: assignToGroup },
    { host: 'platform', method: 'POST', path: '/v2/conversations/unassign/', handle: unassign },
    { host: 'platform', method: 'POST', path: '/v2/conversations/type/', handle: setType },
    { host: 'platform', method: 'POST', path: '/v2/conversations/custom_fields/', handle: setCustomFields },
    { host: 'platform', method: 'POST', path: '/v2/customers/', handle: updateCustomer },
  ];

  const bases: Record<Host, string> = {
    platform: options.platformUrl.replace(/\/+$/, ''),
    stream: options.streamUrl.replace(/\/+$/, ''),
  };

  const takeFault = (route: Route): Answer | undefined => {
    const i = state.faults.findIndex(
      (f) => f.path === route.path && (f.method === undefined || f.method === route.method),
    );
    const fault = state.faults[i];
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) state.faults.splice(i, 1);
    return { status: fault.status, body: fault.body ?? { detail: 'Simulated failure.' } };
  };

  const dispatch = async (route: Route, request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const entry: PlatformRequest = {
      host: route.host,
      method: route.method,
      path: route.path,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      username: null,
    };
    state.requests.push(entry);
    let answer: Answer;
    try {
      const username = route.open ? null : authenticate(request.headers.get('authorization'));
      entry.username = username;
      answer =
        takeFault(route) ??
        route.handle({
          query: url.searchParams,
          body: route.method === 'POST' ? await jsonObject(request) : {},
          username,
        });
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      answer = {
        status: error.status,
        body: error.body,
        ...(error.status === 401 ? { headers: { 'www-authenticate': 'JWT realm="api"' } } : {}),
      };
    }
    entry.status = answer.status;
    return toResponse(answer);
  };

  const handlers: RequestHandler[] = routes.map((route) => {
    const url = `${bases[route.host]}${route.path}`;
    const resolver = ({ request }: { request: Request }) => dispatch(route, request);
    return route.method === 'GET' ? http.get(url, resolver) : http.post(url, resolver);
  });

  if (options.catchAll ?? true) {
    const hosts: Host[] = bases.stream === bases.platform ? ['platform'] : ['platform', 'stream'];
    for (const host of hosts) {
      handlers.push(
        http.all(`${bases[host]}/*`, ({ request }) => {
          const path = new URL(request.url).pathname.slice(
            new URL(bases[host]).pathname.replace(/\/$/, '').length,
          );
          const allowed = routes
            .filter((r) => r.path === path && (r.host === host || bases[r.host] === bases[host]))
            .map((r) => r.method);
          const answer: Answer =
            allowed.length > 0
              ? {
                  status: 405,
                  body: { detail: `Method "${request.method}" not allowed.` },
                  headers: { allow: allowed.join(', ') },
                }
              : { status: 404, body: { detail: 'Not found.' } };
          state.requests.push({
            host,
            method: request.method,
            path,
            query: Object.fromEntries(new URL(request.url).searchParams),
            status: answer.status,
            username: null,
          });
          return toResponse(answer);
        }),
      );
    }
  }

  return { handlers, state };
}

// ---------------------------------------------------------------------------------------------------------
// Bodies

const uuidBody = z.looseObject({ uuid: uuidSchema });
const assignBody = z.looseObject({
  uuid: uuidSchema,
  agent: z.union([z.strictObject({ auto: z.literal(true) }), z.strictObject({ email: z.string().min(1) })], {
    error: 'agent must be { auto: true } or { email }',
  }),
});
const groupBody = z.looseObject({ uuid: uuidSchema, group: z.looseObject({ name: z.string().min(1) }) });
const typeBody = z.looseObject({
  uuid: uuidSchema,
  type: z.looseObject({ name: z.string().min(1), sub: z.string().min(1).nullable().optional() }),
});
const customFieldsBody = z.looseObject({
  uuid: uuidSchema,
  custom_fields: z.record(z.string(), z.unknown()),
});
const customerBody = z.looseObject({ uuid: uuidSchema, customer: z.record(z.string(), z.unknown()) });
const batchBody = z.looseObject({ message: z.string().min(1), conversations: z.array(uuidSchema).min(1) });

function parse<S extends z.ZodType>(schema: S, body: unknown, prefix?: string): z.output<S> {
  const result = check(schema, body);
  if (result.ok) return result.data;
  const issues = prefix ? result.issues.map((i) => ({ ...i, path: [prefix, ...i.path] })) : result.issues;
  throw detail(400, describe(issues));
}

function describe(issues: readonly { path: (string | number)[]; message: string }[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`)
    .join('; ');
}

/** `{ identifier: { value } }` checked against the definitions; 400 `{ error }` or `{ info, error }`. */
function customFieldValues(
  wrapped: Record<string, unknown>,
  definitions: Readonly<Record<string, CustomFieldKind>> | undefined,
): Record<string, CustomFieldValue> {
  const entries = Object.entries(wrapped);
  if (entries.length === 0) throw new Refusal(400, { error: 'No custom field given.' });
  const out: Record<string, CustomFieldValue> = {};
  for (const [id, holder] of entries) {
    if (typeof holder !== 'object' || holder === null || !('value' in holder)) {
      throw new Refusal(400, { error: `Custom field ${id} must be sent as { value }.` });
    }
    const value: unknown = holder.value;
    const kind = definitions?.[id];
    if (definitions !== undefined && kind === undefined) {
      throw new Refusal(400, { error: `Custom field not found: ${id}.` });
    }
    const scalar =
      value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    const fits =
      scalar &&
      (kind === undefined ||
        value === null ||
        (kind === 'text' && typeof value === 'string') ||
        (kind === 'number' && typeof value === 'number') ||
        (kind === 'boolean' && typeof value === 'boolean') ||
        (Array.isArray(kind) && typeof value === 'string' && kind.includes(value)));
    if (!fits) {
      const expected = Array.isArray(kind) ? `one of ${kind.join(', ')}` : `a ${kind ?? 'scalar'} value`;
      throw new Refusal(400, { info: `${id} expects ${expected}.`, error: 'Invalid custom field value.' });
    }
    out[id] = value;
  }
  return out;
}

async function jsonObject(request: Request): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(await request.text());
  } catch {
    throw detail(400, 'JSON parse error.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw detail(400, 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

function toResponse(answer: Answer): Response {
  const headers: Record<string, string> = { ...answer.headers };
  if (answer.ndjson !== undefined) {
    headers['content-type'] = 'application/x-ndjson';
    return new HttpResponse(ndjson(answer.ndjson), { status: answer.status, headers });
  }
  if (answer.body === undefined) return new HttpResponse(null, { status: answer.status, headers });
  headers['content-type'] = 'application/json';
  return new HttpResponse(JSON.stringify(answer.body), { status: answer.status, headers });
}

/** One line per record, produced as the client reads (500 records a chunk). */
function ndjson(records: readonly unknown[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= records.length) {
        controller.close();
        return;
      }
      let chunk = '';
      for (const end = Math.min(i + 500, records.length); i < end; i++)
        chunk += `${JSON.stringify(records[i])}\n`;
      controller.enqueue(encoder.encode(chunk));
    },
  });
}

// ---------------------------------------------------------------------------------------------------------
// Query values, dates and records

function enumParam<const T extends readonly string[]>(
  query: URLSearchParams,
  name: string,
  values: T,
  refuse: (text: string) => Refusal = (text) => new Refusal(400, { error: text }),
): T[number] | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  const found = values.find((v) => v === value);
  if (found === undefined) {
    throw refuse(`Undefined ${name}: '${value}'. Expected one of: ${values.join(', ')}.`);
  }
  return found;
}

function booleanParam(
  query: URLSearchParams,
  name: string,
  refuse: (text: string) => Refusal,
): boolean | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw refuse(`Undefined ${name}: '${value}'. Expected true or false.`);
}

/**
 * Epoch microseconds of an ISO 8601 string, `NaN` when unreadable. The platform compares its bounds to the
 * microsecond, which a `Date` cannot hold.
 */
function instantMicros(value: string): number {
  const ms = instantMs(value);
  if (Number.isNaN(ms)) return Number.NaN;
  const fraction = /T\d{2}:\d{2}:\d{2}[.,](\d+)/i.exec(value)?.[1] ?? '';
  return ms * 1000 + Number((fraction.slice(3, 6) || '0').padEnd(3, '0'));
}

/** Unreadable timestamps sort last. */
function orderOf(us: number): number {
  return Number.isNaN(us) ? Number.POSITIVE_INFINITY : us;
}

/** A relative range as inclusive epoch-ms bounds, in UTC. */
function rangeOf(range: DateRange, now: number): [number, number] {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const today = Date.UTC(y, m, d.getUTCDate());
  const monday = today - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  switch (range) {
    case 'today':
      return [today, now];
    case 'yesterday':
      return [today - DAY_MS, today - 1];
    case 'last_7':
      return [now - 7 * DAY_MS, now];
    case 'last_14':
      return [now - 14 * DAY_MS, now];
    case 'last_30':
      return [now - 30 * DAY_MS, now];
    case 'last_week':
      return [monday - 7 * DAY_MS, monday - 1];
    case 'last_month':
      return [Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1) - 1];
    case 'wtd':
      return [monday, now];
    case 'mtd':
      return [Date.UTC(y, m, 1), now];
    case 'ytd':
      return [Date.UTC(y, 0, 1), now];
  }
}

/** The same day and time one calendar month later (clamped to the month's last day, as `relativedelta`). */
function addMonth(ms: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(
    y,
    m,
    Math.min(d.getUTCDate(), last),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
}

/** The `date` of a report entry: the start of the `trunc` bucket. */
function bucketOf(ms: number, trunc: ReportTrunc): string {
  if (Number.isNaN(ms)) return 'unknown';
  const d = new Date(ms);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  switch (trunc) {
    case 'hour':
      return `${d.toISOString().slice(0, 13)}:00:00Z`;
    case 'day':
      return day(ms);
    case 'week':
      return day(
        Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY_MS,
      );
    case 'month':
      return `${d.toISOString().slice(0, 7)}-01`;
    case 'year':
      return `${d.getUTCFullYear()}-01-01`;
  }
}

/** Report rows by date (and group, for group-based reports), in date order. */
class Buckets<T extends object> {
  readonly #rows = new Map<string, { date: string; group?: string | null } & T>();
  readonly #make: () => T;

  constructor(make: () => T) {
    this.#make = make;
  }

  /** `group` `undefined`: the report is not group-based. */
  at(date: string, group: string | null | undefined): { date: string; group?: string | null } & T {
    const key = `${date}\u0000${group}`;
    let row = this.#rows.get(key);
    if (!row) {
      row = { date, ...(group === undefined ? {} : { group }), ...this.#make() };
      this.#rows.set(key, row);
    }
    return row;
  }

  list(): ({ date: string; group?: string | null } & T)[] {
    return [...this.#rows.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }
}

function groupName(group: ConversationRecord['group']): string | null {
  if (group === undefined || group === null) return null;
  return typeof group === 'string' ? group : (group.name ?? null);
}

function typeNames(type: ConversationRecord['type']): [string | null, string | null] {
  if (type === undefined || type === null) return [null, null];
  if (typeof type === 'string') return [type, null];
  return [type.main_type ?? null, type.sub_type1 ?? null];
}

/** How the stream shows an item sent with `/v2/messages/`. */
function streamShapeOf(item: MessageItem): { type: string; data: StreamMessage['data'] } {
  switch (item.type) {
    case 'image':
    case 'video':
    case 'document':
      return { type: 'media', data: { url: item.url, type: item.type } };
    case 'location':
      return { type: 'location', data: { lat: item.lat, lng: item.lng } };
    default:
      return { type: 'text', data: null };
  }
}
