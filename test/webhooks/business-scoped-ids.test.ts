/**
 * Users identified without a phone number (issue 22): a message from `from_user_id` only, a status to
 * `recipient_user_id` only, contacts with `user_id` and `profile.username`. They are typed events, `customerOf`
 * says who they are about, and statuses are tracked and deduplicated by wamid whatever identifies the recipient.
 */
import { describe, expect, it } from 'vitest';
import {
  messageEnvelope,
  statusEnvelope,
  statusObject,
  templateStatusEnvelope,
  textMessage,
  unknownTypeMessage,
} from '../../src/testing/webhook-fixtures.js';
import {
  createWebhookHandler,
  customerOf,
  MemoryIdempotencyStore,
  parseWebhook,
  StatusTracker,
  type WebhookContact,
  type WebhookEvent,
  type WebhookStatus,
} from '../../src/webhooks/index.js';

const USER_ID = 'US.13491208655302741918';
const PARENT_ID = 'US.ENT.11815799212886844830';

/** A text message identified by business-scoped id only: no `from`. */
function byUserId(id = 'wamid.byuser'): Record<string, unknown> {
  const { from: _from, ...rest } = textMessage({ id });
  return { ...rest, from_user_id: USER_ID, from_parent_user_id: PARENT_ID };
}

/** A status addressed by business-scoped id only: no `recipient_id`. */
function statusByUserId(status: string, overrides: Partial<WebhookStatus> = {}): WebhookStatus {
  const { recipient_id: _recipient, ...rest } = statusObject(status, { id: 'wamid.out1', ...overrides });
  return { ...rest, recipient_user_id: USER_ID, parent_recipient_user_id: PARENT_ID };
}

const contacts: WebhookContact[] = [
  { profile: { name: 'Someone else' }, wa_id: '15550002222', user_id: 'US.1' },
  { profile: { name: 'Ada', username: 'ada.example' }, user_id: USER_ID, parent_user_id: PARENT_ID },
];

describe('a message from a user known by business-scoped id', () => {
  it('is a typed message; its contact is matched by user_id; customerOf gives the id and username', () => {
    const [event] = parseWebhook(messageEnvelope(byUserId(), { contacts }));
    if (event?.kind !== 'message' || event.message.type !== 'text')
      throw new Error('expected a text message');
    expect(event.message.from).toBeUndefined();
    expect(event.message.from_user_id).toBe(USER_ID);
    expect(event.contact?.profile?.username).toBe('ada.example');
    expect(customerOf(event)).toEqual({
      userId: USER_ID,
      parentUserId: PARENT_ID,
      username: 'ada.example',
      key: USER_ID,
    });
    expect(event.idempotencyKey).toBe('wamid.byuser');
  });

  it('with both forms, the phone number is the key and the id is kept', () => {
    const message = { ...textMessage({ from: '15550001111' }), from_user_id: USER_ID };
    const [event] = parseWebhook(
      messageEnvelope(message, { contacts: [{ wa_id: '15550001111', user_id: USER_ID }] }),
    );
    expect(event && customerOf(event)).toEqual({ phone: '15550001111', userId: USER_ID, key: '15550001111' });
  });

  it('with neither in the message, the change contact says who it is (netflie/whatsapp-cloud-api shape)', () => {
    const { from: _from, ...message } = textMessage();
    const [event] = parseWebhook(messageEnvelope(message, { contacts: [{ user_id: 'BSUID_123' }] }));
    expect(event?.kind === 'message' && event.message.type).toBe('text');
    expect(event && customerOf(event)).toEqual({ userId: 'BSUID_123', key: 'BSUID_123' });
  });

  it('the unknown message variant keeps from_user_id, and customerOf reads it', () => {
    const { from: _from, ...poll } = unknownTypeMessage();
    const [event] = parseWebhook(messageEnvelope({ ...poll, from_user_id: USER_ID }, { contacts: [] }));
    if (event?.kind !== 'message' || event.message.type !== 'unknown') throw new Error('expected unknown');
    expect(event.message.from_user_id).toBe(USER_ID);
    expect(customerOf(event)).toEqual({ userId: USER_ID, key: USER_ID });
  });

  it('customerOf is undefined for events about no user, and for a message that names none', () => {
    const [template] = parseWebhook(templateStatusEnvelope());
    expect(template && customerOf(template)).toBeUndefined();
    const { from: _from, ...anonymous } = textMessage();
    const [event] = parseWebhook(messageEnvelope(anonymous, { contacts: [] }));
    expect(event?.kind).toBe('message');
    expect(event && customerOf(event)).toBeUndefined();
  });
});

