/**
 * Property tests for outbound message validation: whatever the input, `validateMessage` answers
 * `{ valid, issues }` and never throws; every valid message generated from the spec's rules passes; mutations
 * of valid messages are either still valid or yield issues with a path and a message; and `messages.send`
 * meets invalid input with `MessageValidationError` before any request. Runs per property: FUZZ_RUNS
 * (default 1,000; `npm run test:fuzz` uses 100,000).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { GatewayClient, MessageValidationError, validateMessage } from '../../src/index.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 10);

const to = fc.stringMatching(/^[1-9]\d{7,14}$/);
const url = fc.webUrl({ validSchemes: ['https', 'http'] }).filter((u) => !/\s/.test(u));
const text = (min: number, max: number) => fc.string({ minLength: min, maxLength: max });

const reply = (id: fc.Arbitrary<string>) =>
  fc.record({ type: fc.constant('reply'), reply: fc.record({ id, title: text(1, 20) }) });
const parameter = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string() }),
  fc.record({ type: fc.constant('image'), image: fc.record({ link: url }) }),
  fc.record({
    type: fc.constant('currency'),
    currency: fc.record({ code: fc.constant('USD'), amount_1000: fc.nat() }),
  }),
);

/** Every shape the spec allows, within every limit. */
const validMessage = fc.oneof(
  fc.record({
    to,
    type: fc.constant('text'),
    text: fc.record({ body: text(1, 4096), preview_url: fc.boolean() }, { requiredKeys: ['body'] }),
  }),
  fc.record({
    to,
    type: fc.constant('image'),
    image: fc.record({ link: url, caption: fc.string() }, { requiredKeys: ['link'] }),
  }),
  fc.record({ to, type: fc.constant('audio'), audio: fc.record({ link: url }) }),
  fc.record({
    to,
    type: fc.constant('document'),
    document: fc.record(
      { link: url, caption: fc.string(), filename: fc.string() },
      { requiredKeys: ['link'] },
    ),
  }),
  fc.record({
    to,
    type: fc.constant('template'),
    template: fc.record(
      {
        name: text(1, 60),
        language: fc.record({ code: fc.constantFrom('en', 'en_US', 'ru', 'uz') }),
        components: fc.array(
          fc.oneof(
            fc.record({
              type: fc.constantFrom('header', 'body'),
              parameters: fc.array(parameter, { maxLength: 3 }),
            }),
            fc.record({
              type: fc.constant('button'),
              sub_type: fc.constantFrom('url', 'quick_reply'),
              index: fc.constantFrom('0', '1', '2'),
              parameters: fc.array(parameter, { maxLength: 1 }),
            }),
          ),
          { maxLength: 4 },
        ),
      },
      { requiredKeys: ['name', 'language'] },
    ),
  }),
  fc.record({
    to,
    type: fc.constant('interactive'),
    interactive: fc.record({
      type: fc.constant('button'),
      body: fc.record({ text: text(1, 200) }),
      action: fc.record({
        buttons: fc.uniqueArray(reply(text(1, 256)), {
          minLength: 1,
          maxLength: 3,
          selector: (b) => b.reply.id,
        }),
      }),
    }),
  }),
  fc.record({
    to,
    type: fc.constant('interactive'),
    interactive: fc.record({
      type: fc.constant('list'),
      body: fc.record({ text: text(1, 200) }),
      action: fc.record({
        button: text(1, 20),
        sections: fc.array(
          fc.record({
            title: fc.string({ maxLength: 24 }),
            rows: fc.array(
              fc.record(
                { id: text(1, 200), title: text(1, 24), description: fc.string() },
                { requiredKeys: ['id', 'title'] },
              ),
              {
                minLength: 1,
                maxLength: 3,
              },
            ),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
    }),
  }),
);

/** Replaces a random leaf or subtree of a message with something else. */
function mutate(value: unknown, path: number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[path[0]! % keys.length]!;
  const copy: Record<string, unknown> = Array.isArray(value)
    ? ([...value] as unknown as Record<string, unknown>)
    : { ...value };
  copy[key] = mutate((value as Record<string, unknown>)[key], path.slice(1), replacement);
  return copy;
}

function checkShape(result: ReturnType<typeof validateMessage>): void {
  if (typeof result.valid !== 'boolean' || !Array.isArray(result.issues)) throw new Error('bad result shape');
  if (!result.valid && result.issues.length === 0) throw new Error('invalid without issues');
  for (const issue of result.issues) {
    if (
      !Array.isArray(issue.path) ||
      typeof issue.message !== 'string' ||
      issue.message === '' ||
      typeof issue.code !== 'string'
    ) {
      throw new Error(`malformed issue ${JSON.stringify(issue)}`);
    }
  }
}

describe('validateMessage properties', () => {
  it(
    'never throws on any JSON value, and answers the documented shape',
    () => {
      fc.assert(
        fc.property(fc.jsonValue(), (input) => checkShape(validateMessage(input))),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'never throws on arbitrary objects with a message-like skeleton',
    () => {
      const skeleton = fc.record({
        to: fc.oneof(to, fc.anything()),
        type: fc.oneof(
          fc.constantFrom('text', 'image', 'audio', 'document', 'template', 'interactive'),
          fc.anything(),
        ),
        text: fc.anything(),
        image: fc.anything(),
        template: fc.anything(),
        interactive: fc.anything(),
      });
      fc.assert(
        fc.property(skeleton, (input) => checkShape(validateMessage(input))),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'every message generated within the spec passes',
    () => {
      fc.assert(
        fc.property(validMessage, (message) => {
          const result = validateMessage(message);
          if (!result.valid) throw new Error(`rejected a valid message: ${JSON.stringify(result.issues)}`);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'mutations of valid messages never throw and always explain a rejection',
    () => {
      const replacement = fc.oneof(
        fc.anything(),
        fc.string({ minLength: 4097, maxLength: 5000 }),
        fc.constant(undefined),
      );
      fc.assert(
        fc.property(validMessage, fc.array(fc.nat(), { maxLength: 6 }), replacement, (message, path, value) =>
          checkShape(validateMessage(mutate(message, path, value))),
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );
});

describe('messages.send on invalid input', () => {
  it(
    'throws MessageValidationError before any request, never anything else',
    async () => {
      let requests = 0;
      const gw = new GatewayClient({
        apiKey: 'pk_fuzz_0123456789',
        baseUrl: 'https://gw.fuzz',
        rateLimit: false,
        fetch: (async () => {
          requests++;
          return Response.json({ isSuccess: true, data: { contacts: [], messages: [{ id: 'wamid.x' }] } });
        }) as typeof fetch,
      });
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (input) => {
          const before = requests;
          const valid = validateMessage(input).valid;
          try {
            await gw.messages.send(input as never);
            if (!valid) throw new Error('sent an invalid message');
          } catch (error) {
            if (!(error instanceof MessageValidationError)) throw error;
            if (requests !== before) throw new Error('made a request for an invalid message');
          }
        }),
        { numRuns: Math.min(RUNS, 5000) },
      );
    },
    TIMEOUT,
  );
});
