/**
 * Typed builders of webhook envelopes, for tests (the SDK's own and the application's). Every builder returns a
 * plain object the schemas accept; pass overrides to shape it. Default ids are unique per call, so envelopes built
 * twice are different events unless the test says otherwise; timestamps are now unless given (`timestamp`, see
 * `fixtureTimestamp`), so a bot's 24-hour window is open for them; numbers and names are fictitious.
 *
 * To be re-exported from `wa-gateway-sdk/testing`.
 */
import { ConfigurationError } from '../core/errors.js';
import type { AudioMessage } from '../webhooks/messages/audio.js';
import type { ButtonMessage } from '../webhooks/messages/button.js';
import type { ContactsMessage } from '../webhooks/messages/contacts.js';
import type { DocumentMessage } from '../webhooks/messages/document.js';
import type { ImageMessage } from '../webhooks/messages/image.js';
import type { KnownMessage, KnownMessageType } from '../webhooks/messages/index.js';
import type { InteractiveMessage } from '../webhooks/messages/interactive.js';
import type { LocationMessage } from '../webhooks/messages/location.js';
import type { OrderMessage } from '../webhooks/messages/order.js';
import type { ReactionMessage } from '../webhooks/messages/reaction.js';
import type { StickerMessage } from '../webhooks/messages/sticker.js';
import type { TextMessage } from '../webhooks/messages/text.js';
import type { VideoMessage } from '../webhooks/messages/video.js';
import type {
  AccountUpdateValue,
  TemplateStatusValue,
  WebhookContact,
  WebhookEnvelope,
  WebhookMetadata,
  WebhookStatus,
} from '../webhooks/schemas.js';

/** The business number fixtures use. */
export const FIXTURE_METADATA: WebhookMetadata = {
  display_phone_number: '15550009999',
  phone_number_id: '100000000000001',
};
/** The business account id fixtures use. */
export const FIXTURE_BUSINESS_ACCOUNT_ID = '200000000000002';
/** A message of a type the spec does not document (default `poll`), as a newer upstream would send it. */
export function unknownTypeMessage(
  type = 'poll',
  extra: Record<string, unknown> = { poll: { question: 'Lunch?', options: ['Yes', 'No'] } },
): { id: string; from: string; timestamp: string | number; type: string } & Record<string, unknown> {
  return { ...base(), type, ...extra };
}

/** The default sender contact, matching `FIXTURE_SENDER`. */
export function contact(waId: string = FIXTURE_SENDER, name = 'Fixture User'): WebhookContact {
  return { profile: { name }, wa_id: waId };
}

type Change = WebhookEnvelope['entry'][number]['changes'][number];
type Entry = WebhookEnvelope['entry'][number];

/** One `changes[]` item. */
export function change(field: string, value: Record<string, unknown>): Change {
  return { field, value };
}

/** One `entry[]` item. */
export function entry(changes: Change[], id: string = FIXTURE_BUSINESS_ACCOUNT_ID): Entry {
  return { id, changes };
}

/**
 * An envelope around the given entries (several entries make a multi-entry envelope).
 *
 * @example
 * const body = envelope([entry([messagesChange({ messages: [textMessage()] }), messagesChange({ statuses: [statusObject('read')] })])]);
 */
export function envelope(entries: Entry[]): WebhookEnvelope {
  return { object: 'whatsapp_business_account', entry: entries };
}

/** A `messages` change; contacts default to one per distinct sender. */
export function messagesChange(
  options: {
    messages?: ReadonlyArray<{ from?: string | undefined } & Record<string, unknown>> | undefined;
    statuses?: readonly WebhookStatus[] | undefined;
    contacts?: WebhookContact[] | undefined;
    metadata?: WebhookMetadata | undefined;
  } = {},
): Change {
  const value: Record<string, unknown> = {
    messaging_product: 'whatsapp',
    metadata: options.metadata ?? FIXTURE_METADATA,
  };
  if (options.messages) {
    const senders = [...new Set(options.messages.map((m) => m.from ?? FIXTURE_SENDER))];
    value['contacts'] = options.contacts ?? senders.map((s) => contact(s));
    value['messages'] = [...options.messages];
  } else if (options.contacts) {
    value['contacts'] = options.contacts;
  }
  if (options.statuses) value['statuses'] = [...options.statuses];
  return change('messages', value);
}

