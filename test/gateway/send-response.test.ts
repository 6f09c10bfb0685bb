import { describe, expect, it } from 'vitest';
import { sendResponseSchema } from '../../src/gateway/message-schema.js';
import { readSendResponse } from '../../src/gateway/send-response.js';

/** What the schema alone makes of an answer: the reference the hand-checked happy path must agree with. */
function bySchema(data: unknown) {
  const parsed = sendResponseSchema.safeParse(data);
  return parsed.success
    ? { messageId: parsed.data.data.messages[0]!.id, contacts: parsed.data.data.contacts }
    : undefined;
}

const ok = (data: Record<string, unknown>) => ({ isSuccess: true, data });
const answers: [string, unknown][] = [
  [
    'the usual answer',
    ok({
      messaging_product: 'whatsapp',
      contacts: [{ input: '1', wa_id: '1' }],
      messages: [{ id: 'wamid.A' }],
    }),
  ],
  [
    'extra fields kept loose',
    ok({ contacts: [{ input: '1', extra: 2 }], messages: [{ id: 'wamid.A', status: 'x' }], more: 1 }),
  ],
  ['no contacts (schema default)', ok({ messages: [{ id: 'wamid.A' }] })],
  ['malformed contacts (schema catch)', ok({ contacts: [{ wa_id: 7 }], messages: [{ id: 'wamid.A' }] })],
  ['contacts not an array', ok({ contacts: 'x', messages: [{ id: 'wamid.A' }] })],
  ['empty message id', ok({ contacts: [], messages: [{ id: '' }] })],
  ['a later message without id', ok({ contacts: [], messages: [{ id: 'wamid.A' }, {}] })],
  ['no messages', ok({ contacts: [], messages: [] })],
  [
    'messaging_product not a string',
    ok({ messaging_product: 1, contacts: [], messages: [{ id: 'wamid.A' }] }),
  ],
  ['isSuccess false', { isSuccess: false, data: { contacts: [], messages: [{ id: 'wamid.A' }] } }],
  ['data an array', { isSuccess: true, data: [] }],
  ['not an object', 'wamid.A'],
  ['null', null],
];

describe('readSendResponse', () => {
  it.each(answers)('agrees with sendResponseSchema: %s', (_, data) => {
    expect(readSendResponse(data)).toEqual(bySchema(data));
  });

  it('returns contacts that share no object with the raw answer', () => {
    const data = ok({ contacts: [{ input: '1', wa_id: '1' }], messages: [{ id: 'wamid.A' }] });
    const read = readSendResponse(data);
    const raw = (data.data as { contacts: object[] }).contacts[0];
    expect(read?.contacts[0]).toEqual(raw);
    expect(read?.contacts[0]).not.toBe(raw);
  });
});
