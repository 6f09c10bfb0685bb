import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  buttonMessage,
  FIXTURE_METADATA,
  listReplyMessage,
  messageEnvelope,
  orderMessage,
  reactionMessage,
  statusEnvelope,
  statusObject,
} from '../../src/testing/webhook-fixtures.js';
import {
  type ButtonMessage,
  createWebhookHandler,
  type MessageEvent,
  type OrderItem,
  parseWebhook,
  type ReactionMessage,
  type StatusEvent,
  StatusTracker,
  type WebhookEvent,
  type WebhookMetadata,
} from '../../src/webhooks/index.js';

// The rule (docs/webhooks.md, "What is required"): required is what routing and deduplication need plus what every
// real delivery carries, typed without `undefined` (no `!` in handlers); everything else is optional, and its
// absence never turns a typed event into `unknown`. A delivery lacking a required field is still delivered: a
// message's content becomes the `unknown` message variant (raw kept, issues name the field); a message or status in
// a change without `value.metadata.phone_number_id` becomes an `unknown` event (raw kept). Never dropped.

type ListReply = Extract<MessageEvent['message'], { type: 'interactive' }>['interactive'] & {
  type: 'list_reply';
};

describe('required webhook fields are typed required, the rest optional', () => {
  it('list_reply.title, order item quantity, event.metadata: required; emoji, price, sender: optional', () => {
    expectTypeOf<ListReply['list_reply']['title']>().toEqualTypeOf<string>();
    expectTypeOf<ListReply['list_reply']['description']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReactionMessage['reaction']['message_id']>().toEqualTypeOf<string>();
    expectTypeOf<ReactionMessage['reaction']['emoji']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<OrderItem['quantity']>().toEqualTypeOf<number>();
    expectTypeOf<OrderItem['item_price']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<MessageEvent['metadata']>().toEqualTypeOf<WebhookMetadata>();
    expectTypeOf<StatusEvent['metadata']>().toEqualTypeOf<WebhookMetadata>();
    expectTypeOf<WebhookMetadata['phone_number_id']>().toEqualTypeOf<string>();
    expectTypeOf<WebhookMetadata['display_phone_number']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<StatusEvent['status']['id']>().toEqualTypeOf<string>();
    expectTypeOf<StatusEvent['status']['recipient_id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<StatusEvent['status']['recipient_user_id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReactionMessage['from']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReactionMessage['from_user_id']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ButtonMessage['button']['payload']>().toEqualTypeOf<string>();
    expectTypeOf<ButtonMessage['button']['text']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<ButtonMessage['context']>['id']>().toEqualTypeOf<string | undefined>();
  });

  it('every fixture still produces a typed event', () => {
    const events = [
      ...parseWebhook(messageEnvelope([listReplyMessage(), reactionMessage(), orderMessage()])),
      ...parseWebhook(statusEnvelope(['sent', 'delivered', 'read', 'failed'].map((s) => statusObject(s)))),
    ];
    expect(events.map((e) => (e.kind === 'message' ? e.message.type : e.kind))).toEqual([
      'interactive',
      'reaction',
      'order',
      'status',
      'status',
      'status',
      'status',
    ]);
    for (const e of events)
      if (e.kind === 'message' || e.kind === 'status') expect(e.metadata).toEqual(FIXTURE_METADATA);
  });
});

/** A fixture with one field deleted at `path`. */
function without<T extends object>(message: T, path: (string | number)[]): T {
  const copy = structuredClone(message) as Record<string | number, unknown>;
  let node = copy;
  for (const seg of path.slice(0, -1)) node = node[seg] as Record<string | number, unknown>;
  delete node[path.at(-1)!];
  return copy as T;
}

const INCOMPLETE: [string, Record<string, unknown>, (string | number)[]][] = [
  ['list_reply.title', listReplyMessage(), ['interactive', 'list_reply', 'title']],
  ['reaction.message_id', reactionMessage(), ['reaction', 'message_id']],
  ['order item quantity', orderMessage(), ['order', 'product_items', 0, 'quantity']],
  ['button.payload', buttonMessage(), ['button', 'payload']],
  ['button.text', buttonMessage(), ['button', 'text']],
];

/** Descriptive fields real deliveries omit: without them the message keeps its type. */
const DESCRIPTIVE: [string, Record<string, unknown>, (string | number)[]][] = [
  ['reaction.emoji', reactionMessage(), ['reaction', 'emoji']],
  ['order item price', orderMessage(), ['order', 'product_items', 0, 'item_price']],
  ['order catalog_id', orderMessage(), ['order', 'catalog_id']],
  ['from (a sender known by from_user_id)', reactionMessage(), ['from']],
  ['context (a quick-reply tap without it)', buttonMessage(), ['context']],
];

describe('a delivery lacking a descriptive field keeps its type', () => {
  it.each(DESCRIPTIVE)('a message without %s is typed', (_, full, path) => {
    const item = without(full, path);
    const [event] = parseWebhook(messageEnvelope(item));
    if (event?.kind !== 'message') throw new Error(`got ${event?.kind}`);
    expect(event.message.type).toBe(full['type']);
    expect(event.message).toEqual(item);
  });

  it('a status without recipient_id and a failed status whose error lacks message and error_data', () => {
    const byId = without(statusObject('delivered', { id: 'wamid.byid' }), ['recipient_id']);
    Object.assign(byId, { recipient_user_id: 'US.1349120865530274' });
    const failed = statusObject('failed', { id: 'wamid.failed' });
    failed.errors = [{ code: 131026, title: 'Message undeliverable' }];
    const events = parseWebhook(statusEnvelope([byId, failed]));
    expect(events.map((e) => (e.kind === 'status' ? `${e.status.id}:${e.status.status}` : e.kind))).toEqual([
      'wamid.byid:delivered',
      'wamid.failed:failed',
    ]);
    expect(events.map((e) => e.idempotencyKey)).toEqual(['wamid.byid:delivered', 'wamid.failed:failed']);
  });
});

describe('what a status says about billing and errors never makes it unknown', () => {
  // The reviewer's bodies: each was `unknown` (and so never reached a StatusTracker) while a field inside an
  // optional descriptive object (error_data, pricing, conversation) was required.
  const cases = {
    'a failed status whose error_data is {}': {
      id: 'wamid.A',
      status: 'failed',
      timestamp: '2',
      recipient_id: '1',
      errors: [{ code: 131047, title: 'Re-engagement message', error_data: {} }],
    },
    'a delivered status whose pricing has no pricing_model nor category': {
      id: 'wamid.B',
      status: 'delivered',
      timestamp: '2',
      recipient_id: '1',
      pricing: { billable: true, type: 'regular' },
    },
    'a delivered status whose conversation has no origin': {
      id: 'wamid.C',
      status: 'delivered',
      timestamp: '2',
      recipient_id: '1',
      conversation: { id: 'c1' },
    },
    'a delivered status whose conversation has an origin without type and no id': {
      id: 'wamid.D',
      status: 'delivered',
      timestamp: '2',
      recipient_id: '1',
      conversation: { origin: {} },
    },
  } as const;

  it.each(Object.entries(cases))('%s is a status the tracker applies', (_, status) => {
    const tracker = new StatusTracker();
    const sent = parseWebhook(
      statusEnvelope({ id: status.id, status: 'sent', timestamp: '1', recipient_id: '1' }),
    );
    const [event] = parseWebhook(statusEnvelope(status as unknown as StatusEvent['status']));
    if (sent[0]?.kind !== 'status' || event?.kind !== 'status') throw new Error(`got ${event?.kind}`);
    tracker.update(sent[0]);
    tracker.update(event);
    expect(tracker.get(status.id)?.status).toBe(status.status);
    if (status.status === 'delivered' && 'pricing' in status)
      expect(tracker.get(status.id)?.billable).toBe(true);
    if (status.status === 'failed') expect(tracker.get(status.id)?.errors).toEqual(status.errors);
  });
});

describe('a delivery lacking a required field is delivered, never dropped', () => {
  it.each(INCOMPLETE)(
    'a message without %s is the unknown variant, raw kept, the field named',
    (_, full, path) => {
      const item = without(full, path);
      const [event] = parseWebhook(messageEnvelope(item));
      expect(event?.kind).toBe('message');
      if (event?.kind !== 'message' || event.message.type !== 'unknown') throw new Error('expected unknown');
      expect(event.message.originalType).toBe(full['type']);
      expect(event.message.raw).toEqual(item);
      expect(event.message.issues.map((i) => i.path)).toEqual([path]);
      expect(event.idempotencyKey).toBe(full['id']);
    },
  );

  it('a message and a status in a change without metadata are unknown events with the raw item', () => {
    const body = messageEnvelope(listReplyMessage({}, { id: 'wamid.nometa' }));
    const value = body.entry[0]!.changes[0]!.value as Record<string, unknown>;
    delete value['metadata'];
    value['statuses'] = [statusObject('read', { id: 'wamid.out' })];
    const events = parseWebhook(body);
    expect(events.map((e) => e.kind)).toEqual(['unknown', 'unknown']);
    const [message, status] = events as Extract<WebhookEvent, { kind: 'unknown' }>[];
    expect(message!.raw).toEqual((value['messages'] as unknown[])[0]);
    expect(message!.issues[0]?.path).toEqual(['metadata']);
    expect(message!.issues[0]?.message).toContain('value.metadata');
    // Not the keys of the complete events, so a complete redelivery is not taken for a duplicate.
    expect(message!.idempotencyKey).toBe('unknown:wamid.nometa');
    expect(status!.idempotencyKey).toBe('unknown:wamid.out:read');
  });

  it('a metadata without phone_number_id is treated the same; one without display_phone_number is not', () => {
    const body = statusEnvelope(statusObject('sent'), {
      metadata: { display_phone_number: '15550009999' } as WebhookMetadata,
    });
    const [event] = parseWebhook(body);
    expect(event?.kind).toBe('unknown');
    if (event?.kind === 'unknown') expect(event.issues[0]?.path).toEqual(['metadata', 'phone_number_id']);
    const [typed] = parseWebhook(
      statusEnvelope(statusObject('sent'), { metadata: { phone_number_id: '1' } }),
    );
    expect(typed?.kind).toBe('status');
  });

  it('the webhook handler hands every one of them to onEvent and answers 200', async () => {
    const secret = 's'.repeat(40);
    const seen: string[] = [];
    const handle = createWebhookHandler({
      secret,
      onEvent: (e) => {
        seen.push(e.kind === 'message' ? `message:${e.message.type}` : e.kind);
      },
    });
    const items = INCOMPLETE.map(([, full, path]) => without(full, path));
    const body = messageEnvelope(items);
    const value = body.entry[0]!.changes[0]!.value as Record<string, unknown>;
    body.entry.push({
      id: '2',
      changes: [{ field: 'messages', value: { statuses: [statusObject('sent')] } }],
    });
    const response = await handle(
      new Request('https://example.com/webhook', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    expect(value['messages']).toHaveLength(INCOMPLETE.length);
    expect(response.status).toBe(200);
    expect(seen).toEqual([...INCOMPLETE.map(() => 'message:unknown'), 'unknown']);
  });
});
