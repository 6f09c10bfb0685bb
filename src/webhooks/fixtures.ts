/**
 * Typed builders of webhook envelopes, for tests (the SDK's own and the application's). Every builder returns a
 * plain object the schemas accept; pass overrides to shape it. Default ids are unique per call, so envelopes built
 * twice are different events unless the test says otherwise; numbers and names are fictitious.
 *
 * To be re-exported from `wa-gateway-sdk/testing`.
 */
import { accountUpdateValue } from './account-update.fixture.js';
import { base, FIXTURE_SENDER } from './fixture-base.js';
import { audioMessage } from './messages/audio.fixture.js';
import { buttonMessage } from './messages/button.fixture.js';
import { contactsMessage } from './messages/contacts.fixture.js';
import { documentMessage } from './messages/document.fixture.js';
import { imageMessage } from './messages/image.fixture.js';
import type { KnownMessage, KnownMessageType } from './messages/index.js';
import { buttonReplyMessage, listReplyMessage } from './messages/interactive.fixture.js';
import { locationMessage } from './messages/location.fixture.js';
import { orderMessage } from './messages/order.fixture.js';
import { reactionMessage } from './messages/reaction.fixture.js';
import { stickerMessage } from './messages/sticker.fixture.js';
import { textMessage } from './messages/text.fixture.js';
import { videoMessage } from './messages/video.fixture.js';
import type {
  AccountUpdateValue,
  TemplateStatusValue,
  WebhookContact,
  WebhookEnvelope,
  WebhookMetadata,
  WebhookStatus,
} from './schemas.js';
import { templateStatusValue } from './template-status.fixture.js';

// Each kind's builder lives beside its schema; this module is the one import of them all.
export { accountUpdateValue } from './account-update.fixture.js';
export { FIXTURE_SENDER, FIXTURE_TIMESTAMP, fixtureId } from './fixture-base.js';
export { audioMessage } from './messages/audio.fixture.js';
export { buttonMessage } from './messages/button.fixture.js';
export { contactsMessage } from './messages/contacts.fixture.js';
export { documentMessage } from './messages/document.fixture.js';
export { imageMessage } from './messages/image.fixture.js';
export { buttonReplyMessage, listReplyMessage } from './messages/interactive.fixture.js';
export { locationMessage } from './messages/location.fixture.js';
export { orderMessage } from './messages/order.fixture.js';
export { reactionMessage } from './messages/reaction.fixture.js';
export { stickerMessage } from './messages/sticker.fixture.js';
export { textMessage } from './messages/text.fixture.js';
export { videoMessage } from './messages/video.fixture.js';
export { statusObject } from './status.fixture.js';
export { templateStatusValue } from './template-status.fixture.js';

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
    messages?: ReadonlyArray<{ from?: string } & Record<string, unknown>>;
    statuses?: readonly WebhookStatus[];
    contacts?: WebhookContact[];
    metadata?: WebhookMetadata;
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
    | ({ from?: string } & Record<string, unknown>)
    | ReadonlyArray<{ from?: string } & Record<string, unknown>>,
  options: { contacts?: WebhookContact[]; metadata?: WebhookMetadata; businessAccountId?: string } = {},
): WebhookEnvelope {
  const list = Array.isArray(messages) ? messages : [messages as { from?: string } & Record<string, unknown>];
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
  options: { metadata?: WebhookMetadata; businessAccountId?: string } = {},
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
  options: { businessAccountId?: string } = {},
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
  options: { businessAccountId?: string } = {},
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
