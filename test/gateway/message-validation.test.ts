import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  GatewayClient,
  MessageValidationError,
  normalizeRecipient,
  type OutboundMessage,
  validateMessage,
} from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const to = '998901234567';

const valid: Record<string, OutboundMessage> = {
  text: { to, type: 'text', text: { body: 'Hello https://example.com', preview_url: true } },
  textMax: { to, type: 'text', text: { body: 'x'.repeat(4096) } },
  image: { to, type: 'image', image: { link: 'https://cdn.example.com/a.jpg', caption: 'A' } },
  audio: { to, type: 'audio', audio: { link: 'https://cdn.example.com/a.ogg' } },
  document: {
    to,
    type: 'document',
    document: { link: 'https://cdn.example.com/a.pdf', caption: 'c', filename: 'a.pdf' },
  },
  templateNoVars: { to, type: 'template', template: { name: 'hello_world', language: { code: 'en_US' } } },
  template: {
    to,
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en' },
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/h.png' } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ali' },
            { type: 'currency', currency: { code: 'USD', amount_1000: 1000 } },
          ],
        },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'abc' }] },
        { type: 'button', sub_type: 'quick_reply', index: 1, parameters: [{ type: 'text', text: 'yes' }] },
      ],
    },
  },
  buttons: {
    to,
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: 'Pick one' },
      action: {
        buttons: [
          { type: 'reply', reply: { id: 'a'.repeat(256), title: 'x'.repeat(20) } },
          { type: 'reply', reply: { id: 'b', title: 'B' } },
          { type: 'reply', reply: { id: 'c', title: 'C' } },
        ],
      },
    },
  },
  list: {
    to,
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: 'Menu' },
      action: {
        button: 'y'.repeat(20),
        sections: [
          { title: 'Main', rows: [{ id: 'r'.repeat(200), title: 't'.repeat(24), description: 'd' }] },
        ],
      },
    },
  },
};

describe('valid messages of every type pass and go out with messaging_product filled', () => {
  it.each(Object.entries(valid))('%s', async (_name, message) => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(sendOk());
      }),
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    await gw.messages.send(message);
    expect(body).toMatchObject({ messaging_product: 'whatsapp', to, type: message.type });
    expect(body?.[message.type]).toBeDefined();
  });

  it('sends a numeric button index as the string the wire wants', () => {
    const r = validateMessage(valid['template']);
    expect(r.valid).toBe(true);
    if (r.valid && r.message.type === 'template') expect(r.message.template.components?.[3]?.index).toBe('1');
  });
});

