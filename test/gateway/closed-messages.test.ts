import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  GatewayClient,
  type OutboundMessage,
  validateMessage,
  WaGatewayError,
} from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';
import { refusal } from '../helpers/refusal.js';

const server = useMswServer();
const to = '998901234567';

/** Records every send the gateway receives: a refused message must leave this empty. */
function gateway() {
  const bodies: Record<string, unknown>[] = [];
  const queries: string[] = [];
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      bodies.push((await request.json()) as Record<string, unknown>);
      queries.push(new URL(request.url).search);
      return HttpResponse.json(sendOk());
    }),
  );
  return { bodies, queries };
}

const client = () => new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });

describe('outbound messages are closed', () => {
  it('a misplaced isFake with a misspelt previewUrl is refused, naming both, and nothing is sent', async () => {
    const { bodies } = gateway();
    const error = await refusal(() =>
      client().messages.send({
        to,
        type: 'text',
        // @ts-expect-error previewUrl is not a field: the spec's name is preview_url
        text: { body: 'https://example.com', previewUrl: true },
        isFake: true,
      }),
    );
    expect(bodies).toEqual([]);
    const byPath = Object.fromEntries(error.issues.map((i) => [i.path.join('.'), i]));
    expect(byPath['text.previewUrl']?.message).toContain("did you mean 'preview_url'?");
    expect(byPath['text.previewUrl']?.code).toBe('unknown_field');
    expect(byPath['isFake']?.message).toContain(
      'this is a send option, not a message field: messages.send(msg, { isFake: true })',
    );
  });

  it.each([
    [
      'a typo',
      { to, type: 'image', image: { link: 'https://cdn.example.com/a.jpg', captoin: 'A' } },
      'image.captoin',
      "did you mean 'caption'?",
    ],
    [
      "another API's name",
      { to, type: 'image', image: { url: 'https://cdn.example.com/a.jpg' } },
      'image.url',
      "did you mean 'link'?",
    ],
    [
      'a camelCase key',
      { to, type: 'template', template: { name: 'x', language: { code: 'en' }, Components: [] } },
      'template.Components',
      "did you mean 'components'?",
    ],
    [
      'an unshown field',
      { to, type: 'text', text: { body: 'x' }, context: { message_id: 'wamid.1' } },
      'context',
      'extraFields',
    ],
    [
      'messaging_product',
      { to, type: 'text', text: { body: 'x' }, messaging_product: 'whatsapp' },
      'messaging_product',
      'the client fills it',
    ],
    [
      'a key inside a list item',
      {
        to,
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'b' },
          action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A', payload: 1 } }] },
        },
      },
      'interactive.action.buttons.0.reply.payload',
      'extraFields',
    ],
  ])('%s is an issue at its own path', (_, message, path, hint) => {
    const r = validateMessage(message);
    expect(r.valid).toBe(false);
    const issue = r.valid ? undefined : r.issues.find((i) => i.path.join('.') === path);
    expect(issue?.message).toContain(hint);
  });

  it('unknown keys are compile errors on literals of every type', () => {
    const literals: OutboundMessage[] = [
      // @ts-expect-error unknown key at the top level
      { to, type: 'text', text: { body: 'x' }, isFake: true },
      // @ts-expect-error unknown key inside the type's object
      { to, type: 'audio', audio: { link: 'https://a.example/a.ogg', voice: true } },
      {
        to,
        type: 'template',
        template: {
          name: 'n',
          language: { code: 'en' },
          // @ts-expect-error unknown key inside a template component
          components: [{ type: 'body', parameters: [], extra: 1 }],
        },
      },
      {
        to,
        type: 'interactive',
        interactive: {
          type: 'list',
          body: { text: 'b' },
          action: {
            button: 'Open',
            // @ts-expect-error unknown key inside a list row
            sections: [{ title: 's', rows: [{ id: '1', title: 't', subtitle: 'x' }] }],
          },
        },
      },
    ];
    for (const m of literals) expect(validateMessage(m).valid).toBe(false);
  });
});

