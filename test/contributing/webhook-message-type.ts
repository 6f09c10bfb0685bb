/**
 * "Adding a webhook message type", replayed for `test_only_vote` (a type invented for this test, in the copy only):
 * `{ ...messageBase, type: 'test_only_vote', test_only_vote: { choice, note? } }`.
 */
import { after, before, create, type WalkThrough } from './replay.js';

const module = `/** The \`test_only_vote\` incoming message (invented by the CONTRIBUTING walk-through replay; test only). */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

export const testOnlyVoteMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('test_only_vote'),
  test_only_vote: z.looseObject({
    /** The option chosen. */
    choice: z.string(),
    /** Absent when the voter wrote nothing. */
    note: z.optional(z.string()),
  }),
});

export interface TestOnlyVoteMessage extends z.output<typeof testOnlyVoteMessageSchema> {}
`;

const builder = `/** A \`test_only_vote\` message (test only). */
export function testOnlyVoteMessage(overrides: Overrides<TestOnlyVoteMessage> = {}): TestOnlyVoteMessage {
  return { ...base(overrides), test_only_vote: { choice: 'yes' }, ...overrides, type: 'test_only_vote' };
}
`;

const parseTest = `  it('test_only_vote: the choice is typed, the note optional', () => {
    const { message } = oneMessage(messageEnvelope(testOnlyVoteMessage({ test_only_vote: { choice: 'no' } })));
    if (message.type !== 'test_only_vote') throw new Error('expected a test_only_vote message');
    expect(message.test_only_vote.choice).toBe('no');
    expect(message.test_only_vote.note).toBeUndefined();
  });
`;

const proof = `import { expect, it } from 'vitest';
import type { TestOnlyVoteMessage as FromMainEntry } from '../../src/index.js';
import { everyMessageType, messageEnvelope, testOnlyVoteMessage } from '../../src/testing/index.js';
import { MESSAGE_TYPES, parseWebhook, type TestOnlyVoteMessage } from '../../src/webhooks/index.js';
import { testOnlyVoteMessageSchema } from '../../src/webhooks/schemas.js';

it('parseWebhook yields the new message type, typed, from the public entries', () => {
  const sent = testOnlyVoteMessage({ test_only_vote: { choice: 'yes', note: 'gladly' } });
  const [event] = parseWebhook(JSON.stringify(messageEnvelope(sent)));
  if (event?.kind !== 'message' || event.message.type !== 'test_only_vote') {
    throw new Error('expected a test_only_vote message, got ' + JSON.stringify(event));
  }
  const typed: TestOnlyVoteMessage & FromMainEntry = event.message;
  expect(typed.test_only_vote).toEqual({ choice: 'yes', note: 'gladly' });
  expect(event.idempotencyKey).toBe(sent.id);
  expect(MESSAGE_TYPES).toContain('test_only_vote');
  expect(testOnlyVoteMessageSchema.safeParse(sent).success).toBe(true);
  expect(Object.values(everyMessageType()).map((m) => m.type)).toContain('test_only_vote');
});

it('a test_only_vote without its choice is the unknown variant, the field named', () => {
  const [event] = parseWebhook(messageEnvelope({ ...testOnlyVoteMessage(), test_only_vote: {} }));
  if (event?.kind !== 'message' || event.message.type !== 'unknown') throw new Error('expected the unknown variant');
  expect(event.message.originalType).toBe('test_only_vote');
  expect(event.message.issues.map((i) => i.path)).toEqual([['test_only_vote', 'choice']]);
});
`;