/**
 * An envelope with incoming messages (one entry, one change).
 *
 * @example
 * const body = JSON.stringify(messageEnvelope(textMessage()));
 */
export function messageEnvelope(
  messages:
    | ({ from?: string | undefined } & Record<string, unknown>)
    | ReadonlyArray<{ from?: string | undefined } & Record<string, unknown>>,
  options: {
    contacts?: WebhookContact[] | undefined;
    metadata?: WebhookMetadata | undefined;
    businessAccountId?: string | undefined;
  } = {},
): WebhookEnvelope {
  const list = Array.isArray(messages)
    ? messages
    : [messages as { from?: string | undefined } & Record<string, unknown>];
  return envelope([
    entry(
      [
        messagesChange({
          messages: list,
          ...(options.contacts ? { contacts: options.contacts } : {}),
          ...(options.metadata ? { metadata: options.metadata } : {}),
        }),
      ],
      options.businessAccountId,
    ),
  ]);
}

/** An envelope with status objects (one entry, one change). */
export function statusEnvelope(
  statuses: WebhookStatus | readonly WebhookStatus[],
  options: { metadata?: WebhookMetadata | undefined; businessAccountId?: string | undefined } = {},
): WebhookEnvelope {
  const list = Array.isArray(statuses) ? statuses : [statuses as WebhookStatus];
  return envelope([
    entry(
      [messagesChange({ statuses: list, ...(options.metadata ? { metadata: options.metadata } : {}) })],
      options.businessAccountId,
    ),
  ]);
}

/** An envelope with a `message_template_status_update` change: no metadata, no contacts. */
export function templateStatusEnvelope(
  overrides: Partial<TemplateStatusValue> = {},
  options: { businessAccountId?: string | undefined } = {},
): WebhookEnvelope {
  return envelope([
    entry(
      [change('message_template_status_update', templateStatusValue(overrides))],
      options.businessAccountId,
    ),
  ]);
}

/** An envelope with an `account_update` change: no metadata, no contacts. */
export function accountUpdateEnvelope(
  overrides: Partial<AccountUpdateValue> = {},
  options: { businessAccountId?: string | undefined } = {},
): WebhookEnvelope {
  return envelope([
    entry([change('account_update', accountUpdateValue(overrides))], options.businessAccountId),
  ]);
}

/**
 * Every documented incoming message type, one fixture each, keyed by type (interactive in both forms). Typed against
 * `messageSchemas`: a type added there without a fixture here does not compile.
 */
export function everyMessageType(): Record<string, { type: string; id: string } & Record<string, unknown>> {
  return {
    text: textMessage(),
    image: imageMessage(),
    audio: audioMessage(),
    document: documentMessage(),
    video: videoMessage(),
    sticker: stickerMessage(),
    location: locationMessage(),
    contacts: contactsMessage(),
    button_reply: buttonReplyMessage(),
    list_reply: listReplyMessage(),
    reaction: reactionMessage(),
    order: orderMessage(),
    button: buttonMessage(),
  } satisfies Record<Exclude<KnownMessageType, 'interactive'> | 'button_reply' | 'list_reply', KnownMessage>;
}

// What every builder shares (unique ids, the fixed sender, the time: now unless given), then one builder per kind, A to Z.

let sequence = 0;

/** A new, unique `wamid`-like identifier. */
export function fixtureId(prefix = 'wamid.FIXTURE'): string {
  sequence += 1;
  return `${prefix}${sequence.toString().padStart(6, '0')}`;
}

/** The sender number fixtures use unless told otherwise. */
export const FIXTURE_SENDER = '15550001111';
/**
 * A fixed Unix time in seconds (2023-11-14), as a string like the wire: pass it as `timestamp` where a test needs
 * a time that never moves. Builders default to now (see `fixtureTimestamp`), not to this.
 */
export const FIXTURE_TIMESTAMP = '1700000000';

/**
 * A webhook timestamp (Unix seconds, as a string like the wire) for `at`, a `Date` or milliseconds since the epoch;
 * default now. What every builder stamps by default: a message from 2023 would be outside the 24-hour service
 * window, and a bot guarding it (the router's window store) would refuse every reply to it.
 *
 * @example
 * const late = textMessage({ timestamp: fixtureTimestamp(Date.now() - 25 * 60 * 60 * 1000) }); // window closed
 * const fixed = statusObject('read', { timestamp: fixtureTimestamp(new Date('2024-05-01T09:00:00Z')) });
 */
