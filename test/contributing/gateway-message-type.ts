/**
 * "Adding a gateway message type", replayed for `test_only_note` (a type invented for this test, in the copy only):
 * `{ to, type: 'test_only_note', test_only_note: { body } }`, body 1 to 100 characters.
 */
import { after, before, create, type WalkThrough } from './replay.js';

const SCHEMA = 'src/gateway/message-schema.ts';

const schema = `export const outboundTestOnlyNoteMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('test_only_note'),
  test_only_note: closed({ body: maxLen('test_only_note.body', 100) }),
});
`;

/** Step 4's msw test, as the guide asks: the request body the gateway receives. */
const gatewayTest = `import { HttpResponse, http } from 'msw';
import { expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();

it('test_only_note: the gateway receives the note as given', async () => {
  const bodies: unknown[] = [];
  server.use(
    http.post(GW + '/v1/wa/message', async ({ request }) => {
      bodies.push(await request.json());
      return HttpResponse.json(sendOk());
    }),
  );
  const client = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
  await client.messages.send({ to: '998901234567', type: 'test_only_note', test_only_note: { body: 'Hi' } });
  expect(bodies).toEqual([
    { messaging_product: 'whatsapp', to: '998901234567', type: 'test_only_note', test_only_note: { body: 'Hi' } },
  ]);
});
`;

const proof = `import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayClient, type OutboundTestOnlyNoteMessage, validateMessage } from '../../src/index.js';
import { outboundMessageSchema, outboundTestOnlyNoteMessageSchema } from '../../src/schemas.js';
import { createGatewayHandlers } from '../../src/testing/index.js';

const note: OutboundTestOnlyNoteMessage = { to: '998901234567', type: 'test_only_note', test_only_note: { body: 'Hi' } };
const { handlers, simulator } = createGatewayHandlers({ baseUrl: 'https://gw.test', apiKeys: ['sk_test_1'] });
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

it('validateMessage and wa-gateway-sdk/schemas accept the new type and hold its limits', () => {
  expect(validateMessage(note)).toMatchObject({ valid: true, message: note });
  expect(outboundMessageSchema.safeParse(note).success).toBe(true);
  expect(outboundTestOnlyNoteMessageSchema.safeParse(note).success).toBe(true);
  const long = validateMessage({ ...note, test_only_note: { body: 'x'.repeat(101) } });
  expect(long.valid).toBe(false);
  const typo = validateMessage({ ...note, test_only_note: { bodyy: 'Hi' } });
  expect(typo.valid ? [] : typo.issues.map((i) => i.message).join(' ')).toContain("did you mean 'body'?");
  const unknown = validateMessage({ ...note, type: 'nope' });
  expect(unknown.valid ? [] : unknown.issues.map((i) => i.message).join(' ')).toContain("'test_only_note'");
});

it("the testing kit's gateway accepts a send of it", async () => {
  const client = new GatewayClient({ apiKey: 'sk_test_1', baseUrl: 'https://gw.test', rateLimit: false });
  await client.messages.send(note);
  expect(simulator.sent).toHaveLength(1);
});
`;

export const gatewayMessageType: WalkThrough = {
  section: 'Adding a gateway message type',
  steps: [
    {
      guide: 'An outbound message type is one closed schema in `src/gateway/message-schema.ts`',
      file: SCHEMA,
      edit: before('/**\n * Schema of each outbound message type, keyed by `type`', schema),
    },
    {
      guide: 'an entry of the `outboundMessageSchemas` table',
      file: SCHEMA,
      edit: after(
        '  audio: outboundAudioMessageSchema,',
        '  test_only_note: outboundTestOnlyNoteMessageSchema,',
      ),
    },
    {
      guide: 'and an interface inferred from it',
      file: SCHEMA,
      edit: after(
        'export interface OutboundAudioMessage extends',
        'export interface OutboundTestOnlyNoteMessage extends z.input<typeof outboundTestOnlyNoteMessageSchema> {}',
      ),
    },
    {
      guide: 'a member of the `OutboundMessage` union',
      file: SCHEMA,
      edit: after('  | OutboundAudioMessage', '  | OutboundTestOnlyNoteMessage'),
    },
    {
      guide: 'Export the interface by name from `src/gateway/index.ts`',
      file: 'src/gateway/index.ts',
      edit: after('  OutboundAudioMessage,', '  OutboundTestOnlyNoteMessage,'),
    },
    {
      guide: 'Export the schema from `src/schemas.ts`',
      file: 'src/schemas.ts',
      edit: after('  outboundAudioMessageSchema,', '  outboundTestOnlyNoteMessageSchema,'),
    },
    {
      guide: 'list it under `wa-gateway-sdk/schemas` in `docs/api-surface.md`',
      file: 'docs/api-surface.md',
      edit: after('- `outboundAudioMessageSchema`', '- `outboundTestOnlyNoteMessageSchema`'),
    },
    {
      guide:
        "`OUTGOING` in `src/testing/sandbox/inbox/client/render.ts` is keyed by `OutboundMessage['type']`, so it does not compile without one",
      file: 'src/testing/sandbox/inbox/client/render.ts',
      edit: after(
        '  template: (o, m, templates, actions) => [templateSend(o, templates, m, actions)],',
        "  test_only_note: (o) => [h('p', { class: 'text' }, str(o['body']))],",
        'const OUTGOING',
      ),
      needed: { near: 'const OUTGOING', mentions: 'test_only_note' },
    },
    {
      guide: 'Test it in `test/gateway/` with msw (the request body the gateway receives',
      file: 'test/gateway/test-only-note.test.ts',
      edit: create(gatewayTest),
    },
    {
      guide: 'add it to the generators in `test/fuzz/message-arbitraries.ts`',
      file: 'test/fuzz/message-arbitraries.ts',
      edit: after(
        "  fc.record({ to, type: fc.constant('audio'), audio: fc.record({ link: url }) }),",
        "  fc.record({ to, type: fc.constant('test_only_note'), test_only_note: fc.record({ body: text(1, 100) }) }),",
      ),
    },
  ],
  commands: [{ guide: 'Then run `npm run generate`', command: ['npm', 'run', 'generate'] }],
  tests: [
    'test/gateway/test-only-note.test.ts',
    'test/fuzz/send-validation.test.ts',
    'test/fuzz/send-checkers.test.ts',
    'test/generated/fresh.test.ts',
    'test/api-surface.test.ts',
  ],
  newTests: ['test_only_note: the gateway receives the note as given'],
  proof: { file: 'test/walk-through-proofs/gateway-message-type.test.ts', code: proof },
};
