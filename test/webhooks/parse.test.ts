import { describe, expect, it } from 'vitest';
import { WebhookParseError } from '../../src/core/errors.js';
import {
  accountUpdateEnvelope,
  audioMessage,
  buttonMessage,
  buttonReplyMessage,
  change,
  contact,
  contactsMessage,
  documentMessage,
  entry,
  envelope,
  FIXTURE_BUSINESS_ACCOUNT_ID,
  FIXTURE_METADATA,
  FIXTURE_SENDER,
  FIXTURE_TIMESTAMP,
  imageMessage,
  listReplyMessage,
  locationMessage,
  messageEnvelope,
  messagesChange,
  orderMessage,
  reactionMessage,
  statusEnvelope,
  statusObject,
  stickerMessage,
  templateStatusEnvelope,
  templateStatusValue,
  textMessage,
  unknownTypeMessage,
  videoMessage,
} from '../../src/testing/webhook-fixtures.js';
import type { MessageEvent, StatusEvent, UnknownEvent, WebhookEvent } from '../../src/webhooks/events.js';
import {
  createWebhookHandler,
  customerOf,
  isReactionRemoved,
  parseWebhook,
} from '../../src/webhooks/index.js';
import { webhookEnvelopeSchema } from '../../src/webhooks/schemas.js';

function only<K extends WebhookEvent['kind']>(
  events: WebhookEvent[],
  kind: K,
): Extract<WebhookEvent, { kind: K }> {
  expect(events).toHaveLength(1);
  const [event] = events;
  expect(event?.kind).toBe(kind);
  return event as Extract<WebhookEvent, { kind: K }>;
}

function oneMessage(body: unknown): MessageEvent {
  return only(parseWebhook(JSON.stringify(body)), 'message');
}

function parseError(body: Parameters<typeof parseWebhook>[0]): WebhookParseError {
  try {
    parseWebhook(body);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookParseError);
    return error as WebhookParseError;
  }
  throw new Error('expected parseWebhook to throw');
}