export function fixtureTimestamp(at: Date | number = Date.now()): string {
  const ms = at instanceof Date ? at.getTime() : at;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new ConfigurationError(
      `fixtureTimestamp takes a valid Date or milliseconds since the epoch; got ${at instanceof Date ? 'an invalid Date' : typeof at === 'number' ? String(at) : typeof at}.`,
    );
  return String(Math.floor(ms / 1000));
}

// `Omit` would flatten the loose objects' index signature away; `type` is written last instead.
export type Overrides<T> = Partial<T>;

export function base(
  overrides: {
    id?: string | undefined;
    from?: string | undefined;
    timestamp?: string | number | undefined;
  } = {},
) {
  return {
    from: overrides.from ?? FIXTURE_SENDER,
    id: overrides.id ?? fixtureId(),
    timestamp: overrides.timestamp ?? fixtureTimestamp(),
  };
}

/** An account update value (a ban by default). */
export function accountUpdateValue(overrides: Partial<AccountUpdateValue> = {}): AccountUpdateValue {
  return {
    phone_number: '15550009999',
    event: 'DISABLED_UPDATE',
    ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: '2024-01-31' },
    ...overrides,
  };
}

/** An `audio` message; `voice: true` is a voice note. */
export function audioMessage(overrides: Overrides<AudioMessage> = {}): AudioMessage {
  return {
    ...base(overrides),
    audio: {
      id: fixtureId('media.'),
      mime_type: 'audio/ogg; codecs=opus',
      sha256: 'a'.repeat(64),
      voice: true,
    },
    ...overrides,
    type: 'audio',
  };
}

/**
 * A `button` message: a tap on a template's quick-reply button, replying (`context.id`) to the template sent.
 *
 * @example
 * const tap = buttonMessage({ payload: 'confirm_order_42', text: 'Confirm' });
 */
export function buttonMessage(
  button: { payload?: string | undefined; text?: string | undefined } = {},
  overrides: Overrides<ButtonMessage> = {},
): ButtonMessage {
  return {
    ...base(overrides),
    context: { id: fixtureId() },
    button: { payload: button.payload ?? 'quick_reply_yes', text: button.text ?? 'Yes' },
    ...overrides,
    type: 'button',
  };
}

/** A `contacts` message sharing one contact card. */
export function contactsMessage(overrides: Overrides<ContactsMessage> = {}): ContactsMessage {
  return {
    ...base(overrides),
    contacts: [
      {
        name: { formatted_name: 'Ada Example', first_name: 'Ada', last_name: 'Example' },
        phones: [{ phone: '+1 555 000 2222', type: 'CELL' }],
        emails: [{ email: 'ada@example.com', type: 'WORK' }],
      },
    ],
    ...overrides,
    type: 'contacts',
  };
}

/** A `document` message with a filename. */
export function documentMessage(overrides: Overrides<DocumentMessage> = {}): DocumentMessage {
  return {
    ...base(overrides),
    document: {
      id: fixtureId('media.'),
      filename: 'invoice.pdf',
      mime_type: 'application/pdf',
      sha256: 'd'.repeat(64),
      caption: 'The invoice',
    },
    ...overrides,
    type: 'document',
  };
}

/** An `image` message with mime type, sha256 and caption. */
export function imageMessage(overrides: Overrides<ImageMessage> = {}): ImageMessage {
  return {
    ...base(overrides),
    image: { id: fixtureId('media.'), mime_type: 'image/jpeg', sha256: 'f'.repeat(64), caption: 'A photo' },
    ...overrides,
    type: 'image',
  };
}

/** An `interactive` message: a tap on a reply button. */
export function buttonReplyMessage(
  reply: { id?: string | undefined; title?: string | undefined } = {},
  overrides: Overrides<InteractiveMessage> = {},
): InteractiveMessage {
  return {
    ...base(overrides),
    interactive: {
      type: 'button_reply',
      button_reply: { id: reply.id ?? 'btn_yes', title: reply.title ?? 'Yes' },
    },
    ...overrides,
    type: 'interactive',
  };
}