/** Each case: a message and the paths of the issues it must yield (all of them, in order). */
const invalid: [string, unknown, (string | number)[][]][] = [
  ['no object', null, [[]]],
  ['unknown type', { to, type: 'video', video: {} }, [['type']]],
  ['to with +', { to: '+998901234567', type: 'text', text: { body: 'x' } }, [['to']]],
  ['to with spaces and dashes', { to: '998 90 123-45-67', type: 'text', text: { body: 'x' } }, [['to']]],
  ['to too long', { to: '1234567890123456', type: 'text', text: { body: 'x' } }, [['to']]],
  ['text body too long', { to, type: 'text', text: { body: 'x'.repeat(4097) } }, [['text', 'body']]],
  ['text body empty', { to, type: 'text', text: { body: '' } }, [['text', 'body']]],
  ['text missing', { to, type: 'text' }, [['text']]],
  [
    'preview_url not boolean',
    { to, type: 'text', text: { body: 'x', preview_url: 'yes' } },
    [['text', 'preview_url']],
  ],
  ['image link not a URL', { to, type: 'image', image: { link: 'cdn/a.jpg' } }, [['image', 'link']]],
  ['image link ftp', { to, type: 'image', image: { link: 'ftp://x.com/a.jpg' } }, [['image', 'link']]],
  ['audio without link', { to, type: 'audio', audio: {} }, [['audio', 'link']]],
  [
    'document caption not string',
    { to, type: 'document', document: { link: 'https://x.com/a', caption: 5 } },
    [['document', 'caption']],
  ],
  [
    'template without name',
    { to, type: 'template', template: { language: { code: 'en' } } },
    [['template', 'name']],
  ],
  [
    'template without language code',
    { to, type: 'template', template: { name: 'a', language: {} } },
    [['template', 'language', 'code']],
  ],
  [
    'button component without sub_type and index',
    {
      to,
      type: 'template',
      template: { name: 'a', language: { code: 'en' }, components: [{ type: 'button', parameters: [] }] },
    },
    [
      ['template', 'components', 0, 'sub_type'],
      ['template', 'components', 0, 'index'],
    ],
  ],
  [
    'sub_type on a body component',
    {
      to,
      type: 'template',
      template: {
        name: 'a',
        language: { code: 'en' },
        components: [{ type: 'body', sub_type: 'url', parameters: [] }],
      },
    },
    [['template', 'components', 0, 'sub_type']],
  ],
  [
    'button index out of range',
    {
      to,
      type: 'template',
      template: {
        name: 'a',
        language: { code: 'en' },
        components: [{ type: 'button', sub_type: 'url', index: '3', parameters: [] }],
      },
    },
    [['template', 'components', 0, 'index']],
  ],
  [
    'text parameter without text, image parameter without link',
    {
      to,
      type: 'template',
      template: {
        name: 'a',
        language: { code: 'en' },
        components: [
          { type: 'body', parameters: [{ type: 'text' }, { type: 'image', image: {} }, { type: 'video' }] },
        ],
      },
    },
    [
      ['template', 'components', 0, 'parameters', 0, 'text'],
      ['template', 'components', 0, 'parameters', 1, 'image', 'link'],
      ['template', 'components', 0, 'parameters', 2, 'video'],
    ],
  ],
  [
    'four buttons, duplicate ids, long id and title',
    {
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'b' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'a', title: 'A' } },
            { type: 'reply', reply: { id: 'a', title: 'x'.repeat(21) } },
            { type: 'reply', reply: { id: 'i'.repeat(257), title: 'C' } },
            { type: 'reply', reply: { id: 'd', title: 'D' } },
          ],
        },
      },
    },
    [
      ['interactive', 'action', 'buttons', 1, 'reply', 'title'],
      ['interactive', 'action', 'buttons', 2, 'reply', 'id'],
      ['interactive', 'action', 'buttons'],
      ['interactive', 'action', 'buttons', 1, 'reply', 'id'],
    ],
  ],
  [
    'duplicate button ids alone',
    {
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'b' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'a', title: 'A' } },
            { type: 'reply', reply: { id: 'a', title: 'B' } },
          ],
        },
      },
    },
    [['interactive', 'action', 'buttons', 1, 'reply', 'id']],
  ],
  [
    'zero buttons and a non-reply button type',
    {
      to,
      type: 'interactive',
      interactive: { type: 'button', body: { text: 'b' }, action: { buttons: [] } },
    },
    [['interactive', 'action', 'buttons']],
  ],
  [
    'list limits: label, row id, row title, no rows',
    {
      to,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'b' },
        action: {
          button: 'z'.repeat(21),
          sections: [
            { title: 'S', rows: [{ id: 'r'.repeat(201), title: 't'.repeat(25) }] },
            { title: 'T', rows: [] },
          ],
        },
      },
    },
    [
      ['interactive', 'action', 'button'],
      ['interactive', 'action', 'sections', 0, 'rows', 0, 'id'],
      ['interactive', 'action', 'sections', 0, 'rows', 0, 'title'],
      ['interactive', 'action', 'sections', 1, 'rows'],
    ],
  ],
  [
    'unknown interactive type',
    { to, type: 'interactive', interactive: { type: 'carousel' } },
    [['interactive', 'type']],
  ],
];

describe('invalid messages throw MessageValidationError listing every issue, and make no request', () => {
  it.each(invalid)('%s', async (_name, message, paths) => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    // No handler is installed: a request would fail the test with msw's unhandled-request error.
    const e = await gw.messages.send(message as OutboundMessage).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    const issues = (e as MessageValidationError).issues;
    expect(issues.map((i) => i.path)).toEqual(paths);
    for (const issue of issues) expect(issue.message.length).toBeGreaterThan(5);
  });

  it('the error message names the first issue and counts the rest', () => {
    const r = validateMessage({ to: '+1', type: 'text', text: { body: 'x'.repeat(5000) } });
    expect(r.valid).toBe(false);
    const e = new MessageValidationError(r.valid ? [] : r.issues);
    expect(e.message).toMatch(/^Invalid message: to: .*country code.*\(and 1 more\)$/);
  });

  it('states the limit and the actual length', () => {
    const r = validateMessage({ to, type: 'text', text: { body: 'x'.repeat(4100) } });
    expect(r.valid ? '' : r.issues[0]?.message).toBe('text.body has 4100 characters; the maximum is 4096');
  });

  it('never throws on hostile input', () => {
    const hostile = [
      undefined,
      42,
      'text',
      [],
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('boom');
          },
        },
      ),
      Object.defineProperty({ to, type: 'text' }, 'text', {
        get: () => {
          throw new Error('getter');
        },
        enumerable: true,
      }),
    ];
    for (const h of hostile) expect(validateMessage(h).valid).toBe(false);
  });
});