describe('parseWebhook: incoming messages, one fixture per type', () => {
  it('text: body, sender contact, metadata, business account, wamid key', () => {
    const msg = textMessage({ text: { body: 'Where is my order?' }, timestamp: FIXTURE_TIMESTAMP });
    const event = oneMessage(messageEnvelope(msg));
    expect(event.field).toBe('messages');
    expect(event.businessAccountId).toBe(FIXTURE_BUSINESS_ACCOUNT_ID);
    expect(event.idempotencyKey).toBe(msg.id);
    expect(event.metadata).toEqual(FIXTURE_METADATA);
    expect(event.contact).toEqual({ wa_id: FIXTURE_SENDER, profile: { name: 'Fixture User' } });
    expect(event.timestamp).toBe(1700000000);
    expect(event.timestampRaw).toBe('1700000000');
    if (event.message.type !== 'text') throw new Error(`got ${event.message.type}`);
    expect(event.message.text.body).toBe('Where is my order?');
    expect(event.message.from).toBe(FIXTURE_SENDER);
  });

  it('image: id, mime_type, sha256, caption', () => {
    const msg = imageMessage();
    const { message } = oneMessage(messageEnvelope(msg));
    if (message.type !== 'image') throw new Error(`got ${message.type}`);
    expect(message.image).toEqual(msg.image);
    expect(message.image.mime_type).toBe('image/jpeg');
    expect(message.image.sha256).toHaveLength(64);
    expect(message.image.caption).toBe('A photo');
  });

  it('audio: voice flag', () => {
    const voice = oneMessage(messageEnvelope(audioMessage())).message;
    const file = oneMessage(
      messageEnvelope(
        audioMessage({
          audio: { id: 'media.1', mime_type: 'audio/mpeg', sha256: 'a'.repeat(64), voice: false },
        }),
      ),
    ).message;
    if (voice.type !== 'audio' || file.type !== 'audio') throw new Error('expected audio');
    expect(voice.audio.voice).toBe(true);
    expect(file.audio.voice).toBe(false);
  });

  it('document: filename and caption', () => {
    const { message } = oneMessage(messageEnvelope(documentMessage()));
    if (message.type !== 'document') throw new Error(`got ${message.type}`);
    expect(message.document.filename).toBe('invoice.pdf');
    expect(message.document.caption).toBe('The invoice');
  });

  it('video and sticker (animated flag)', () => {
    const video = oneMessage(messageEnvelope(videoMessage())).message;
    const sticker = oneMessage(
      messageEnvelope(
        stickerMessage({
          sticker: { id: 'media.s', mime_type: 'image/webp', sha256: 'b'.repeat(64), animated: true },
        }),
      ),
    ).message;
    if (video.type !== 'video' || sticker.type !== 'sticker') throw new Error('wrong variants');
    expect(video.video.mime_type).toBe('video/mp4');
    expect(sticker.sticker.animated).toBe(true);
  });

  it('location: coordinates, name and address', () => {
    const { message } = oneMessage(messageEnvelope(locationMessage()));
    if (message.type !== 'location') throw new Error(`got ${message.type}`);
    expect(message.location).toEqual({
      latitude: 41.2995,
      longitude: 69.2401,
      name: 'Fixture Square',
      address: '1 Example Street',
    });
  });

  it('contacts: names, phones, emails', () => {
    const { message } = oneMessage(messageEnvelope(contactsMessage()));
    if (message.type !== 'contacts') throw new Error(`got ${message.type}`);
    expect(message.contacts[0]?.name?.formatted_name).toBe('Ada Example');
    expect(message.contacts[0]?.phones?.[0]).toEqual({ phone: '+1 555 000 2222', type: 'CELL' });
    expect(message.contacts[0]?.emails?.[0]?.email).toBe('ada@example.com');
  });

  it('interactive: button_reply and list_reply narrow by interactive.type', () => {
    const button = oneMessage(
      messageEnvelope(buttonReplyMessage({ id: 'confirm_42', title: 'Confirm' })),
    ).message;
    const list = oneMessage(
      messageEnvelope(listReplyMessage({ id: 'row_7', description: 'Seventh' })),
    ).message;
    if (button.type !== 'interactive' || list.type !== 'interactive') throw new Error('expected interactive');
    if (button.interactive.type !== 'button_reply' || list.interactive.type !== 'list_reply') {
      throw new Error('wrong interactive kinds');
    }
    expect(button.interactive.button_reply).toEqual({ id: 'confirm_42', title: 'Confirm' });
    expect(list.interactive.list_reply.id).toBe('row_7');
    expect(list.interactive.list_reply.description).toBe('Seventh');
  });

  it('reaction: an empty emoji means the reaction was removed', () => {
    const added = oneMessage(
      messageEnvelope(reactionMessage({ message_id: 'wamid.target', emoji: '❤️' })),
    ).message;
    const removed = oneMessage(
      messageEnvelope(reactionMessage({ message_id: 'wamid.target', emoji: '' })),
    ).message;
    if (added.type !== 'reaction' || removed.type !== 'reaction') throw new Error('expected reactions');
    expect(added.reaction.message_id).toBe('wamid.target');
    expect(isReactionRemoved(added)).toBe(false);
    expect(isReactionRemoved(removed)).toBe(true);
  });

  it('button: a template quick-reply tap is typed, its payload and the template it answers readable', () => {
    const tap = buttonMessage(
      { payload: 'confirm_order_42', text: 'Confirm' },
      { id: 'wamid.tap', context: { from: '15550009999', id: 'wamid.template' } },
    );
    const event = oneMessage(messageEnvelope(tap));
    const { message } = event;
    // Not the interactive button_reply (a tap on an interactive message's button): a type of its own.
    if (message.type !== 'button') throw new Error(`got ${message.type}`);
    expect(message.button).toEqual({ payload: 'confirm_order_42', text: 'Confirm' });
    expect(message.context?.id).toBe('wamid.template');
    expect(event.idempotencyKey).toBe('wamid.tap');
    expect(customerOf(event)?.phone).toBe(FIXTURE_SENDER);
    // A tap with no context (real deliveries have them) and a field the gateway may add later keep the type.
    const bare = { ...tap, context: undefined, button: { ...tap.button, extra: 1 } };
    delete bare.context;
    const loose = oneMessage(messageEnvelope(bare)).message;
    expect(loose.type).toBe('button');
    if (loose.type === 'button') expect(loose.button).toEqual({ ...tap.button, extra: 1 });
  });

  it('button: a tap whose payload is not a string is the unknown variant, raw kept, the field named', () => {
    const tap = buttonMessage({}, { id: 'wamid.badtap' });
    const wrong = { ...tap, button: { text: 'Yes', payload: 42 } };
    const { message } = oneMessage(messageEnvelope(wrong));
    if (message.type !== 'unknown') throw new Error(`got ${message.type}`);
    expect(message.originalType).toBe('button');
    expect(message.raw).toEqual(wrong);
    expect(message.issues.map((i) => i.path)).toEqual([['button', 'payload']]);
  });

  it('order: catalog and product items', () => {
    const { message } = oneMessage(messageEnvelope(orderMessage()));
    if (message.type !== 'order') throw new Error(`got ${message.type}`);
    expect(message.order.catalog_id).toBe('catalog_1');
    expect(message.order.product_items).toHaveLength(2);
    expect(message.order.product_items[0]).toEqual({
      product_retailer_id: 'sku_1',
      quantity: 2,
      item_price: 9.5,
      currency: 'USD',
    });
  });

  it('an unknown type is delivered as the unknown variant with the raw object', () => {
    const msg = unknownTypeMessage('poll');
    const event = oneMessage(messageEnvelope(msg));
    expect(event.idempotencyKey).toBe(msg.id);
    if (event.message.type !== 'unknown') throw new Error(`got ${event.message.type}`);
    expect(event.message.originalType).toBe('poll');
    expect(event.message.id).toBe(msg.id);
    expect(event.message.from).toBe(FIXTURE_SENDER);
    expect(event.message.raw).toEqual(msg);
    expect(event.message.issues).toEqual([]);
  });

  it('an interactive kind the SDK does not know is an interactive message, its kind named, raw kept', () => {
    const interactive = { type: 'nfm_reply', nfm_reply: { response_json: '{"a":1}', name: 'flow' } };
    const msg = { ...textMessage(), type: 'interactive', interactive };
    const { message } = oneMessage(messageEnvelope(msg));
    if (message.type !== 'interactive') throw new Error(`got ${message.type}`);
    if (message.interactive.type !== 'unknown') throw new Error(`got ${message.interactive.type}`);
    expect(message.interactive.originalType).toBe('nfm_reply');
    expect(message.interactive.raw).toEqual(interactive);
    expect(message.interactive.raw).not.toBe(interactive);
  });

  it("an unknown interactive kind's raw keeps its null fields, as received", () => {
    const interactive = {
      type: 'payment_reply',
      payment_reply: { reference_id: 'r', amount: null, note: null },
    };
    const msg = { ...textMessage(), type: 'interactive', interactive };
    const { message } = oneMessage(messageEnvelope(msg));
    if (message.type !== 'interactive') throw new Error(`got ${message.type}`);
    if (message.interactive.type !== 'unknown') throw new Error(`got ${message.interactive.type}`);
    expect(message.interactive.raw).toStrictEqual(interactive);
  });

  it('a documented interactive kind lacking a field it needs is still the unknown variant, the field named', () => {
    const msg = {
      ...textMessage(),
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: {} },
    };
    const { message } = oneMessage(messageEnvelope(msg));
    if (message.type !== 'unknown') throw new Error(`got ${message.type}`);
    expect(message.issues.map((i) => i.path)).toEqual([
      ['interactive', 'button_reply', 'id'],
      ['interactive', 'button_reply', 'title'],
    ]);
  });
});