describe('a status addressed by business-scoped id', () => {
  it('is a typed status, keyed by wamid and value; customerOf gives the recipient id', () => {
    const [event] = parseWebhook(statusEnvelope(statusByUserId('delivered')));
    if (event?.kind !== 'status') throw new Error(`got ${event?.kind}`);
    expect(event.idempotencyKey).toBe('wamid.out1:delivered');
    expect(event.status.recipient_user_id).toBe(USER_ID);
    expect(customerOf(event)).toEqual({ userId: USER_ID, parentUserId: PARENT_ID, key: USER_ID });
  });

  it('updates StatusTracker: sent, then a failure whose error lacks message and error_data', () => {
    const tracker = new StatusTracker();
    const failed = statusByUserId('failed', { timestamp: '1700000009' });
    failed.errors = [{ code: 131049, title: 'This message was not delivered to maintain healthy ecosystem' }];
    const events = parseWebhook(statusEnvelope([statusByUserId('sent'), failed]));
    for (const event of events) {
      if (event.kind !== 'status') throw new Error(`got ${event.kind}`);
      tracker.update(event);
    }
    const tracked = tracker.get('wamid.out1');
    expect(tracked?.status).toBe('failed');
    expect(tracked?.recipientId).toBeUndefined();
    expect(tracked?.recipientUserId).toBe(USER_ID);
    expect(tracked?.errors?.[0]?.code).toBe(131049);
    expect(tracked?.failedAt).toBe(1700000009);
  });

  it('the webhook handler dedupes its redelivery by wamid', async () => {
    const secret = 's'.repeat(40);
    const seen: WebhookEvent[] = [];
    const handle = createWebhookHandler({
      secret,
      dedupe: new MemoryIdempotencyStore(),
      onEvent: (event) => {
        seen.push(event);
      },
    });
    const body = JSON.stringify(statusEnvelope(statusByUserId('read')));
    const post = () =>
      handle(
        new Request('https://example.com/webhook', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body,
        }),
      );
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    expect(seen.map((e) => `${e.kind}:${e.idempotencyKey}`)).toEqual(['status:wamid.out1:read']);
  });
});

describe('an interactive reply of a kind the spec does not list', () => {
  it('reaches onEvent as an interactive message with its kind and the raw object', async () => {
    const secret = 's'.repeat(40);
    const seen: WebhookEvent[] = [];
    const handle = createWebhookHandler({ secret, onEvent: (e) => void seen.push(e) });
    const interactive = {
      type: 'nfm_reply',
      nfm_reply: { response_json: '{"flow_token":"t"}', body: 'Sent', name: 'flow' },
    };
    const message = { ...textMessage({ id: 'wamid.flow' }), type: 'interactive', interactive };
    const response = await handle(
      new Request('https://example.com/webhook', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify(messageEnvelope(message)),
      }),
    );
    expect(response.status).toBe(200);
    const [event] = seen;
    if (event?.kind !== 'message' || event.message.type !== 'interactive')
      throw new Error('expected interactive');
    expect(event.message.interactive).toEqual({
      type: 'unknown',
      originalType: 'nfm_reply',
      raw: interactive,
    });
  });
});