describe('the explicit ways to send what the spec does not show', () => {
  it('extraFields merges fields the spec does not show into the checked message', async () => {
    const { bodies } = gateway();
    await client().messages.send(
      { to, type: 'text', text: { body: 'Hi' } },
      { extraFields: { context: { message_id: 'wamid.1' }, text: { extra_flag: true } } },
    );
    expect(bodies[0]).toEqual({
      messaging_product: 'whatsapp',
      to,
      type: 'text',
      text: { body: 'Hi', extra_flag: true },
      context: { message_id: 'wamid.1' },
    });
  });

  it('extraFields never overrides a checked field', async () => {
    const { bodies } = gateway();
    const error = await refusal(() =>
      client().messages.send(
        { to, type: 'text', text: { body: 'Hi' } },
        { extraFields: { text: { body: 'x'.repeat(5000) } } },
      ),
    );
    expect(error.issues[0]?.path).toEqual(['extraFields', 'text', 'body']);
    expect(bodies).toEqual([]);
  });

  // Each went out as given before: the same fields written in the message were refused.
  it.each([
    [
      'a text preview_url of a string',
      { text: { preview_url: 'yes' } },
      ['extraFields', 'text', 'preview_url'],
    ],
    [
      'a document filename of a number',
      { document: { filename: 42 } },
      ['extraFields', 'document', 'filename'],
    ],
  ])('extraFields holds a field the spec shows to its rule: %s', async (_name, extraFields, path) => {
    const { bodies } = gateway();
    const message =
      'document' in extraFields
        ? ({ to, type: 'document', document: { link: 'https://cdn.example.com/a.pdf' } } as const)
        : ({ to, type: 'text', text: { body: 'Hi' } } as const);
    const error = await refusal(() => client().messages.send(message, { extraFields }));
    expect(error.issues.map((issue) => issue.path)).toEqual([path]);
    expect(bodies).toEqual([]);
  });

  it("extraFields holds a template's components to the spec's rules", async () => {
    const { bodies } = gateway();
    const error = await refusal(() =>
      client().messages.send(
        { to, type: 'template', template: { name: 'order_update', language: { code: 'en' } } },
        { extraFields: { template: { components: [{ type: 'button', sub_type: 'call', index: '7' }] } } },
      ),
    );
    expect(error.issues.length).toBeGreaterThan(0);
    expect(error.issues.every((issue) => issue.path[0] === 'extraFields')).toBe(true);
    expect(bodies).toEqual([]);
  });

  it("extraFields' shown fields go out as the message's would: a button index of 0 as '0'", async () => {
    const { bodies } = gateway();
    const button = {
      type: 'button',
      sub_type: 'url',
      index: 0,
      parameters: [{ type: 'text', text: '1042' }],
    };
    await client().messages.send(
      { to, type: 'template', template: { name: 'order_update', language: { code: 'en' } } },
      { extraFields: { template: { components: [button] } } },
    );
    expect(bodies[0]).toMatchObject({ template: { components: [{ ...button, index: '0' }] } });
  });

  it('validate: false sends the message as given, with the wire flags still applied', async () => {
    const { bodies, queries } = gateway();
    await client().messages.send(
      { to, type: 'sticker', sticker: { link: 'https://cdn.example.com/s.webp' } },
      { validate: false, isFake: true },
    );
    expect(bodies[0]).toEqual({
      messaging_product: 'whatsapp',
      to,
      type: 'sticker',
      sticker: { link: 'https://cdn.example.com/s.webp' },
    });
    expect(queries[0]).toBe('?is_fake=true');
  });

  it('validate: false still needs an object', async () => {
    gateway();
    const send = client().messages.send as (m: unknown, o: object) => Promise<unknown>;
    const error = await refusal(() => send.call(client().messages, 'hello', { validate: false }));
    expect(error.issues[0]?.message).toBe('the message must be an object');
  });

  it('sendMany takes validate: false too', async () => {
    const { bodies } = gateway();
    const results = [];
    for await (const r of client().messages.sendMany(
      [{ to, type: 'text', text: { body: 'x' }, extra: 1 } as unknown as OutboundMessage],
      { validate: false },
    )) {
      results.push(r);
    }
    expect(results[0]?.ok).toBe(true);
    expect(bodies[0]).toMatchObject({ extra: 1 });
  });
});

describe('recipient errors name the rule that failed', () => {
  it.each([
    ['', 'is empty'],
    ['1234567890123456', 'has 16 digits; E.164 numbers have at most 15'],
    ['+998901234567', "no '+'"],
    ['998 90 123 45 67', "no '+', spaces"],
    ['0998901234567', 'must start with the country code, not 0'],
    ['99890123456a', 'digits only'],
  ])('%s', (recipient, rule) => {
    const r = validateMessage({ to: recipient, type: 'text', text: { body: 'x' } });
    const issue = r.valid ? undefined : r.issues.find((i) => i.path[0] === 'to');
    expect(issue?.message).toContain(rule);
    // The number is personal data: the message never quotes it.
    if (recipient.length > 3) expect(issue?.message).not.toContain(recipient);
  });

  it("'1' is not told about '+', spaces or dashes", () => {
    const r = validateMessage({ to: '1', type: 'text', text: { body: 'x' } });
    expect(r.valid ? '' : r.issues[0]?.message).not.toContain("'+'");
  });
});

describe('sendMany errors are SDK errors', () => {
  it('a bad concurrency is a ConfigurationError, not a RangeError', async () => {
    const run = client().messages.sendMany([], { concurrency: 0 });
    await expect(run.next()).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('a fetch double that throws a non-Error still yields a WaGatewayError result', async () => {
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      fetch: () => Promise.reject('boom'),
    });
    for await (const r of gw.messages.sendMany([{ to, type: 'text', text: { body: 'x' } }])) {
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toBeInstanceOf(WaGatewayError);
    }
  });
});