describe('validateMessage on inputs no generator reaches', () => {
  const template = (components: unknown[]) => ({
    to,
    type: 'template',
    template: { name: 'n', language: { code: 'en' }, components },
  });

  it('takes the recipient rule over the whole string, across line breaks', () => {
    for (const bad of [`${to}\nx`, `x\n${to}`, `${to}\n`, `\n${to}`]) {
      expect(validateMessage({ to: bad, type: 'text', text: { body: 'hi' } }).valid).toBe(false);
    }
  });

  it('takes no array for an object', () => {
    expect(validateMessage({ to, type: 'text', text: Object.assign([], { body: 'hi' }) }).valid).toBe(false);
    expect(validateMessage(Object.assign([], { to, type: 'text', text: { body: 'hi' } })).valid).toBe(false);
  });

  it('reports a throwing getter as unreadable, and never throws', () => {
    const message = {
      to,
      type: 'text',
      get text(): never {
        throw new Error('boom');
      },
    };
    const result = validateMessage(message);
    expect(result.valid).toBe(false);
    expect(result.issues[0]?.code).toBe('unreadable');
  });

  it('meets an array whose length no array can have at once, as unreadable, without reading items', () => {
    for (const length of [2 ** 32, -1, 1.5]) {
      let reads = 0;
      const parameters = new Proxy([], {
        get: (target, key) => {
          if (key === 'length') return length;
          if (typeof key === 'string' && /^\d+$/.test(key)) {
            reads++;
            return { type: 'text', text: 'x' };
          }
          return Reflect.get(target, key);
        },
      });
      const result = validateMessage(template([{ type: 'body', parameters }]));
      expect(result.valid).toBe(false);
      expect(result.issues[0]?.code).toBe('unreadable');
      expect(reads).toBe(0);
    }
  });

  it('copies: the validated message shares no object with the input', () => {
    const input = {
      to,
      type: 'template' as const,
      template: {
        name: 'n',
        language: { code: 'en' },
        components: [{ type: 'body' as const, parameters: [{ type: 'text' as const, text: 'a' }] }],
      },
    };
    const result = validateMessage(input);
    if (!result.valid || result.message.type !== 'template') throw new Error('expected a valid template');
    input.template.components[0]!.parameters[0]!.text = 'changed';
    expect(result.message.template.components?.[0]?.parameters[0]).toEqual({ type: 'text', text: 'a' });
  });
});

describe('normalizeRecipient', () => {
  it.each([
    ['+998 (90) 123-45-67', '998901234567'],
    ['00998901234567', '998901234567'],
    ['998.90.123.45.67', '998901234567'],
    [' 998901234567 ', '998901234567'],
  ])('%s → %s', (input, out) => {
    expect(normalizeRecipient(input)).toBe(out);
    expect(validateMessage({ to: normalizeRecipient(input), type: 'text', text: { body: 'x' } }).valid).toBe(
      true,
    );
  });

  // It returned '', 'abc', '998901234567ext5' and 20 digits: numbers no send takes, refused far from their source.
  it.each([
    ['', 'to.required'],
    ['+', 'to.required'],
    ['   ', 'to.required'],
    ['abc', 'to.digits_only'],
    ['+998 90 123 45 67 ext 5', 'to.digits_only'],
    [Number.NaN, 'to.digits_only'],
    ['1'.repeat(16), 'to.max_length'],
    ['+0998901234567', 'to.country_code'],
  ])("refuses %j by the send's rule %s, with the issue a send of it gives", (input, rule) => {
    const error = (() => {
      try {
        return normalizeRecipient(input);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MessageValidationError);
    const [issue] = (error as MessageValidationError).issues;
    expect(issue).toMatchObject({ path: [], rule });
    // What the send says of the same text: one rule, one wording.
    const stripped = String(input)
      .trim()
      .replace(/^\+|[\s().\-/]/g, '');
    const sent = validateMessage({ to: stripped, type: 'text', text: { body: 'x' } });
    expect(sent.valid ? [] : sent.issues.slice(0, 1)).toEqual([{ ...issue, path: ['to'] }]);
  });

  it('takes 15 digits, the most E.164 allows', () => {
    expect(normalizeRecipient(`+${'1'.repeat(15)}`)).toBe('1'.repeat(15));
  });
});