/** An `interactive` message: a row chosen from a list. */
export function listReplyMessage(
  reply: { id?: string | undefined; title?: string | undefined; description?: string | undefined } = {},
  overrides: Overrides<InteractiveMessage> = {},
): InteractiveMessage {
  return {
    ...base(overrides),
    interactive: {
      type: 'list_reply',
      list_reply: {
        id: reply.id ?? 'row_1',
        title: reply.title ?? 'First row',
        ...(reply.description === undefined
          ? { description: 'The first row' }
          : { description: reply.description }),
      },
    },
    ...overrides,
    type: 'interactive',
  };
}

/** A `location` message. */
export function locationMessage(overrides: Overrides<LocationMessage> = {}): LocationMessage {
  return {
    ...base(overrides),
    location: { latitude: 41.2995, longitude: 69.2401, name: 'Fixture Square', address: '1 Example Street' },
    ...overrides,
    type: 'location',
  };
}

/** An `order` message with two product lines. */
export function orderMessage(overrides: Overrides<OrderMessage> = {}): OrderMessage {
  return {
    ...base(overrides),
    order: {
      catalog_id: 'catalog_1',
      text: 'Please deliver tomorrow',
      product_items: [
        { product_retailer_id: 'sku_1', quantity: 2, item_price: 9.5, currency: 'USD' },
        { product_retailer_id: 'sku_2', quantity: 1, item_price: 20, currency: 'USD' },
      ],
    },
    ...overrides,
    type: 'order',
  };
}

/** A `reaction` message; pass `emoji: ''` for a removed reaction. */
export function reactionMessage(
  reaction: { message_id?: string | undefined; emoji?: string | undefined } = {},
  overrides: Overrides<ReactionMessage> = {},
): ReactionMessage {
  return {
    ...base(overrides),
    reaction: { message_id: reaction.message_id ?? fixtureId(), emoji: reaction.emoji ?? '\u{1F44D}' },
    ...overrides,
    type: 'reaction',
  };
}

/** A `sticker` message. */
export function stickerMessage(overrides: Overrides<StickerMessage> = {}): StickerMessage {
  return {
    ...base(overrides),
    sticker: { id: fixtureId('media.'), mime_type: 'image/webp', sha256: 'b'.repeat(64), animated: false },
    ...overrides,
    type: 'sticker',
  };
}

/**
 * A `text` message.
 *
 * @example
 * const msg = textMessage({ text: { body: 'hello' } });
 */
export function textMessage(overrides: Overrides<TextMessage> = {}): TextMessage {
  return { ...base(overrides), text: { body: 'Hello from a fixture' }, ...overrides, type: 'text' };
}

/** A `video` message. */
export function videoMessage(overrides: Overrides<VideoMessage> = {}): VideoMessage {
  return {
    ...base(overrides),
    video: { id: fixtureId('media.'), mime_type: 'video/mp4', sha256: 'e'.repeat(64), caption: 'A clip' },
    ...overrides,
    type: 'video',
  };
}

/**
 * A status object. `delivered` carries billable pricing and `failed` an error, as the gateway sends them.
 *
 * @example
 * const delivered = statusObject('delivered', { id: sent.id, timestamp: '1700000060' });
 */
export function statusObject(
  status: 'sent' | 'delivered' | 'read' | 'failed' | (string & {}),
  overrides: Partial<WebhookStatus> = {},
): WebhookStatus {
  const common = {
    id: overrides.id ?? fixtureId(),
    status,
    timestamp: fixtureTimestamp(),
    recipient_id: FIXTURE_SENDER,
  };
  if (status === 'sent' || status === 'delivered') {
    return {
      ...common,
      conversation: { id: 'conversation_1', origin: { type: 'utility' } },
      pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
      ...overrides,
    };
  }
  if (status === 'failed') {
    return {
      ...common,
      errors: [
        {
          code: 131026,
          title: 'Message undeliverable',
          message: 'Message undeliverable',
          error_data: { details: 'The recipient is not reachable' },
        },
      ],
      ...overrides,
    };
  }
  return { ...common, ...overrides };
}

/** A template status value (`APPROVED` by default; `REJECTED` fills `reason`). */
export function templateStatusValue(overrides: Partial<TemplateStatusValue> = {}): TemplateStatusValue {
  const event = overrides.event ?? 'APPROVED';
  return {
    event,
    message_template_id: 594425479261596,
    message_template_name: 'order_update',
    message_template_language: 'en_US',
    reason: event === 'REJECTED' ? 'INCORRECT_CATEGORY' : null,
    ...overrides,
  };
}
