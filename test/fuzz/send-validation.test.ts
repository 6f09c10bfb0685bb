/**
 * Property tests for outbound message validation: whatever the input, `validateMessage` answers
 * `{ valid, issues }` and never throws (nor calls plain data unreadable); every valid message generated from the spec's rules passes; mutations
 * of valid messages are either still valid or yield issues with a path and a message; and `messages.send`
 * meets invalid input with `MessageValidationError` before any request. Runs per property: FUZZ_RUNS
 * (default 1,000; `npm run test:fuzz` uses 100,000).
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { GatewayClient, MessageValidationError, validateMessage } from '../../src/index.js';
import { mutate, to, validMessage } from './message-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 10);

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
    // Plain data has no getter or proxy: 'could not be read' would be a refinement that threw on a wrong type.
    if (issue.code === 'unreadable')
      throw new Error(`plain data reported as unreadable: ${JSON.stringify(issue)}`);
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
