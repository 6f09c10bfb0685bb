import { describe, expect, it } from 'vitest';
import { readSendResponse } from '../../src/gateway/send-response.js';

const ok = (data: Record<string, unknown>) => ({ isSuccess: true, data });
type Read = ReturnType<typeof readSendResponse>;
const answers: [string, unknown, Read][] = [
  [
    'the usual answer',
    ok({
      messaging_product: 'whatsapp',
      contacts: [{ input: '1', wa_id: '1' }],
      messages: [{ id: 'wamid.A' }],
    }),
    { messageId: 'wamid.A', contacts: [{ input: '1', wa_id: '1' }] },
  ],
  [
    'extra fields kept loose',
    ok({ contacts: [{ input: '1', extra: 2 }], messages: [{ id: 'wamid.A', status: 'x' }], more: 1 }),
    { messageId: 'wamid.A', contacts: [{ input: '1', extra: 2 }] },
  ],
  ['no contacts: none', ok({ messages: [{ id: 'wamid.A' }] }), { messageId: 'wamid.A', contacts: [] }],
  [
    'malformed contacts do not hide the message id',
    ok({ contacts: [{ wa_id: 7 }], messages: [{ id: 'wamid.A' }] }),
    { messageId: 'wamid.A', contacts: [] },
  ],
  [
    'contacts not an array',
    ok({ contacts: 'x', messages: [{ id: 'wamid.A' }] }),
    { messageId: 'wamid.A', contacts: [] },
  ],
  ['empty message id', ok({ contacts: [], messages: [{ id: '' }] }), undefined],
  ['a later message without id', ok({ contacts: [], messages: [{ id: 'wamid.A' }, {}] }), undefined],
  ['no messages', ok({ contacts: [], messages: [] }), undefined],
  [
    'messaging_product not a string',
    ok({ messaging_product: 1, contacts: [], messages: [{ id: 'wamid.A' }] }),
    undefined,
  ],
  ['isSuccess false', { isSuccess: false, data: { contacts: [], messages: [{ id: 'wamid.A' }] } }, undefined],
  ['data an array', { isSuccess: true, data: [] }, undefined],
  ['not an object', 'wamid.A', undefined],
  ['null', null, undefined],
];

describe('readSendResponse', () => {
  it.each(answers)('%s', (_, data, expected) => {
    expect(readSendResponse(data)).toEqual(expected);
  });

  it('returns contacts that share no object with the raw answer', () => {
    const data = ok({ contacts: [{ input: '1', wa_id: '1' }], messages: [{ id: 'wamid.A' }] });
    const read = readSendResponse(data);
    const raw = (data.data as { contacts: object[] }).contacts[0];
    expect(read?.contacts[0]).toEqual(raw);
    expect(read?.contacts[0]).not.toBe(raw);
  });

  it('gives each malformed answer an array of its own: a caller pushing into one changes no other', () => {
    const malformed = () => ok({ contacts: [{ wa_id: 7 }], messages: [{ id: 'wamid.A' }] });
    const first = readSendResponse(malformed());
    first?.contacts.push({ input: 'mine', wa_id: '1' });
    expect(readSendResponse(malformed())?.contacts).toEqual([]);
    expect(readSendResponse(ok({ contacts: 'x', messages: [{ id: 'wamid.A' }] }))?.contacts).toEqual([]);
  });
});
