/**
 * The events `parseWebhook` produces: one per incoming message, status, template update and account update,
 * discriminated by `kind`. Wire objects keep the shape the schemas infer; events add what the SDK derives
 * (parsed timestamp, matched sender, idempotency key).
 */
import type {
  AccountUpdateValue,
  KnownMessage,
  ReactionMessage,
  TemplateStatusValue,
  WebhookContact,
  WebhookMetadata,
  WebhookStatus,
} from './schemas.js';

/** Why part of an envelope did not fit a schema. Never carries payload content: a location and a reason. */
export interface WebhookIssue {
  /** Location inside the object that failed, e.g. `['image', 'id']`. */
  path: (string | number)[];
  /** Zod's issue code (`invalid_type`, ...). */
  code: string;
  message: string;
}

/**
 * An incoming message of a type the SDK does not know (new types appear over time), or of a documented type whose
 * content lacks what the SDK requires of it or holds a field of the wrong JSON type (a `list_reply` without `title`,
 * a latitude sent as a string). Nothing is dropped: `raw` is the message exactly as received and `issues` names each
 * missing or mistyped field.
 */
export interface UnknownMessage {
  type: 'unknown';
  /** The `type` the message carried, e.g. `'poll'`. */
  originalType: string;
  /** The message's `wamid`. */
  id: string;
  /** The sender's phone number, when the message carried one as a string (see `customerOf`). */
  from: string | undefined;
  /** The sender's business-scoped user id, when the message carried one as a string. */
  from_user_id: string | undefined;
  timestamp: string | number | undefined;
  /** The message object as received. */
  raw: Readonly<Record<string, unknown>>;
  /** Empty for a type the SDK does not know; for a documented type, why it did not validate. */
  issues: WebhookIssue[];
}

/** An incoming message: one variant per documented type, discriminated by `type`, plus `unknown`. */
export type IncomingMessage = KnownMessage | UnknownMessage;

interface EventBase {
  /** `entry[].id`: the business account. `undefined` only when the envelope did not carry one. */
  businessAccountId: string | undefined;
  /** `entry[].changes[].field`. */
  field: string;
  /**
   * Stable across redeliveries of the same event; the key the webhook handlers dedupe on.
   * Message: the `wamid`. Status: `<wamid>:<status>` (one message legitimately yields sent, delivered, read).
   * Template update: `template:<id>:<event>:<hash>`; account update: `account:<event>:<hash>`; unknown:
   * `unknown:<field>:<hash>`, where the hash covers the entry's `time` (when sent) and the value, so an
   * identical redelivery maps to the same key while, say, a template approved again after a pause does not.
   */
  idempotencyKey: string;
}

/** A user sent a message to the business number. */
export interface MessageEvent extends EventBase {
  kind: 'message';
  field: 'messages';
  /**
   * The receiving business number (`phone_number_id` for media download and routing). Always there: a change
   * without a valid `metadata` is delivered as an `unknown` event instead.
   */
  metadata: WebhookMetadata;
  /**
   * The sender: the contact whose `wa_id` equals `message.from` (or whose `user_id` equals `message.from_user_id`),
   * else the change's first contact. `customerOf(event)` reads the sender's identity from both.
   */
  contact: WebhookContact | undefined;
  message: IncomingMessage;
  /**
   * Unix seconds, parsed. `undefined` when the message carried no timestamp or one that is not a number (the
   * event is still delivered; `timestampRaw` keeps what was sent).
   */
  timestamp: number | undefined;
  /** The timestamp exactly as sent (a number is turned into its string form). */
  timestampRaw: string | undefined;
}

/** An outbound message changed state (sent, delivered, read, failed, or a value the SDK does not know yet). */
export interface StatusEvent extends EventBase {
  kind: 'status';
  field: 'messages';
  /** The business number that sent the message. Always there, as for message events. */
  metadata: WebhookMetadata;
  status: WebhookStatus;
  /** Unix seconds of the change, parsed; `undefined` when missing or not a number. Order statuses by this. */
  timestamp: number | undefined;
  timestampRaw: string | undefined;
}

/** A template was approved, rejected, paused, flagged or is pending deletion. */
export interface TemplateStatusEvent extends EventBase {
  kind: 'template_status';
  field: 'message_template_status_update';
  template: TemplateStatusValue;
}

/** An account or phone number update (for example a ban). */
export interface AccountUpdateEvent extends EventBase {
  kind: 'account_update';
  field: 'account_update';
  account: AccountUpdateValue;
}

/**
 * Part of an envelope the SDK could not type, delivered rather than dropped:
 * - `unknown_field`: a change whose `field` the SDK does not know (raw = the change's `value`);
 * - `invalid_item`: a message lacking `id`/`type`, a status lacking `id`, `status` or `timestamp` (or with a field of
 *   the wrong JSON type), a message or status in a change without `value.metadata.phone_number_id`, a template or
 *   account value lacking what identifies it (raw = that object, `issues` says why; docs/webhooks.md, "What is
 *   required");
 * - `unrecognized_value`: a `messages` change that carried neither `messages` nor `statuses` (raw = the value).
 */
export interface UnknownEvent extends EventBase {
  kind: 'unknown';
  reason: 'unknown_field' | 'invalid_item' | 'unrecognized_value';
  /** Where the raw object sits in the envelope, e.g. `['entry', 0, 'changes', 1, 'value', 'statuses', 3]`. */
  path: (string | number)[];
  /** The object as received. */
  raw: unknown;
  issues: WebhookIssue[];
}

/** Every event `parseWebhook` produces, discriminated by `kind`. */
export type WebhookEvent =
  | MessageEvent
  | StatusEvent
  | TemplateStatusEvent
  | AccountUpdateEvent
  | UnknownEvent;
/** The `kind` of a `WebhookEvent`. */
export type WebhookEventKind = WebhookEvent['kind'];

/**
 * Whether a reaction message removes a reaction: the spec sends an empty emoji for that, and real deliveries also
 * leave `emoji` out.
 *
 * @example
 * if (event.message.type === 'reaction' && isReactionRemoved(event.message)) unreact(event.message.reaction.message_id);
 */
export function isReactionRemoved(message: ReactionMessage): boolean {
  const emoji = (message as { reaction?: { emoji?: unknown } } | null | undefined)?.reaction?.emoji;
  return emoji === undefined || emoji === '';
}
