/**
 * "Adding a platform endpoint", replayed for `conversations.testOnlyPin` (an endpoint invented for this test, in the
 * copy only; the spec has no such path): `POST /v2/conversations/test_only_pin/` with `uuid` and `pin.note`,
 * answered 200 `{ detail }`, 404 for an unknown conversation.
 */
import { after, before, replace, type WalkThrough } from './replay.js';

const RESOURCE = 'src/platform/conversations.ts';
const SIMULATOR = 'src/testing/platform/conversations.ts';

const schema = `/** \`pin\` of \`POST /v2/conversations/test_only_pin/\` (test only). */
export const testOnlyPinInputSchema = z.strictObject({ note: z.string().min(1, 'note is empty') });
export type TestOnlyPinInput = z.input<typeof testOnlyPinInputSchema>;
`;

const method = `  /**
   * Pins a note to a conversation (test only: invented by the CONTRIBUTING walk-through replay).
   *
   * @example
   * await platform.conversations.testOnlyPin(conversationUuid, { note: 'Call back at 5' });
   */
  testOnlyPin(uuid: string, pin: TestOnlyPinInput, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('testOnlyPin', uuid, options, () => ({
      pin: argumentsCheck(testOnlyPinInputSchema, pin, 'conversations.testOnlyPin pin'),
    }));
  }

`;

const handler = `const testOnlyPinBody = z.looseObject({ uuid: uuidSchema, pin: z.looseObject({ note: z.string().min(1) }) });

function testOnlyPin(world: World, { body }: RouteContext): Answer {
  const b = parseBody(testOnlyPinBody, body);
  const uuid = world.conversation(b.uuid, 404);
  world.state.testOnlyPins.set(uuid, b.pin.note);
  return ok('Note pinned.');
}

`;

const endpointCase = `    [
      'conversations.testOnlyPin',
      () => c.conversations.testOnlyPin(CONV, { note: 'Call back at 5' }),
      '/v2/conversations/test_only_pin/',
      { uuid: CONV, pin: { note: 'Call back at 5' } },
    ],
`;

const handlersTest = `  it('testOnlyPin: the note is recorded; an unknown conversation is 404', async () => {
    await platform.conversations.testOnlyPin(CONV_A, { note: 'Call back at 5' });
    expect(state.testOnlyPins.get(CONV_A)).toBe('Call back at 5');
    await expect(platform.conversations.testOnlyPin(CONV_UNKNOWN, { note: 'x' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

`;

const proof = `import { setupServer } from 'msw/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MessageValidationError, PlatformClient, type TestOnlyPinInput } from '../../src/index.js';
import { testOnlyPinInputSchema } from '../../src/schemas.js';
import { createPlatformHandlers } from '../../src/testing/index.js';

const conversation = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const { handlers, state } = createPlatformHandlers({
  platformUrl: 'https://platform.test',
  streamUrl: 'https://stream.test',
  conversationUuids: [conversation],
});
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

const platform = new PlatformClient({
  platformUrl: 'https://platform.test',
  streamUrl: 'https://stream.test',
  username: 'agent@example.com',
  password: 'secret-password',
});

it('the simulator answers the new endpoint; the method checks its argument before any request', async () => {
  const pin: TestOnlyPinInput = { note: 'Call back at 5' };
  await expect(platform.conversations.testOnlyPin(conversation, pin)).resolves.toEqual({ detail: 'Note pinned.' });
  expect(state.testOnlyPins.get(conversation)).toBe('Call back at 5');
  const requests = state.requests.length;
  await expect(platform.conversations.testOnlyPin(conversation, { note: '' })).rejects.toBeInstanceOf(
    MessageValidationError,
  );
  expect(state.requests).toHaveLength(requests);
  expect(testOnlyPinInputSchema.safeParse(pin).success).toBe(true);
  state.reset();
  expect(state.testOnlyPins.size, 'PlatformState.reset() clears the new field').toBe(0);
});
`;

export const platformEndpoint: WalkThrough = {
  section: 'Adding a platform endpoint',
  steps: [
    {
      guide: 'The schema of the argument and its type, inferred, never written twice.',
      file: RESOURCE,
      edit: before('/** The path of each conversation operation. */', schema),
    },
    {
      guide: "The path goes in the resource's table of paths",
      file: RESOURCE,
      edit: after(
        "  setCustomFields: '/v2/conversations/custom_fields/',",
        "  testOnlyPin: '/v2/conversations/test_only_pin/',",
      ),
    },
    {
      guide: 'the method checks its arguments before any request',
      file: RESOURCE,
      edit: before('  /**\n   * `POST /v2/conversations/<operation>/`', method),
    },
    {
      guide: 'Export the type from `src/platform/index.ts` (the main entry re-exports it).',
      file: 'src/platform/index.ts',
      edit: replace(
        'export type { AssignAgent, Conversations, ConversationTypeInput } from',
        'export type { AssignAgent, Conversations, ConversationTypeInput, TestOnlyPinInput } from',
      ),
    },
    {
      guide:
        'A schema users should validate with goes on `wa-gateway-sdk/schemas`: export it from `src/schemas.ts`',
      file: 'src/schemas.ts',
      edit: after(
        "export { messageItemSchema } from './platform/messages.schema.js';",
        "export { testOnlyPinInputSchema } from './platform/conversations.js';",
      ),
    },
    {
      guide: 'and list it under that entry in `docs/api-surface.md`',
      file: 'docs/api-surface.md',
      edit: after('- `templateParameterSchema`', '- `testOnlyPinInputSchema`'),
    },
    {
      guide: 'A handler checks the body as the server does',
      file: SIMULATOR,
      edit: before("/** Each operation's handler, by the last segment of its path", handler),
    },
    {
      guide: "The route is one entry of the module's table, keyed by the last segment of the path",
      file: SIMULATOR,
      edit: after('  custom_fields: setCustomFields,', '  test_only_pin: testOnlyPin,'),
    },
    {
      guide:
        'An effect the state does not hold yet needs its field in `PlatformState` (`src/testing/platform/state.ts`)',
      file: 'src/testing/platform/state.ts',
      edit: after(
        '  readonly customers = new Map<string, PlatformCustomerState>();',
        '  /** Test only: the note pinned to each conversation. */\n  readonly testOnlyPins = new Map<string, string>();',
      ),
    },
    {
      guide: 'cleared in its `reset()`',
      file: 'src/testing/platform/state.ts',
      edit: replace(
        'this.customFields, this.customers]',
        'this.customFields, this.customers, this.testOnlyPins]',
      ),
    },
    {
      guide: "The method's request and answer are pinned against msw in `test/platform/endpoints.test.ts`",
      file: 'test/platform/endpoints.test.ts',
      edit: before("    [\n      'customers.update',", endpointCase),
    },
    {
      guide: 'its behaviour against the simulator in `test/testing/platform-handlers.test.ts`',
      file: 'test/testing/platform-handlers.test.ts',
      edit: before("  it('setCustomFields: values checked against the definitions", handlersTest),
    },
  ],
  tests: [
    'test/platform/endpoints.test.ts',
    'test/testing/platform-handlers.test.ts',
    'test/api-surface.test.ts',
  ],
  newTests: [
    'conversations.testOnlyPin',
    'testOnlyPin: the note is recorded; an unknown conversation is 404',
  ],
  proof: { file: 'test/walk-through-proofs/platform-endpoint.test.ts', code: proof },
};