export const webhookMessageType: WalkThrough = {
  section: 'Adding a webhook message type',
  steps: [
    {
      guide: '**1. The schema and its type:** `src/webhooks/messages/reaction.ts`',
      file: 'src/webhooks/messages/test-only-vote.ts',
      edit: create(module),
    },
    {
      guide: '**2. The table:** `src/webhooks/messages/index.ts`. Import the schema',
      file: 'src/webhooks/messages/index.ts',
      edit: after(
        "import { stickerMessageSchema } from './sticker.js';",
        "import { testOnlyVoteMessageSchema } from './test-only-vote.js';",
      ),
    },
    {
      guide: 'give it its line in `messageSchemas`',
      file: 'src/webhooks/messages/index.ts',
      edit: after('  reaction: reactionMessageSchema,', '  test_only_vote: testOnlyVoteMessageSchema,'),
    },
    {
      guide: 'and re-export the module',
      file: 'src/webhooks/messages/index.ts',
      edit: after("export * from './sticker.js';", "export * from './test-only-vote.js';"),
    },
    {
      guide:
        "**3. The fixture builder**, in `src/testing/webhook-fixtures.ts` beside the other kinds' builders (A to Z)",
      file: 'src/testing/webhook-fixtures.ts',
      edit: before('/**\n * A `text` message.', builder),
    },
    {
      guide: 'Import the type `ReactionMessage` there',
      file: 'src/testing/webhook-fixtures.ts',
      edit: after(
        "import type { StickerMessage } from '../webhooks/messages/sticker.js';",
        "import type { TestOnlyVoteMessage } from '../webhooks/messages/test-only-vote.js';",
      ),
    },
    {
      guide:
        'add the builder to `everyMessageType()` in the same file (`wa-gateway-sdk/testing` re-exports the module). That function is typed against the table: a type in `messageSchemas` without a fixture in `everyMessageType()` does not compile.',
      file: 'src/testing/webhook-fixtures.ts',
      edit: after('    button: buttonMessage(),', '    test_only_vote: testOnlyVoteMessage(),'),
      needed: { near: 'export function everyMessageType', mentions: 'test_only_vote' },
    },
    {
      guide: 'export the type `ReactionMessage` by name from `src/webhooks/index.ts`',
      file: 'src/webhooks/index.ts',
      edit: after('  TextMessage,', '  TestOnlyVoteMessage,'),
    },
    {
      guide: 'The main entry (`src/index.ts`) re-exports the type only (`type ReactionMessage`)',
      file: 'src/index.ts',
      edit: after('  type TextMessage,', '  type TestOnlyVoteMessage,'),
    },
    {
      guide:
        'the builder imported from `../testing/webhook-fixtures.js` and given the id and time the trigger carries',
      file: 'src/cli/trigger.ts',
      edit: after('  templateStatusEnvelope,', '  testOnlyVoteMessage,'),
    },
    {
      guide:
        'give the type its entry in `MESSAGE_EVENTS` (`src/cli/trigger.ts`, the event `message.reaction`',
      file: 'src/cli/trigger.ts',
      edit: after(
        '  button: { button: (s) => buttonMessage({}, s) },',
        '  test_only_vote: { test_only_vote: (s) => testOnlyVoteMessage(s) },',
      ),
      needed: { near: 'const MESSAGE_EVENTS', mentions: 'test_only_vote' },
    },
    {
      guide:
        "and in `INCOMING` (`src/testing/sandbox/inbox/client/render.ts`: a function from the type's object to the elements the inbox shows, built with `h` and `str`); neither compiles without it",
      file: 'src/testing/sandbox/inbox/client/render.ts',
      edit: before(
        '  order: (o) => [',
        "  test_only_vote: (o) => [h('p', { class: 'text' }, 'Vote: ' + str(o['choice']))],",
      ),
      needed: { near: 'const INCOMING', mentions: 'test_only_vote' },
    },
    {
      guide: '**6. A test of what the type means**, in `test/webhooks/parse.test.ts`, built from the fixture',
      file: 'test/webhooks/parse.test.ts',
      edit: after('  textMessage,', '  testOnlyVoteMessage,'),
    },
    {
      guide: '**6. A test of what the type means**, in `test/webhooks/parse.test.ts`, built from the fixture',
      file: 'test/webhooks/parse.test.ts',
      edit: before(
        "  it('an unknown type is delivered as the unknown variant with the raw object', () => {",
        parseTest,
      ),
    },
  ],
  commands: [{ guide: 'Then run `npm run generate`', command: ['npm', 'run', 'generate'] }],
  tests: [
    'test/webhooks/parse.test.ts',
    'test/webhooks/schemas.test.ts',
    'test/generated/fresh.test.ts',
    'test/fuzz/parse-webhook.test.ts',
    'test/cli/cli.test.ts',
    'test/api-surface.test.ts',
  ],
  newTests: ['test_only_vote: the choice is typed, the note optional'],
  proof: { file: 'test/walk-through-proofs/webhook-message-type.test.ts', code: proof },
};
