/**
 * Hot schemas run compiled by zod (`z.compile`, through `core/compiled.ts`). zod promises the same results; this
 * holds it for the SDK's own schemas, their refinements and transforms included: for generated valid inputs, their
 * mutations and arbitrary values, the compiled clone and the schema agree on success, and on the parsed value
 * (deeply, and key order too, since the value is what goes on the wire). Runs per property: FUZZ_RUNS (default
 * 1,000; `npm run test:fuzz` uses 100,000).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiled, HOT_AFTER, hot } from '../../src/core/compiled.js';
import { outboundMessageSchema } from '../../src/gateway/message-schema.js';
import { messageItemSchema, sendMessagesBodySchema } from '../../src/platform/messages.schema.js';
import { streamMessageSchema } from '../../src/platform/stream.schema.js';
import { mutate, validMessage } from './message-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 10);

/** The two answers are the same: success, and the value deeply and in key order. */
function agree(schema: z.ZodType, fast: z.ZodType, input: unknown): void {
  const slow = schema.safeParse(input);
  const quick = fast.safeParse(input);
  if (slow.success !== quick.success) {
    throw new Error(`compiled says ${quick.success}, zod says ${slow.success} for ${safeJson(input)}`);
  }
  if (slow.success && quick.success) {
    expect(quick.data).toStrictEqual(slow.data);
    expect(safeJson(quick.data)).toBe(safeJson(slow.data));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(not JSON)';
  }
}

const replacement = fc.oneof(
  fc.anything(),
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ minLength: 4097, maxLength: 4200 }),
  fc.constantFrom(0, 1, 2, '0', '3', 'button', 'url', 'text', 'reply', ''),
);
const paths = fc.array(fc.nat(), { maxLength: 7 });

/** A schema, valid inputs for it, and how many of the runs to spend. */
const CASES: { name: string; schema: z.ZodType; valid: fc.Arbitrary<unknown> }[] = [
  { name: 'outboundMessageSchema', schema: outboundMessageSchema, valid: validMessage },
  {
    name: 'streamMessageSchema',
    schema: streamMessageSchema,
    valid: fc.record({
      id: fc.integer(),
      created_at: fc.constant('2026-11-24T10:00:00Z'),
      conversation: fc.record({
        uuid: fc.uuid(),
        customer: fc.option(fc.record({ uuid: fc.uuid(), name: fc.string() }), { nil: null }),
        is_archived: fc.boolean(),
      }),
      channel: fc.record({ uuid: fc.uuid(), type: fc.constant('whatsapp'), name: fc.string() }),
      type: fc.constantFrom('text', 'media', 'location'),
      agent: fc.option(fc.string(), { nil: null }),
      customer: fc.constant(null),
      content: fc.option(fc.string(), { nil: null }),
      data: fc.record({ url: fc.webUrl(), type: fc.constant('image') }, { requiredKeys: [] }),
    }),
  },
  {
    name: 'sendMessagesBodySchema',
    schema: sendMessagesBodySchema,
    valid: fc.record({
      uuid: fc.uuid(),
      messages: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant('text'), content: fc.string({ minLength: 1, maxLength: 50 }) }),
          fc.record({ type: fc.constant('image'), content: fc.string(), url: fc.webUrl() }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  },
  {
    name: 'messageItemSchema',
    schema: messageItemSchema,
    valid: fc.record({ type: fc.constant('text'), content: fc.string({ minLength: 1, maxLength: 50 }) }),
  },
];

describe.each(CASES)('$name compiled agrees with zod', ({ schema, valid }) => {
  const fast = compiled(schema);

  it('compiles (else this test would compare the schema with itself)', () => {
    expect(fast).not.toBe(schema);
  });

  it(
    'on valid inputs',
    () =>
      fc.assert(
        fc.property(valid, (input) => agree(schema, fast, input)),
        { numRuns: RUNS },
      ),
    TIMEOUT,
  );

  it(
    'on mutations of valid inputs',
    () =>
      fc.assert(
        fc.property(valid, paths, replacement, (input, path, value) =>
          agree(schema, fast, mutate(input, path, value)),
        ),
        { numRuns: RUNS },
      ),
    TIMEOUT,
  );

  it(
    'on any value',
    () =>
      fc.assert(
        fc.property(fc.anything(), (input) => agree(schema, fast, input)),
        { numRuns: RUNS },
      ),
    TIMEOUT,
  );
});

describe('hot', () => {
  afterEach(() => {
    z.config({ jitless: false });
  });

  it(`answers with the schema itself for its first ${HOT_AFTER} checks, then always with one compiled clone`, () => {
    const schema = z.object({ id: z.string() });
    const seen = Array.from({ length: HOT_AFTER + 4 }, () => hot(schema));
    expect(seen.slice(0, HOT_AFTER).every((s) => s === schema)).toBe(true);
    const clone = seen[HOT_AFTER];
    expect(clone).not.toBe(schema);
    expect(seen.slice(HOT_AFTER).every((s) => s === clone)).toBe(true);
    expect(clone?.safeParse({ id: 'a', x: 1 })).toEqual({ success: true, data: { id: 'a' } });
  });

  it('keeps the schema itself when the application turned code generation off (z.config({ jitless: true }))', () => {
    z.config({ jitless: true });
    const schema = z.object({ id: z.string() });
    const seen = Array.from({ length: HOT_AFTER + 1 }, () => hot(schema));
    expect(seen.every((s) => s === schema)).toBe(true);
  });

  it('a compiled clone reports the same issues as the schema for an input it refuses', () => {
    const fast = compiled(outboundMessageSchema);
    const input = { to: '+998 90', type: 'text', text: { body: '', previewUrl: true } };
    const slow = outboundMessageSchema.safeParse(input);
    const quick = fast.safeParse(input);
    expect(quick.success).toBe(false);
    expect(quick.error?.issues).toEqual(slow.error?.issues);
    expect(quick.error?.issues.map((i) => i.path.join('.'))).toEqual(['to', 'text.body', 'text']);
  });
});