describe('parseWebhook: tolerance', () => {
  it('keeps fields the spec does not list (loose objects)', () => {
    const msg = { ...textMessage(), future_field: { nested: true }, text: { body: 'x', extra: 1 } };
    const { message } = oneMessage(messageEnvelope(msg));
    expect((message as Record<string, unknown>)['future_field']).toEqual({ nested: true });
    if (message.type !== 'text') throw new Error(`got ${message.type}`);
    expect((message.text as Record<string, unknown>)['extra']).toBe(1);
  });

  it('a documented type with invalid content becomes the unknown variant with issues, not an error', () => {
    const msg = { ...textMessage(), text: { body: 42 } };
    const event = oneMessage(messageEnvelope(msg));
    expect(event.idempotencyKey).toBe(msg.id);
    if (event.message.type !== 'unknown') throw new Error(`got ${event.message.type}`);
    expect(event.message.originalType).toBe('text');
    expect(event.message.issues).toEqual([
      expect.objectContaining({ path: ['text', 'body'], code: 'invalid_type' }),
    ]);
    expect(event.message.raw).toEqual(msg);
  });

  it('a message without id or type becomes an unknown event with its location', () => {
    const bad = { from: FIXTURE_SENDER, text: { body: 'no id' } };
    const body = envelope([entry([messagesChange({ messages: [textMessage(), bad] })])]);
    const events = parseWebhook(JSON.stringify(body));
    expect(events.map((e) => e.kind)).toEqual(['message', 'unknown']);
    const unknown = events[1] as UnknownEvent;
    expect(unknown.reason).toBe('invalid_item');
    expect(unknown.path).toEqual(['entry', 0, 'changes', 0, 'value', 'messages', 1]);
    expect(unknown.raw).toEqual(bad);
    expect(unknown.issues.map((i) => i.path)).toEqual([['id'], ['type']]);
    expect(unknown.idempotencyKey).toMatch(/^unknown:messages:/);
  });

  it('an item that is not an object becomes an unknown event at its own index, for messages and statuses alike', () => {
    const body = envelope([
      entry([
        messagesChange({ messages: [textMessage(), 7 as never] }),
        messagesChange({ statuses: [statusObject('read'), 'x' as never, statusObject('sent'), {} as never] }),
      ]),
    ]);
    const unknowns = parseWebhook(JSON.stringify(body)).filter(
      (e): e is UnknownEvent => e.kind === 'unknown',
    );
    expect(unknowns.map((e) => e.path)).toEqual([
      ['entry', 0, 'changes', 0, 'value', 'messages', 1],
      ['entry', 0, 'changes', 1, 'value', 'statuses', 1],
      ['entry', 0, 'changes', 1, 'value', 'statuses', 3],
    ]);
    expect(unknowns.map((e) => e.reason)).toEqual(['invalid_item', 'invalid_item', 'invalid_item']);
  });

  it('timestamps: numeric strings and numbers parse; anything else is undefined with the raw kept', () => {
    const cases: [unknown, number | undefined, string | undefined][] = [
      ['1700000123', 1700000123, '1700000123'],
      [1700000124, 1700000124, '1700000124'],
      ['not-a-time', undefined, 'not-a-time'],
      ['', undefined, ''],
      ['0x10', undefined, '0x10'],
      ['0', 0, '0'],
      ['007', 7, '007'],
      ['999999999999999', 999999999999999, '999999999999999'],
      ['12345678901234567890', 12345678901234567000, '12345678901234567890'],
      [' 1700000125 ', 1700000125, ' 1700000125 '],
      ['1700000126.5', 1700000126.5, '1700000126.5'],
      ['1700000127:', undefined, '1700000127:'],
      ['-5', -5, '-5'],
      // Around where the last 8 digits are summed apart from the ones before.
      ['12345678', 12345678, '12345678'],
      ['123456789', 123456789, '123456789'],
      ['123456789012345', 123456789012345, '123456789012345'],
      ['000000001700000128', 1700000128, '000000001700000128'],
      ['1x00000000', undefined, '1x00000000'],
      ['17000000x0', undefined, '17000000x0'],
    ];
    // Every length the digit path takes (the longer ones holding every digit): the value `Number` gives.
    for (let length = 1; length <= 15; length++) {
      const digits = Array.from({ length }, (_, i) => String((i * 7 + length) % 10)).join('');
      cases.push([digits, Number(digits), digits]);
    }
    for (const [raw, parsed, kept] of cases) {
      const event = oneMessage(messageEnvelope({ ...textMessage(), timestamp: raw }));
      expect(event.timestamp).toBe(parsed);
      expect(event.timestampRaw).toBe(kept);
    }
  });

  it('matches the sender contact by wa_id, falling back to the first contact', () => {
    const a = textMessage({ from: '15550000001' });
    const b = textMessage({ from: '15550000002' });
    const c = textMessage({ from: '15550000003' });
    const body = envelope([
      entry([
        messagesChange({
          messages: [a, b, c],
          contacts: [contact('15550000002', 'Bea'), contact('15550000001', 'Al')],
        }),
      ]),
    ]);
    const events = parseWebhook(JSON.stringify(body)) as MessageEvent[];
    expect(events.map((e) => e.contact?.profile?.name)).toEqual(['Al', 'Bea', 'Bea']);
  });

  it('gives no contact to every message whose sender contact does not fit its schema', () => {
    const body = envelope([
      entry([
        messagesChange({
          messages: [
            textMessage({ from: '15550000001' }),
            textMessage({ from: '15550000002' }),
            textMessage({ from: '15550000001' }),
          ],
          contacts: [
            { wa_id: '15550000001', profile: 'not an object' as never },
            contact('15550000002', 'Bea'),
          ],
        }),
      ]),
    ]);
    const events = parseWebhook(JSON.stringify(body)) as MessageEvent[];
    expect(events.map((e) => e.kind)).toEqual(['message', 'message', 'message']);
    expect(events.map((e) => e.contact?.profile?.name)).toEqual([undefined, 'Bea', undefined]);
    expect(events[0]!.contact).toBeUndefined();
  });

  it('does not let a "__proto__" key in the payload reach any prototype', () => {
    const text = `{"entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1","display_phone_number":"1"},"messages":[{"id":"w1","from":"1","timestamp":"1","type":"text","text":{"body":"x"},"__proto__":{"polluted":true}}]}}]}]}`;
    const event = only(parseWebhook(text), 'message');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect((event.message as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('does not mutate an object body', () => {
    const body = messageEnvelope(textMessage());
    const before = JSON.stringify(body);
    parseWebhook(body);
    expect(JSON.stringify(body)).toBe(before);
  });
});

describe('parseWebhook: statuses', () => {
  it('parses sent, delivered, read and failed with their fields', () => {
    const wamid = 'wamid.outbound1';
    const events = parseWebhook(
      JSON.stringify(
        statusEnvelope([
          statusObject('sent', { id: wamid, timestamp: '100' }),
          statusObject('delivered', { id: wamid, timestamp: '101' }),
          statusObject('read', { id: wamid, timestamp: '102' }),
          statusObject('failed', { id: 'wamid.outbound2', timestamp: '103' }),
        ]),
      ),
    ) as StatusEvent[];
    expect(events.map((e) => e.kind)).toEqual(['status', 'status', 'status', 'status']);
    expect(events.map((e) => e.idempotencyKey)).toEqual([
      `${wamid}:sent`,
      `${wamid}:delivered`,
      `${wamid}:read`,
      'wamid.outbound2:failed',
    ]);
    expect(events.map((e) => e.timestamp)).toEqual([100, 101, 102, 103]);
    const delivered = events[1]!.status;
    expect(delivered.pricing).toEqual({ billable: true, pricing_model: 'PMP', category: 'utility' });
    expect(delivered.conversation?.origin?.type).toBe('utility');
    expect(delivered.recipient_id).toBe(FIXTURE_SENDER);
    const failed = events[3]!.status;
    expect(failed.errors?.[0]).toEqual({
      code: 131026,
      title: 'Message undeliverable',
      message: 'Message undeliverable',
      error_data: { details: 'The recipient is not reachable' },
    });
    expect(events[0]!.metadata).toEqual(FIXTURE_METADATA);
  });

  it('accepts status values and origin types the spec does not list yet', () => {
    const event = only(
      parseWebhook(
        JSON.stringify(
          statusEnvelope(
            statusObject('deleted', { conversation: { id: 'c1', origin: { type: 'referral' } } }),
          ),
        ),
      ),
      'status',
    );
    expect(event.status.status).toBe('deleted');
    expect(event.status.conversation?.origin?.type).toBe('referral');
  });

  it('a status without pricing or conversation is still a status', () => {
    const event = only(
      parseWebhook(
        JSON.stringify(
          statusEnvelope({ id: 'wamid.x', status: 'sent', timestamp: 'soon', recipient_id: '15550001111' }),
        ),
      ),
      'status',
    );
    expect(event.status.pricing).toBeUndefined();
    // A timestamp that is not a number is kept verbatim; the parsed one is left undefined.
    expect(event.timestamp).toBeUndefined();
    expect(event.timestampRaw).toBe('soon');
  });

  it('a malformed status is an unknown event with its own key (a valid redelivery is not a duplicate) and the raw object', () => {
    const bad = {
      id: 'wamid.y',
      status: 'failed',
      timestamp: '1',
      recipient_id: '1',
      errors: [{ code: 'not-a-number', title: 't', message: 'm', error_data: { details: 'd' } }],
    };
    const event = only(parseWebhook(JSON.stringify(statusEnvelope([bad as never]))), 'unknown');
    expect(event.reason).toBe('invalid_item');
    expect(event.idempotencyKey).toBe('unknown:wamid.y:failed');
    expect(event.raw).toEqual(bad);
    expect(event.issues[0]?.path).toEqual(['errors', 0, 'code']);
    const noId = only(parseWebhook(JSON.stringify(statusEnvelope([{ status: 'read' } as never]))), 'unknown');
    expect(noId.issues.some((i) => i.path[0] === 'id')).toBe(true);
  });
});

describe('parseWebhook: template status and account updates', () => {
  it.each(['APPROVED', 'REJECTED', 'PENDING_DELETION', 'FLAGGED', 'PAUSED'])('template %s', (status) => {
    const event = only(
      parseWebhook(JSON.stringify(templateStatusEnvelope({ event: status }))),
      'template_status',
    );
    expect(event.template.event).toBe(status);
    expect(event.template.message_template_id).toBe(594425479261596);
    expect(event.template.message_template_name).toBe('order_update');
    expect(event.template.message_template_language).toBe('en_US');
    expect(event.template.reason).toBe(status === 'REJECTED' ? 'INCORRECT_CATEGORY' : null);
    expect(event.idempotencyKey).toMatch(new RegExp(`^template:594425479261596:${status}:`));
    expect(event).not.toHaveProperty('metadata');
  });

  it('accepts a template event the spec does not list', () => {
    const event = only(
      parseWebhook(JSON.stringify(templateStatusEnvelope({ event: 'REINSTATED' }))),
      'template_status',
    );
    expect(event.template.event).toBe('REINSTATED');
  });

  it('template keys: a redelivery maps to the same key, a later identical update with a new entry time does not', () => {
    const at = (time: number) => {
      const body = templateStatusEnvelope();
      (body.entry[0] as Record<string, unknown>)['time'] = time;
      return only(parseWebhook(JSON.stringify(body)), 'template_status').idempotencyKey;
    };
    expect(at(1)).toBe(at(1));
    expect(at(1)).not.toBe(at(2));
  });

  it('parses an account update; its key does not spell out the phone number', () => {
    const event = only(parseWebhook(JSON.stringify(accountUpdateEnvelope())), 'account_update');
    expect(event.account.phone_number).toBe('15550009999');
    expect(event.account.event).toBe('DISABLED_UPDATE');
    expect(event.account.ban_info).toEqual({ waba_ban_state: 'DISABLE', waba_ban_date: '2024-01-31' });
    expect(event.idempotencyKey).toMatch(/^account:DISABLED_UPDATE:[0-9a-z]+$/);
    expect(event.idempotencyKey).not.toContain('15550009999');
    const otherDate = only(
      parseWebhook(
        JSON.stringify(
          accountUpdateEnvelope({ ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: '2024-02-01' } }),
        ),
      ),
      'account_update',
    );
    expect(otherDate.idempotencyKey).not.toBe(event.idempotencyKey);
  });

  it('a template value missing its id is an unknown event, not an error', () => {
    const body = envelope([entry([change('message_template_status_update', { event: 'APPROVED' })])]);
    const event = only(parseWebhook(JSON.stringify(body)), 'unknown');
    expect(event.field).toBe('message_template_status_update');
    expect(event.issues[0]?.path).toEqual(['message_template_id']);
  });
});

describe('parseWebhook: the skeleton is webhookEnvelopeSchema, the exported schema and the parse agree', () => {
  const withEntry = (fields: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      { ...fields, changes: [change('messages', messagesChange({ messages: [textMessage()] }).value)] },
    ],
  });

  it.each([
    ['a string', 'waba-1', 'waba-1', 'waba-1'],
    ['a number (a relay re-serialised it)', 1234567890, 1234567890, '1234567890'],
    ['missing', undefined, undefined, undefined],
    ['an object', { id: 1 }, undefined, undefined],
  ])(
    'an entry id that is %s: the schema reads %j and the event has businessAccountId %j',
    (_, id, read, expected) => {
      const body = withEntry(id === undefined ? {} : { id });
      expect(parseWebhook(JSON.stringify(body))[0]?.businessAccountId).toBe(expected);
      const parsed = webhookEnvelopeSchema.safeParse(body);
      expect(parsed.success && parsed.data.entry[0]?.id).toBe(read);
    },
  );

  it.each([
    ['missing', undefined],
    ['a number', 7],
  ])(
    'a change field that is %s: an unknown_field event; the schema reads it as an empty field',
    (_, field) => {
      const body = {
        entry: [{ id: 'w', changes: [{ ...(field === undefined ? {} : { field }), value: { a: 1 } }] }],
      };
      const event = only(parseWebhook(JSON.stringify(body)), 'unknown');
      expect([event.reason, event.field]).toEqual(['unknown_field', '']);
      const read = webhookEnvelopeSchema.safeParse(body);
      expect(read.success && read.data.entry[0]?.changes[0]?.field).toBe('');
    },
  );

  it.each([
    [{ entry: {} }, ['entry'], 'expected an array, got an object'],
    [{ entry: [3] }, ['entry', 0], 'expected an object, got a number'],
    [{ entry: [{ id: 'w' }] }, ['entry', 0, 'changes'], 'expected an array, got nothing'],
    [
      { entry: [{ changes: [{ field: 'messages', value: [] }] }] },
      ['entry', 0, 'changes', 0, 'value'],
      'expected an object, got an array',
    ],
  ])(
    'a broken skeleton %j: WebhookParseError at its path, and the schema refuses it there too',
    (body, path, what) => {
      let error: unknown;
      try {
        parseWebhook(JSON.stringify(body));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WebhookParseError);
      expect((error as WebhookParseError).path).toEqual(path);
      expect((error as Error).message).toContain(what);
      const read = webhookEnvelopeSchema.safeParse(body);
      expect(read.success ? [] : read.error.issues[0]?.path).toEqual(path);
    },
  );

  it('a top-level object that is not a string does not refuse the delivery', () => {
    const body = { ...withEntry({ id: 'w' }), object: 42 };
    expect(parseWebhook(JSON.stringify(body))).toHaveLength(1);
    expect(webhookEnvelopeSchema.safeParse(body).success).toBe(true);
  });
});

describe('parseWebhook: envelopes', () => {
  it('an unknown change field is delivered as an unknown event with the raw value', () => {
    const value = { something: 'new', items: [1, 2] };
    const event = only(
      parseWebhook(JSON.stringify(envelope([entry([change('business_capability_update', value)])]))),
      'unknown',
    );
    expect(event.reason).toBe('unknown_field');
    expect(event.field).toBe('business_capability_update');
    expect(event.raw).toEqual(value);
    expect(event.path).toEqual(['entry', 0, 'changes', 0, 'value']);
  });

  it('a messages change with neither messages nor statuses is an unknown event, not silence', () => {
    const value = { messaging_product: 'whatsapp', metadata: FIXTURE_METADATA, errors: [{ code: 1 }] };
    const event = only(
      parseWebhook(JSON.stringify(envelope([entry([change('messages', value)])]))),
      'unknown',
    );
    expect(event.reason).toBe('unrecognized_value');
    expect(event.raw).toEqual(value);
  });

  it('empty messages and statuses arrays yield no events', () => {
    expect(
      parseWebhook(JSON.stringify(envelope([entry([messagesChange({ messages: [], statuses: [] })])]))),
    ).toEqual([]);
    expect(parseWebhook('{"entry":[]}')).toEqual([]);
  });

  it('a change holding statuses before messages yields them in that order', () => {
    const { messages, ...rest } = messagesChange({
      messages: [textMessage()],
      statuses: [statusObject('read')],
    }).value as Record<string, unknown>;
    const body = envelope([entry([change('messages', { ...rest, messages })])]);
    const flipped = envelope([entry([change('messages', { messages, ...rest })])]);
    expect(parseWebhook(JSON.stringify(body)).map((e) => e.kind)).toEqual(['status', 'message']);
    expect(parseWebhook(JSON.stringify(flipped)).map((e) => e.kind)).toEqual(['message', 'status']);
  });

  it('several entries, changes, messages and statuses: one event each, in document order', () => {
    const m1 = textMessage();
    const m2 = imageMessage();
    const s1 = statusObject('sent');
    const s2 = statusObject('read');
    const body = envelope([
      entry([messagesChange({ messages: [m1, m2] }), messagesChange({ statuses: [s1, s2] })], 'waba-1'),
      entry(
        [change('message_template_status_update', templateStatusValue()), change('mystery', { a: 1 })],
        'waba-2',
      ),
      entry([messagesChange({ messages: [textMessage()], statuses: [statusObject('delivered')] })], 'waba-3'),
    ]);
    const events = parseWebhook(JSON.stringify(body));
    expect(events.map((e) => `${e.businessAccountId}/${e.kind}`)).toEqual([
      'waba-1/message',
      'waba-1/message',
      'waba-1/status',
      'waba-1/status',
      'waba-2/template_status',
      'waba-2/unknown',
      'waba-3/message',
      'waba-3/status',
    ]);
    expect(events.slice(0, 4).map((e) => e.idempotencyKey)).toEqual([
      m1.id,
      m2.id,
      `${s1.id}:sent`,
      `${s2.id}:read`,
    ]);
  });

  it('follows key order when statuses come before messages in a change', () => {
    const text = `{"entry":[{"id":"1","changes":[{"field":"messages","value":{"metadata":{"phone_number_id":"1","display_phone_number":"1"},"statuses":[{"id":"s","status":"sent","timestamp":"1","recipient_id":"1"}],"messages":[{"id":"m","from":"1","timestamp":"1","type":"text","text":{"body":"x"}}]}}]}]}`;
    expect(parseWebhook(text).map((e) => e.kind)).toEqual(['status', 'message']);
  });

  it('accepts the body as string, Uint8Array, ArrayBuffer, DataView, BOM-prefixed text and parsed object', () => {
    const body = messageEnvelope(textMessage({ id: 'wamid.forms' }));
    const text = JSON.stringify(body);
    const bytes = new TextEncoder().encode(text);
    const forms: Parameters<typeof parseWebhook>[0][] = [
      text,
      bytes,
      bytes.buffer.slice(0),
      new DataView(bytes.buffer),
      `\uFEFF${text}`,
      body,
    ];
    for (const form of forms) {
      expect(parseWebhook(form).map((e) => e.idempotencyKey)).toEqual(['wamid.forms']);
    }
  });
});

describe('parseWebhook: errors', () => {
  it.each([
    ['invalid JSON', '{"entry": [', [], /not valid JSON/],
    ['an empty body', '   ', [], /empty/],
    ['a body of nothing', '', [], /empty/],
    ['a byte order mark and blanks', '\uFEFF \n', [], /empty/],
    ['blanks around invalid JSON', ' x ', [], /not valid JSON/],
    ['an array', '[1,2]', [], /must be a JSON object, got an array/],
    ['null', 'null', [], /got null/],
    ['a number', '42', [], /got a number/],
    ['no entry', '{"object":"x"}', ['entry'], /entry: expected an array, got nothing/],
    ['entry not an array', '{"entry":{}}', ['entry'], /expected an array, got an object/],
    ['an entry that is not an object', '{"entry":[1]}', ['entry', 0], /entry\[0\]: expected an object/],
    ['an entry without changes', '{"entry":[{"id":"1"}]}', ['entry', 0, 'changes'], /entry\[0\]\.changes/],
    [
      'a change that is not an object',
      '{"entry":[{"changes":["x"]}]}',
      ['entry', 0, 'changes', 0],
      /a string/,
    ],
    [
      'a change without value',
      '{"entry":[{"changes":[{"field":"messages"}]}]}',
      ['entry', 0, 'changes', 0, 'value'],
      /entry\[0\]\.changes\[0\]\.value: expected an object, got nothing/,
    ],
  ] as const)('%s → WebhookParseError with path', (_name, body, path, message) => {
    const error = parseError(body);
    expect(error.path).toEqual(path);
    expect(error.message).toMatch(message);
  });

  it('rejects non-object inputs', () => {
    for (const value of [undefined, null, 1, true, Symbol('x')]) {
      expect(parseError(value as never).path).toEqual([]);
    }
  });

  it('never puts payload content in the message', () => {
    const secretText = 'my card number is 4111';
    const phone = '998901234567';
    const bodies = [
      `{"entry":[{"changes":[{"field":"messages","value":{"messages":[{"from":"${phone}","text":{"body":"${secretText}"}}]}}]}`,
      `{"entry":"${phone} ${secretText}"}`,
      `{"entry":[{"changes":[{"field":"messages","value":"${phone} ${secretText}"}]}]}`,
      `["${phone}", "${secretText}"]`,
    ];
    for (const body of bodies) {
      const error = parseError(body);
      expect(error.message).not.toContain(phone);
      expect(error.message).not.toContain('4111');
      expect(JSON.stringify(error)).not.toContain(phone);
    }
  });

  it('turns throwing getters and revoked proxies into WebhookParseError', () => {
    const getter = {
      get entry(): unknown {
        throw new Error('boom with 998901234567');
      },
    };
    const { proxy, revoke } = Proxy.revocable({ entry: [] }, {});
    revoke();
    const trap = new Proxy(
      {},
      {
        get() {
          throw new TypeError('trap');
        },
      },
    );
    for (const body of [getter, proxy, trap]) {
      const error = parseError(body);
      expect(error.message).not.toContain('998901234567');
    }
  });

  it('refuses an object input nested past the depth limit with WebhookParseError (a cycle looks the same)', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 200_000; i++) {
      const next: Record<string, unknown> = {};
      deep['n'] = next;
      deep = next;
    }
    const body = envelope([entry([change('mystery', root)])]);
    expect(() => parseWebhook(body)).toThrow(/nests deeper than 64 levels/);
  });

  it('survives deep nesting inside an unknown value (JSON text) with a stable key', () => {
    const body = JSON.stringify(envelope([entry([change('mystery', { n: 1 })])])).replace(
      '{"n":1}',
      `${'{"n":'.repeat(5000)}1${'}'.repeat(5000)}`,
    );
    const first = only(parseWebhook(body), 'unknown');
    const second = only(parseWebhook(body), 'unknown');
    expect(first.idempotencyKey).toBe(second.idempotencyKey);
  });
});

