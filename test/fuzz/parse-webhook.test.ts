/**
 * Property tests: whatever the input, `parseWebhook` returns events or throws `WebhookParseError`; never anything
 * else, and never an error that quotes the payload. Runs per property: FUZZ_RUNS (default 1,000; CI's fuzz job
 * uses 100,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookParseError } from '../../src/core/errors.js';
import {
  accountUpdateValue,
  change,
  entry,
  envelope,
  everyMessageType,
  messagesChange,
  statusObject,
  templateStatusValue,
  textMessage,
  unknownTypeMessage,
} from '../../src/testing/webhook-fixtures.js';
import { parseWebhook, type WebhookEvent } from '../../src/webhooks/index.js';
import { mutate, mutationArb } from './tree-mutations.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// The suite's default 20 s is for 1,000 runs; 100,000 need proportionally more.
const TIMEOUT = Math.max(20_000, RUNS * 20);
const SENTINEL = 'SENTINEL-PAYLOAD-4111';
const KINDS = new Set(['message', 'status', 'template_status', 'account_update', 'unknown']);

/**
 * Parses and checks the contract; returns what happened for further assertions. Plain checks rather than `expect`
 * in this hot path: with 100,000 runs, matcher overhead would dominate.
 */
function check(input: unknown): WebhookEvent[] | WebhookParseError {
  let result: WebhookEvent[];
  try {
    result = parseWebhook(input as Parameters<typeof parseWebhook>[0]);
  } catch (error) {
    if (!(error instanceof WebhookParseError)) {
      throw new Error(`parseWebhook threw ${Object.prototype.toString.call(error)}, not WebhookParseError`);
    }
    if (
      !Array.isArray(error.path) ||
      error.path.some((p) => typeof p !== 'string' && typeof p !== 'number')
    ) {
      throw new Error('WebhookParseError.path is not a list of keys and indices');
    }
    if (error.message.includes(SENTINEL))
      throw new Error(`error message quotes the payload: ${error.message}`);
    return error;
  }
  if (!Array.isArray(result)) throw new Error('parseWebhook did not return an array');
  for (const event of result) {
    if (!KINDS.has(event.kind)) throw new Error(`unexpected kind ${String(event.kind)}`);
    if (typeof event.idempotencyKey !== 'string' || event.idempotencyKey === '') {
      throw new Error('event without an idempotency key');
    }
    if (event.kind === 'message' && typeof event.message.type !== 'string')
      throw new Error('message without type');
  }
  return result;
}

/** Valid envelopes of every shape, with the sentinel planted in payload strings. */
function seeds(): unknown[] {
  const messages = Object.values(everyMessageType());
  return [
    envelope([entry([messagesChange({ messages: [textMessage({ text: { body: SENTINEL } })] })])]),
    envelope([entry([messagesChange({ messages: [...messages, unknownTypeMessage()] })])]),
    envelope([
      entry([
        messagesChange({
          statuses: ['sent', 'delivered', 'read', 'failed'].map((s) =>
            statusObject(s, { recipient_id: SENTINEL }),
          ),
        }),
      ]),
    ]),
    envelope([
      entry([change('message_template_status_update', templateStatusValue({ reason: SENTINEL }))], 'a'),
      entry(
        [change('account_update', accountUpdateValue({ phone_number: SENTINEL })), change('x', { SENTINEL })],
        'b',
      ),
    ]),
  ];
}

const mutation = mutationArb({
  ops: ['delete', 'null', 'replace', 'wrap', 'insert', 'stringify', 'empty'],
  values: fc.jsonValue({ maxDepth: 3 }),
  keys: ['id', 'type', 'entry', 'changes', 'value', 'field', 'messages', 'statuses', '__proto__', 'x'],
});

describe('parseWebhook never throws anything but WebhookParseError', () => {
  it(
    'random JSON values, as text and as objects',
    () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          check(JSON.stringify(value));
          check(value);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'random strings and bytes',
    () => {
      fc.assert(
        fc.property(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.uint8Array({ maxLength: 200 }),
          (text, bytes) => {
            check(text);
            check(bytes);
            check(bytes.buffer);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'random JSON envelopes built around the skeleton',
    () => {
      const anything = fc.jsonValue({ maxDepth: 2 });
      const item = fc.oneof(
        anything,
        fc.dictionary(fc.constantFrom('id', 'type', 'status', 'text', 'from'), anything),
      );
      const items = fc.oneof(fc.array(item, { maxLength: 4 }), anything);
      const value = fc.record({ messages: items, statuses: items, contacts: anything }, { requiredKeys: [] });
      const field = fc.oneof(
        fc.constantFrom('messages', 'message_template_status_update', 'account_update'),
        anything,
      );
      const changeArb = fc.record({ field, value }, { requiredKeys: [] });
      const entryArb = fc.record(
        { id: anything, changes: fc.array(changeArb, { maxLength: 3 }) },
        { requiredKeys: [] },
      );
      const envelopeArb = fc.record({ entry: fc.array(entryArb, { maxLength: 3 }) });
      fc.assert(
        fc.property(envelopeArb, (env) => {
          check(env);
          check(JSON.stringify(env));
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'mutations of valid envelopes: dropped keys, changed types, inserted nulls',
    () => {
      const base = seeds();
      fc.assert(
        fc.property(
          fc.nat({ max: base.length - 1 }),
          fc.array(mutation, { minLength: 1, maxLength: 6 }),
          (i, ms) => {
            const mutated = mutate(structuredClone(base[i]), ms);
            const asObject = check(mutated);
            const asText = check(JSON.stringify(mutated) ?? 'null');
            // Text and object forms of the same envelope agree.
            if (Array.isArray(asObject) && Array.isArray(asText)) {
              expect(asText.map((e) => e.idempotencyKey)).toEqual(asObject.map((e) => e.idempotencyKey));
            } else {
              expect(asText instanceof WebhookParseError).toBe(asObject instanceof WebhookParseError);
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it('every valid seed parses without error', () => {
    for (const seed of seeds()) expect(Array.isArray(check(seed))).toBe(true);
  });

  it('deep nesting and large inputs', () => {
    const depth = 200_000;
    const deepText = `{"entry":[{"id":"1","changes":[{"field":"x","value":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}]}]}`;
    check(deepText);
    check(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    const many = envelope([
      entry([messagesChange({ messages: Array.from({ length: 10_000 }, () => textMessage()) })]),
    ]);
    const text = JSON.stringify(many);
    expect(text.length).toBeGreaterThan(1_000_000);
    const events = check(text);
    expect(Array.isArray(events) && events.length).toBe(10_000);
  });
});
