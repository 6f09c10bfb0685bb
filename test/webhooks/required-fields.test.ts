import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  FIXTURE_METADATA,
  listReplyMessage,
  messageEnvelope,
  orderMessage,
  reactionMessage,
  statusEnvelope,
  statusObject,
} from '../../src/webhooks/fixtures.js';
import {
  createWebhookHandler,
  type MessageEvent,
  type OrderItem,
  parseWebhook,
  type ReactionMessage,
  type StatusEvent,
  type WebhookEvent,
  type WebhookMetadata,
} from '../../src/webhooks/index.js';

// Spec-required fields are typed as the spec gives them (no `!` in handlers), and a delivery that lacks one is
// still delivered: a message's content becomes the `unknown` message variant (raw kept, issues name the field);
// a message or status in a change without `value.metadata` becomes an `unknown` event (raw kept). Never dropped.

type ListReply = Extract<MessageEvent['message'], { type: 'interactive' }>['interactive'] & {
  type: 'list_reply';
};

describe('spec-required webhook fields are typed required', () => {
  it('list_reply.title, reaction.emoji, order item quantity, event.metadata', () => {
    expectTypeOf<ListReply['list_reply']['title']>().toEqualTypeOf<string>();
    expectTypeOf<ListReply['list_reply']['description']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReactionMessage['reaction']['emoji']>().toEqualTypeOf<string>();
    expectTypeOf<OrderItem['quantity']>().toEqualTypeOf<number>();
    expectTypeOf<OrderItem['item_price']>().toEqualTypeOf<number>();
    expectTypeOf<MessageEvent['metadata']>().toEqualTypeOf<WebhookMetadata>();
    expectTypeOf<StatusEvent['metadata']>().toEqualTypeOf<WebhookMetadata>();
    expectTypeOf<WebhookMetadata['phone_number_id']>().toEqualTypeOf<string>();
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
  ['reaction.emoji', reactionMessage(), ['reaction', 'emoji']],
  ['order item quantity', orderMessage(), ['order', 'product_items', 0, 'quantity']],
];

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

  it('a metadata missing one of its fields is treated the same', () => {
    const body = statusEnvelope(statusObject('sent'), {
      metadata: { phone_number_id: '1' } as WebhookMetadata,
    });
    const [event] = parseWebhook(body);
    expect(event?.kind).toBe('unknown');
    if (event?.kind === 'unknown')
      expect(event.issues[0]?.path).toEqual(['metadata', 'display_phone_number']);
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
    expect(value['messages']).toHaveLength(3);
    expect(response.status).toBe(200);
    expect(seen).toEqual(['message:unknown', 'message:unknown', 'message:unknown', 'unknown']);
  });
});