describe('null means absent', () => {
  it('a null optional field does not demote a status or a message to unknown', () => {
    const status = { ...statusObject('read', { id: 'wamid.n1' }), conversation: null, pricing: null };
    const [s] = parseWebhook(statusEnvelope(status as never));
    expect(s?.kind).toBe('status');
    expect(s?.kind === 'status' && s.status.pricing).toBeUndefined();
    const [m] = parseWebhook(messageEnvelope({ ...textMessage(), context: null }));
    expect(m?.kind === 'message' && m.message.type).toBe('text');
  });

  it("a null optional field of the change's metadata or of the sender's contact demotes nothing", () => {
    const body = messageEnvelope(textMessage({ id: 'wamid.n3' }), {
      metadata: { ...FIXTURE_METADATA, display_phone_number: null } as never,
      contacts: [{ ...contact(), user_id: null, profile: { name: 'Ada', username: null } } as never],
    });
    for (const input of [body, JSON.stringify(body)]) {
      const [m] = parseWebhook(input) as MessageEvent[];
      expect(m?.kind).toBe('message');
      expect(m?.message.type).toBe('text');
      expect(m?.metadata).toEqual({ phone_number_id: FIXTURE_METADATA.phone_number_id });
      expect(m?.contact).toEqual({ wa_id: contact().wa_id, profile: { name: 'Ada' } });
    }
  });

  it('a null in a JSON text is stripped wherever it is, whatever text surrounds it', () => {
    const status = { ...statusObject('read', { id: 'wamid.n2' }), pricing: null };
    const [s] = parseWebhook(JSON.stringify(statusEnvelope(status as never)).replace(':null', ' :  null '));
    expect(s?.kind === 'status' && 'pricing' in s.status).toBe(false);
    // Text holding `ull` and `null` apart from a null value, and a null in a field nobody types.
    const text = textMessage({ text: { body: 'a full cart, nullable?' } });
    const [m] = parseWebhook(JSON.stringify(messageEnvelope({ ...text, extra: { note: null, kept: 1 } })));
    if (m?.kind !== 'message' || m.message.type !== 'text') throw new Error(`got ${m?.kind}`);
    expect(m.message.text.body).toBe('a full cart, nullable?');
    expect((m.message as unknown as { extra: unknown }).extra).toEqual({ kept: 1 });
  });

  it('a malformed status and its later valid redelivery are both delivered', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({
      secret: 'null-test-secret-0123456789abcdef',
      onEvent: (e) => void seen.push(e.kind),
    });
    const send = (body: unknown) =>
      handler(
        new Request('https://hook.test/', {
          method: 'POST',
          headers: { authorization: 'Bearer null-test-secret-0123456789abcdef' },
          body: JSON.stringify(body),
        }),
      );
    await send(statusEnvelope({ id: 'wamid.r1', status: 'read', recipient_id: 5 } as never));
    await send(statusEnvelope(statusObject('read', { id: 'wamid.r1' })));
    expect(seen).toEqual(['unknown', 'status']);
  });
});
