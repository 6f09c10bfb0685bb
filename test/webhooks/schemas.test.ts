import { readdirSync } from 'node:fs';
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
} from '../../src/testing/webhook-fixtures.js';
import { MESSAGE_TYPES } from '../../src/webhooks/index.js';
import {
  accountUpdateValueSchema,
  incomingMessageWireSchema,
  knownMessageSchema,
  messageSchemas,
  messagesValueSchema,
  statusSchema,
  templateStatusValueSchema,
  webhookEnvelopeSchema,
} from '../../src/webhooks/schemas.js';

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
  // Required: what routing and deduplication need, plus what every real delivery carries; the rest optional.
  const st = { id: 'w', status: 'sent', timestamp: '1', recipient_id: '1555' };
  const img = { id: 'w', from: '1555', timestamp: '1', type: 'image' };
  const tpl = { message_template_name: 'n', message_template_language: 'en' };

  it('requires what routing and deduplication need (docs/webhooks.md, "What is required"), and only that', () => {
    expect(statusSchema.safeParse(st).success).toBe(true);
    expect(statusSchema.safeParse({ ...st, id: undefined }).success).toBe(false);
    expect(statusSchema.safeParse({ ...st, status: '' }).success).toBe(false);
    expect(statusSchema.safeParse({ ...st, timestamp: undefined }).success).toBe(false);
    // The recipient may be a business-scoped id instead of a number: a status is about the wamid.
    expect(statusSchema.safeParse({ ...st, recipient_id: undefined }).success).toBe(true);
    expect(statusSchema.safeParse({ ...st, recipient_id: 15550001111 }).success).toBe(false);
    const media = { id: 'm', mime_type: 'image/png', sha256: 'f' };
    expect(messageSchemas.image.safeParse({ ...img, image: media }).success).toBe(true);
    expect(messageSchemas.image.safeParse({ ...img, image: { id: 'm' } }).success).toBe(true);
    expect(messageSchemas.image.safeParse({ ...img, image: {} }).success).toBe(false);
    expect(messageSchemas.image.safeParse({ ...img, image: { id: 'm', sha256: 1 } }).success).toBe(false);
    expect(messageSchemas.image.safeParse({ ...img, from: undefined, image: media }).success).toBe(true);
    expect(messageSchemas.image.safeParse({ ...img, type: undefined, image: media }).success).toBe(false);
    expect(
      templateStatusValueSchema.safeParse({ ...tpl, event: 'APPROVED', message_template_id: 1 }).success,
    ).toBe(true);
    expect(templateStatusValueSchema.safeParse({ event: 'APPROVED', message_template_id: 1 }).success).toBe(
      true,
    );
    expect(templateStatusValueSchema.safeParse({ ...tpl, event: 'APPROVED' }).success).toBe(false);
  });

  it('reads an absent template reason as null (the spec gives string or null)', () => {
    const parsed = templateStatusValueSchema.parse({ ...tpl, event: 'APPROVED', message_template_id: 1 });
    expect(parsed.reason).toBeNull();
  });

  it('accepts values of growing enumerations beyond the documented ones', () => {
    expect(statusSchema.safeParse({ ...st, status: 'warning' }).success).toBe(true);
    expect(
      templateStatusValueSchema.safeParse({ ...tpl, event: 'DISABLED', message_template_id: 1 }).success,
    ).toBe(true);
    expect(statusSchema.safeParse({ ...st, status: 7 }).success).toBe(false);
  });

  it('keeps unknown keys', () => {
    const parsed = statusSchema.parse({ ...st, biz_opaque_callback_data: 'abc' });
    expect(parsed['biz_opaque_callback_data']).toBe('abc');
  });

  it('rejects unknown types in the known-message union', () => {
    expect(knownMessageSchema.safeParse(unknownTypeMessage()).success).toBe(false);
  });
});

describe('the message table is the one list of message modules', () => {
  const folder = new URL('../../src/webhooks/messages/', import.meta.url);
  const modules = readdirSync(folder).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.fixture.ts') && f !== 'index.ts',
  );

  it.each(modules)('%s has its schema in messageSchemas and every export re-exported', async (file) => {
    const module = (await import(new URL(file, folder).href)) as Record<string, unknown>;
    const table = (await import('../../src/webhooks/messages/index.js')) as Record<string, unknown>;
    expect(Object.values(module).some((v) => Object.values(messageSchemas).includes(v as never))).toBe(true);
    for (const [name, value] of Object.entries(module)) expect(table[name], name).toBe(value);
  });
});
