import type { StreamMessage } from '../../platform/stream.schema.js';
import { detail } from './answer.js';
import { instantMicros, orderOf } from './dates.js';
import {
  type ConversationTypeDefinition,
  type PlatformHandlersOptions,
  PlatformState,
  type PlatformUser,
} from './state.js';

/** The platform's tokens are valid for 24 hours. */
const DEFAULT_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** The most records one stream request returns. */
const STREAM_CAP = 100_000;

/**
 * What every simulated route reads: the options with their defaults resolved, the state, and the lookups of
 * conversations and customers that several resources share.
 */
export class World {
  readonly state: PlatformState;
  readonly now: () => number;
  readonly users: readonly PlatformUser[];
  readonly tokenLifetimeMs: number;
  readonly agents: readonly string[];
  readonly groups: readonly string[];
  readonly types: readonly ConversationTypeDefinition[];
  readonly streamCap: number;
  readonly echoSentMessages: boolean;
  /** Logins so far: numbers tokens and device ids. */
  issued = 0;
  /** Round robin of auto assignment. */
  autoTurn = 0;

  constructor(readonly options: PlatformHandlersOptions) {
    this.state = new PlatformState(options);
    this.now = options.now ?? Date.now;
    this.users = options.users ?? [{ username: 'agent@example.com', password: 'secret-password' }];
    this.tokenLifetimeMs = options.tokenLifetimeMs ?? DEFAULT_TOKEN_LIFETIME_MS;
    this.agents = options.agents ?? this.users.map((u) => u.username);
    this.groups = options.groups ?? ['Support', 'Billing'];
    this.types = options.types ?? [
      { name: 'Complaint', subs: ['Delivery', 'Billing'] },
      { name: 'Question' },
    ];
    this.streamCap = options.maxStreamMessages ?? STREAM_CAP;
    this.echoSentMessages = options.echoSentMessages ?? true;
  }

  conversationExists(uuid: string): boolean {
    const id = uuid.toLowerCase();
    const { state } = this;
    return (
      this.options.acceptAnyUuid === true ||
      state.knownConversations.has(id) ||
      state.conversationRecords.some((r) => r.uuid.toLowerCase() === id) ||
      state.streamRecords.some((r) => r.conversation.uuid.toLowerCase() === id)
    );
  }

  customerExists(uuid: string): boolean {
    const id = uuid.toLowerCase();
    const is = (c: { uuid: string } | null | undefined) => c?.uuid.toLowerCase() === id;
    const { state } = this;
    return (
      this.options.acceptAnyUuid === true ||
      state.knownCustomers.has(id) ||
      state.conversationRecords.some((r) => is(r.customer)) ||
      state.streamRecords.some((r) => is(r.conversation.customer)) ||
      state.feedbacks.some((f) => is(f.customer))
    );
  }

  /** The conversation, which must exist: `missing` is the status the endpoint answers otherwise. */
  conversation(uuid: string, missing: 400 | 404): string {
    if (!this.conversationExists(uuid)) throw detail(missing, 'Conversation not found.');
    return uuid.toLowerCase();
  }

  recordsOf(uuid: string) {
    return this.state.conversationRecords.filter((r) => r.uuid.toLowerCase() === uuid);
  }

  /** The conversation's latest stream record: its channel and customer are the conversation's. */
  latestOf(uuid: string): StreamMessage | undefined {
    let latest: StreamMessage | undefined;
    let at = Number.NEGATIVE_INFINITY;
    for (const r of this.state.streamRecords) {
      if (r.conversation.uuid.toLowerCase() !== uuid) continue;
      const t = orderOf(instantMicros(r.created_at));
      if (latest === undefined || t >= at) [latest, at] = [r, t];
    }
    return latest;
  }
}
