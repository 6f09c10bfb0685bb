/**
 * Shared and cyclic object inputs to every public function that takes `unknown`: each ends (a typed error or a
 * result), never hangs and never throws a raw error. Before the fix, `parseWebhook` walked a shared object once
 * per reference down to depth 32: `o.self = o; o.list = [o]` took 13 s, three back-references never finished.
 */
import { describe, expect, it } from 'vitest';
import {
  GatewayClient,
  MessageValidationError,
  validateMessage,
  validateMessageItems,
  validateTemplate,
  WebhookParseError,
} from '../../src/index.js';
import {
  messageEnvelope,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import { parseWebhook } from '../../src/webhooks/index.js';

type Loose = Record<string, unknown>;

/** `o.self = o; o.list = [o, o, o]`: the issue's input, with three back-references. */
function cyclic(): Loose {
  const o: Loose = { a: 1 };
  o['self'] = o;
  o['list'] = [o, o, o];
  return o;
}

/** No cycle, but 4 references per level: 4^40 values if walked as a tree. */
function shared(levels = 40): Loose {
  let x: Loose = { v: 'x' };
  for (let i = 0; i < levels; i++) x = { a: x, b: x, c: [x, x] };
  return x;
}

function hostileEnvelopes(): unknown[] {
  const selfValue: Loose = { messaging_product: 'whatsapp' };
  selfValue['statuses'] = [selfValue];
  const env = messageEnvelope(textMessage()) as Loose;
  const entries = env['entry'] as Loose[];
  entries.push(entries[0]!, entries[0]!);
  return [
    cyclic(),
    shared(),
    { entry: [{ id: '1', changes: [{ field: 'messages', value: selfValue }] }] },
    { entry: [{ id: '1', changes: [{ field: 'other', value: shared() }] }] },
    {
      entry: [
        {
          id: '1',
          changes: [{ field: 'messages', value: { messages: [{ ...textMessage(), x: shared() }] } }],
        },
      ],
    },
  ];
}

describe('parseWebhook on shared and cyclic objects', () => {
  it.each(hostileEnvelopes().map((input, i) => [i, input]))(
    'input %i ends in events or WebhookParseError',
    (_, input) => {
      try {
        const events = parseWebhook(input as object);
        expect(Array.isArray(events)).toBe(true);
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookParseError);
      }
    },
  );

  it('refuses a cycle with a WebhookParseError that says so and where', () => {
    const err = (() => {
      try {
        parseWebhook(cyclic());
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WebhookParseError);
    expect((err as WebhookParseError).message).toMatch(/refers to itself/);
    expect((err as WebhookParseError).path[0]).toBe('self');
  });

  it('refuses shared references that expand past the value budget', () => {
    expect(() => parseWebhook({ entry: [{ id: '1', changes: [{ field: 'x', value: shared() }] }] })).toThrow(
      /more than 100000 values/,
    );
  });

  it('accepts modest sharing: one metadata object used by two changes', () => {
    const metadata = { display_phone_number: '15550001111', phone_number_id: 'PN1' };
    const value = { messaging_product: 'whatsapp', metadata, statuses: [statusObject('sent')] };
    const events = parseWebhook({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            { field: 'messages', value },
            { field: 'messages', value },
          ],
        },
      ],
    });
    expect(events.map((e) => e.kind)).toEqual(['status', 'status']);
  });

  it('the null-stripping copy still means absent, keeps nulls inside lists, and a __proto__ key stays data', () => {
    const status = { ...statusObject('read', { id: 'wamid.n1' }), conversation: null, pricing: null };
    const [event] = parseWebhook(JSON.stringify(statusEnvelope([status as never])));
    expect(event?.kind).toBe('status');
    const item = JSON.parse(`{"__proto__":{"polluted":true},"context":null}`) as Loose;
    const [m] = parseWebhook(messageEnvelope({ ...textMessage(), ...item }));
    expect(m?.kind).toBe('message');
    expect(({} as Loose)['polluted']).toBeUndefined();
  });

  it('an object input is parsed from a copy: a getter runs once, not once per walk', () => {
    let reads = 0;
    const message = textMessage();
    const item = Object.defineProperty({ ...message }, 'text', {
      enumerable: true,
      get: () => {
        reads++;
        return message.text;
      },
    });
    const [event] = parseWebhook(messageEnvelope(item));
    expect(event?.kind === 'message' && event.message.type).toBe('text');
    expect(reads).toBe(1);
  });
});

describe('validation entry points on shared and cyclic objects', () => {
  const inputs: [string, unknown][] = [
    ['cyclic', cyclic()],
    ['shared', shared()],
    ['cyclic message', Object.assign(cyclic(), { to: '998901234567', type: 'text', text: { body: 'hi' } })],
    [
      'shared components',
      { name: 'n', language: 'en', category: 'MARKETING', components: [shared(), shared()] },
    ],
  ];
  it.each(inputs)('%s: validateTemplate, validateMessage and validateMessageItems answer', (_, input) => {
    expect(validateTemplate(input).valid).toBe(false);
    expect(typeof validateMessage(input).valid).toBe('boolean');
    expect(validateMessageItems([input]).valid).toBe(false);
  });

  it('a cyclic message that passes the rules is refused before sending, naming the field', async () => {
    const message = Object.assign(cyclic(), { to: '998901234567', type: 'text', text: { body: 'hi' } });
    const gw = new GatewayClient({ apiKey: 'k_0123456789abcdef', baseUrl: 'http://127.0.0.1:9' });
    // Messages are closed (an unknown key is refused by the rules), so the guard is reached with validate: false.
    const error = await gw.messages.send(message as never, { validate: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageValidationError);
    const [first] = (error as MessageValidationError).issues;
    expect(first).toMatchObject({
      code: 'unserialisable',
      message: expect.stringMatching(/refers to itself/),
    });
    expect(first?.path[0]).toBe('self');
  });

  it('shared references that would make JSON.stringify write 4^40 values are refused before sending', async () => {
    const gw = new GatewayClient({ apiKey: 'k_0123456789abcdef', baseUrl: 'http://127.0.0.1:9' });
    const message = { to: '998901234567', type: 'text', text: { body: 'hi' } } as const;
    const error = await gw.messages
      .send(message, { extraFields: { extra: shared() } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).message).toMatch(
      /^Invalid request body: extra(\.\w+)+: .*more than 100000 values/,
    );
  });

  it('a BigInt in a message is a MessageValidationError naming its field', async () => {
    const gw = new GatewayClient({ apiKey: 'k_0123456789abcdef', baseUrl: 'http://127.0.0.1:9' });
    const message = { to: '998901234567', type: 'text', text: { body: 'hi' } } as const;
    const error = await gw.messages
      .send(message, { extraFields: { extra: { n: 10n } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).message).toMatch(/extra\.n.*BigInt/);
  });

  it.each(inputs)(
    '%s: messages.send rejects with MessageValidationError and sends nothing',
    async (_, input) => {
      let calls = 0;
      const gw = new GatewayClient({
        apiKey: 'k_0123456789abcdef',
        baseUrl: 'http://127.0.0.1:9',
        fetch: async () => {
          calls++;
          return new Response('{}');
        },
      });
      await expect(gw.messages.send(input as never)).rejects.toBeInstanceOf(MessageValidationError);
      expect(calls).toBe(0);
    },
  );
});
