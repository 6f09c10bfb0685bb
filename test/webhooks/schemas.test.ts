import { describe, expect, it } from 'vitest';
import {
  accountUpdateEnvelope,
  accountUpdateValue,
  entry,
  envelope,
  everyMessageType,
  messageEnvelope,
  messagesChange,
  statusEnvelope,
  statusObject,
  templateStatusEnvelope,
  templateStatusValue,
  textMessage,
  unknownTypeMessage,
} from '../../src/webhooks/fixtures.js';
import {
  accountUpdateValueSchema,
  incomingMessageWireSchema,
  knownMessageSchema,
  MESSAGE_TYPES,
  messageSchemas,
  messagesValueSchema,
  statusSchema,
  templateStatusValueSchema,
  webhookEnvelopeSchema,
} from '../../src/webhooks/index.js';

describe('schemas accept every fixture', () => {
  it('each documented message type has a schema and a fixture that it accepts', () => {
    const fixtures = everyMessageType();
    const covered = new Set(Object.values(fixtures).map((m) => m.type));
    expect([...covered].sort()).toEqual([...MESSAGE_TYPES].sort());
    for (const message of Object.values(fixtures)) {
      const schema = messageSchemas[message.type as keyof typeof messageSchemas];
      expect(schema.safeParse(message).success, message.type).toBe(true);
      expect(knownMessageSchema.safeParse(message).success, message.type).toBe(true);
      expect(webhookEnvelopeSchema.safeParse(messageEnvelope(message)).success).toBe(true);
    }
  });

  it('statuses, template updates and account updates', () => {
    for (const s of ['sent', 'delivered', 'read', 'failed']) {
      expect(statusSchema.safeParse(statusObject(s)).success, s).toBe(true);
      expect(webhookEnvelopeSchema.safeParse(statusEnvelope(statusObject(s))).success).toBe(true);
    }
    expect(templateStatusValueSchema.safeParse(templateStatusValue({ event: 'REJECTED' })).success).toBe(
      true,
    );
    expect(accountUpdateValueSchema.safeParse(accountUpdateValue()).success).toBe(true);
    expect(webhookEnvelopeSchema.safeParse(templateStatusEnvelope()).success).toBe(true);
    expect(webhookEnvelopeSchema.safeParse(accountUpdateEnvelope()).success).toBe(true);
  });

  it('a multi-entry envelope, and a messages value with an unknown message type', () => {
    const body = envelope([
      entry([messagesChange({ messages: [textMessage(), unknownTypeMessage()] })], 'a'),
      entry([messagesChange({ statuses: [statusObject('read')] })], 'b'),
    ]);
    expect(webhookEnvelopeSchema.safeParse(body).success).toBe(true);
    expect(messagesValueSchema.safeParse(body.entry[0]?.changes[0]?.value).success).toBe(true);
    expect(incomingMessageWireSchema.safeParse(unknownTypeMessage()).success).toBe(true);
  });
});

describe('schemas: strict minimum, open enumerations, loose objects', () => {
  it('requires the identifying fields only', () => {
    expect(statusSchema.safeParse({ id: 'w', status: 'sent' }).success).toBe(true);
    expect(statusSchema.safeParse({ status: 'sent' }).success).toBe(false);
    expect(statusSchema.safeParse({ id: 'w', status: '' }).success).toBe(false);
    expect(messageSchemas.image.safeParse({ id: 'w', type: 'image', image: { id: 'm' } }).success).toBe(true);
    expect(messageSchemas.image.safeParse({ id: 'w', type: 'image', image: {} }).success).toBe(false);
    expect(templateStatusValueSchema.safeParse({ event: 'APPROVED', message_template_id: 1 }).success).toBe(
      true,
    );
    expect(templateStatusValueSchema.safeParse({ event: 'APPROVED' }).success).toBe(false);
  });

  it('accepts values of growing enumerations beyond the documented ones', () => {
    expect(statusSchema.safeParse({ id: 'w', status: 'warning' }).success).toBe(true);
    expect(templateStatusValueSchema.safeParse({ event: 'DISABLED', message_template_id: 1 }).success).toBe(
      true,
    );
    expect(statusSchema.safeParse({ id: 'w', status: 7 }).success).toBe(false);
  });

  it('keeps unknown keys', () => {
    const parsed = statusSchema.parse({ id: 'w', status: 'sent', biz_opaque_callback_data: 'abc' });
    expect(parsed['biz_opaque_callback_data']).toBe('abc');
  });

  it('rejects unknown types in the known-message union', () => {
    expect(knownMessageSchema.safeParse(unknownTypeMessage()).success).toBe(false);
  });
});
