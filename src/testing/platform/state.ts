import type { CustomFieldValue } from '../../platform/fields.js';
import type { MessageItem } from '../../platform/messages.schema.js';
import type { ConversationRecord, Feedback, ReportData } from '../../platform/reports.schema.js';
import type { StatsChannel } from '../../platform/stats.js';
import type { StreamMessage } from '../../platform/stream.schema.js';

/**
 * What the platform simulator holds and is configured with: its options, the records it was seeded with and
 * the effects the code under test had (`PlatformState`).
 */

export const CUSTOMER_FIELDS = [
  'name',
  'crm',
  'telegram',
  'facebook',
  'email',
  'instagram',
  'twitter',
] as const;
export const DEFAULT_CHANNEL = {
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
  users?: readonly PlatformUser[] | undefined;
  /** How long a token is accepted after its login. Default 24 hours. */
  tokenLifetimeMs?: number | undefined;
  /** The server's clock (epoch ms): token expiry, report date ranges, timestamps of what is sent. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Records of the message stream (any order: the stream answers them in `created_at` order). */
  messages?: readonly StreamMessage[] | undefined;
  /** Records of `/reports/conversations/`. Their UUIDs and customers are known to the `/v2` operations. */
  conversations?: readonly ConversationRecord[] | undefined;
  /** Further conversation UUIDs the `/v2` operations accept (besides those of `conversations` and `messages`). */
  conversationUuids?: readonly string[] | undefined;
  /** Further customer UUIDs `/v2/customers/` accepts (besides those of the seeded records). */
  customerUuids?: readonly string[] | undefined;
  /** Accept every well-formed UUID as an existing conversation and customer. Default `false`. */
  acceptAnyUuid?: boolean | undefined;
  /** Channel objects of `GET {stream_url}/stats`. Default none. */
  channels?: readonly StatsChannel[] | undefined;
  /** Records of `/reports/feedbacks/`. */
  feedbacks?: readonly Feedback[] | undefined;
  /** `/reports/` sections served as given; the others are computed from messages, conversations and feedbacks. */
  reportSections?: ReportSections | undefined;
  /** Agent emails `assign` accepts (others: 400). Default: the usernames of `users`. */
  agents?: readonly string[] | undefined;
  /** Agent group names `assign_to_group` accepts (others: 404). Default `['Support', 'Billing']`. */
  groups?: readonly string[] | undefined;
  /** Conversation types. Default: `Complaint` (sub-types `Delivery`, `Billing`) and `Question` (none). */
  types?: readonly ConversationTypeDefinition[] | undefined;
  /** Custom fields of conversations, by identifier. Default: any identifier, any scalar value. */
  conversationCustomFields?: Readonly<Record<string, CustomFieldKind>> | undefined;
  /** Custom fields of customers, by identifier. Default: any identifier, any scalar value. */
  customerCustomFields?: Readonly<Record<string, CustomFieldKind>> | undefined;
  /** Records per stream request. Default 100,000 (the documented cap); lower it to test continuation. */
  maxStreamMessages?: number | undefined;
  /** Messages sent (`/v2/messages/`, batch send) are added to the stream as agent messages. Default `true`. */
  echoSentMessages?: boolean | undefined;
  /** Answer 404 (unknown path) and 405 (wrong method) below both URLs, as the server does. Default `true`. */
  catchAll?: boolean | undefined;
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
  method?: 'GET' | 'POST' | undefined;
  status: number;
  /** JSON body. Default `{ detail: 'Simulated failure.' }`. */
  body?: unknown;
  /** How many requests get it. Default 1. */
  times?: number | undefined;
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
    // `times: undefined` is the default 1, as when left out (a spread under the default would keep the undefined).
    this.faults.push({ ...fault, times: fault.times ?? 1 });
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
