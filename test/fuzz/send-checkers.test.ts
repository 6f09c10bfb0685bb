/**
 * The generated send-path checkers (`src/gateway/checkers.generated.ts`, `src/platform/checkers.generated.ts`) answer
 * as the classic zod schemas they were generated from: the same verdict, and on success the same output (deeply and
 * in key order). Their issues are the schema's by construction (an input they refuse is parsed by the schema), so
 * what is held for the issues is the public result: `validateMessage` gives exactly what the schema's parse gives.
 * For valid inputs, their mutations (missing, mistyped, `null`, wrapped, inserted fields), any value at all, and the
 * real payloads the repository has (the simulators' answers and records, the send fixtures).
 * Runs per property: FUZZ_RUNS (default 1,000; `npm run test:fuzz` uses 100,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { safeCheck } from '../../src/core/zod.js';
import { checkOutboundMessage, checkSendResponse } from '../../src/gateway/checkers.generated.js';
import { outboundMessageSchema, sendResponseSchema } from '../../src/gateway/message-schema.js';
import { readSendResponse } from '../../src/gateway/send-response.js';
import { toMessageIssues, validateMessage } from '../../src/gateway/validate-message.js';
import { checkStreamMessage, checkStreamRecordKey } from '../../src/platform/checkers.generated.js';
import { streamMessageSchema, streamRecordKeySchema } from '../../src/platform/stream.schema.js';
import { GatewaySimulator } from '../../src/testing/gateway-simulator.js';
import { platformMessageRecord } from '../../src/testing/platform/state.js';
import { sendOk } from '../helpers/msw.js';
import { validMessage } from './message-arbitraries.js';
import { type Mutation, mutate, mutationArb } from './tree-mutations.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 15);

type Check = (input: unknown, issues: RawIssue[]) => unknown;
interface Parser {
  safeParse(input: unknown): { success: true; data: unknown } | { success: false };
}

/** The tree's JSON, or a marker where it has none: two outputs with the same JSON have their keys in one order. */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(not JSON)';
  }
}

/** Throws (with the input) unless the checker and the schema give the same verdict and output. */
function agree(schema: Parser, check: Check, input: unknown): void {
  let expected: ReturnType<Parser['safeParse']>;
  try {
    expected = schema.safeParse(input);
  } catch {
    return; // a throwing getter: both paths go to the schema (validateMessage's own test below holds it)
  }
  const issues: RawIssue[] = [];
  const value = check(input, issues);
  if (expected.success !== (issues.length === 0)) {
    throw new Error(
      `generated says ${issues.length === 0 ? 'valid' : 'invalid'}, zod says ${expected.success ? 'valid' : 'invalid'} for ${json(input)}`,
    );
  }
  if (expected.success) {
    expect(value).toStrictEqual(expected.data);
    expect(json(value)).toBe(json(expected.data));
  }
}

/** `validateMessage` (generated checker, the schema for a refused message) gives what the schema alone gives. */
function sameAsSchema(input: unknown): void {
  const schema = safeCheck(outboundMessageSchema, input, { what: 'message', mapIssues: toMessageIssues });
  const result = validateMessage(input);
  if (schema.ok) {
    expect(result.valid).toBe(true);
    expect(result.valid && result.message).toStrictEqual(schema.data);
  } else {
    expect(result).toEqual({ valid: false, issues: schema.issues });
  }
}

const values = fc.oneof(
  fc.anything(),
  fc.constantFrom(null, undefined, '', 'x', '0', 0, 1, 2, 1.5, -1, 2 ** 60, Number.NaN, true, [], {}, [1]),
  fc.constantFrom(
    'text',
    'button',
    'list',
    'reply',
    'header',
    'body',
    '998901234567',
    '+998 90',
    'https://a.b',
  ),
);
const mutations = fc.array(
  mutationArb({
    ops: ['delete', 'null', 'undefined', 'replace', 'wrap', 'insert', 'stringify', 'empty', 'append'],
    values,
    keys: ['type', 'id', 'index', 'sub_type', 'text', 'link', 'contacts', 'messages', 'data', '__proto__'],
  }),
  { maxLength: 3 },
);

/** A property over `arb`, run `RUNS * share` times, as one test. */
function property<T>(name: string, arb: fc.Arbitrary<T>, run: (value: T) => void, share = 1): void {
  it(name, () => fc.assert(fc.property(arb, run), { numRuns: Math.ceil(RUNS * share) }), TIMEOUT);
}

/** Fresh replacement values: fast-check hands the same objects to later runs, and a mutation may nest one in itself. */
const fresh = (ms: readonly Mutation[]): Mutation[] =>
  ms.map((m) => ({ ...m, value: structuredClone(m.value) }));

const buttons = (ids: string[]) => ({
  to: '998901234567',
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'Pick one' },
    action: { buttons: ids.map((id) => ({ type: 'reply', reply: { id, title: id.slice(0, 20) || 'x' } })) },
  },
});

/** Messages the send tests and the docs use, valid and not: the edges of every rule. */
const MESSAGE_FIXTURES: unknown[] = [
  { to: '998901234567', type: 'text', text: { body: 'Hello' } },
  { to: '998901234567', type: 'text', text: { body: 'x'.repeat(4097) } },
  { to: '998901234567', type: 'text', text: { body: '😀'.repeat(4096), preview_url: true } },
  { to: '+998 90 123-45-67', type: 'text', text: { body: 'Hi' } },
  { to: '0998901234567', type: 'text', text: { body: 'Hi' } },
  { to: '9989012345678901', type: 'text', text: { body: 'Hi' } },
  { to: '', type: 'text', text: { body: 'Hi' } },
  { to: '998901234567', type: 'text', text: { body: 'Hi', previewUrl: true }, isFake: true },
  { to: '998901234567', type: 'image', image: { link: 'https://cdn.example.com/a.jpg', caption: 'A' } },
  { to: '998901234567', type: 'image', image: { link: 'http:/cdn.example.com/a.jpg' } },
  { to: '998901234567', type: 'document', document: { link: 'https://x.example/a.pdf', filename: 'a.pdf' } },
  {
    to: '998901234567',
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Aziza' },
            { type: 'currency', currency: {} },
          ],
        },
        { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'ABC' }] },
        { type: 'button', sub_type: 'quick_reply', index: '2', parameters: [] },
      ],
    },
  },
  { to: '998901234567', type: 'template', template: { name: 'x', language: 'en' } },
  {
    to: '998901234567',
    type: 'template',
    template: { name: 'x', language: { code: 'en' }, components: [{ type: 'button', parameters: [] }] },
  },
  {
    to: '998901234567',
    type: 'template',
    template: {
      name: 'x',
      language: { code: 'en' },
      components: [{ type: 'header', index: 1, parameters: [{ type: 'image' }] }],
    },
  },
  buttons(['a', 'b', 'c']),
  buttons(['a', 'b', 'a']),
  buttons(['a', 'a', 'a', 'a']),
  buttons([]),
  {
    to: '998901234567',
    type: 'interactive',
    interactive: {
      type: 'list',
      body: { text: 'Menu' },
      action: {
        button: 'Open',
        sections: [
          { title: 'S', rows: [{ id: 'r1', title: 'Row', description: 'd' }] },
          { title: 'T', rows: [] },
        ],
      },
    },
  },
  { to: '998901234567', type: 'video', video: { link: 'https://x.example/v.mp4' } },
];

describe('the generated outbound message checker', () => {
  it('agrees with the schema, and validateMessage with the schema alone, on the send fixtures', () => {
    let valid = 0;
    for (const input of MESSAGE_FIXTURES) {
      agree(outboundMessageSchema, checkOutboundMessage, input);
      sameAsSchema(input);
      if (outboundMessageSchema.safeParse(input).success) valid++;
    }
    // Both kinds are there (the fixtures check something on each side).
    expect(valid).toBeGreaterThan(5);
    expect(MESSAGE_FIXTURES.length - valid).toBeGreaterThan(10);
  });

  const both = (input: unknown) => {
    agree(outboundMessageSchema, checkOutboundMessage, input);
    sameAsSchema(input);
  };
  property('agrees on every valid message', validMessage, both);
  property('agrees on mutations of valid messages', fc.tuple(validMessage, mutations), ([m, ms]) =>
    both(mutate(m, fresh(ms))),
  );
  property('agrees on any value', values, both, 1 / 4);

  it('leaves a message whose getter throws to the schema, which says it could not be read', () => {
    const message = {
      to: '998901234567',
      type: 'text',
      get text(): never {
        throw new Error('boom');
      },
    };
    expect(validateMessage(message)).toEqual({
      valid: false,
      issues: [expect.objectContaining({ code: 'unreadable', path: [] })],
    });
  });
});

/** The answers a send gets: the simulator's, the msw fixture's, and the spec's leniencies (a contact missing a field). */
function realAnswers(): unknown[] {
  const simulator = new GatewaySimulator({ ratePerSecond: 10_000 });
  const answers: unknown[] = [sendOk(), sendOk('wamid.X', '12025550123')];
  for (const message of MESSAGE_FIXTURES) {
    const sent = simulator.send({
      authorization: `Bearer ${simulator.options.apiKeys[0]}`,
      query: new URLSearchParams(),
      body: JSON.stringify({ messaging_product: 'whatsapp', ...(message as object) }),
    });
    answers.push(sent.body);
  }
  return answers;
}

describe('the generated send answer checker', () => {
  const answers = realAnswers();

  it('agrees with the schema on the simulator and fixture answers, and readSendResponse reads them', () => {
    let read = 0;
    for (const answer of answers) {
      agree(sendResponseSchema, checkSendResponse, answer);
      const parsed = sendResponseSchema.safeParse(answer);
      expect(readSendResponse(answer)).toEqual(
        parsed.success
          ? { messageId: parsed.data.data.messages[0]!.id, contacts: parsed.data.data.contacts }
          : undefined,
      );
      if (parsed.success) read++;
    }
    expect(read).toBeGreaterThan(2);
  });

  const agreeOn = (input: unknown) => agree(sendResponseSchema, checkSendResponse, input);
  property('agrees on mutations of real answers', fc.tuple(fc.nat(), mutations), ([pick, ms]) =>
    agreeOn(mutate(structuredClone(answers[pick % answers.length]), fresh(ms))),
  );
  property('agrees on any value', values, agreeOn, 1 / 4);

  it('gives each answer a contacts array of its own, as zod does (not one shared default)', () => {
    const a = readSendResponse({ isSuccess: true, data: { messages: [{ id: 'w1' }] } });
    const b = readSendResponse({ isSuccess: true, data: { messages: [{ id: 'w2' }] } });
    expect(a?.contacts).toEqual([]);
    expect(a?.contacts).not.toBe(b?.contacts);
  });
});

/** Records as the platform simulator seeds and echoes them: text, media, location, an archived customer's. */
const RECORDS: unknown[] = [
  platformMessageRecord(),
  platformMessageRecord({
    id: 2,
    type: 'media',
    content: null,
    data: { url: 'https://x/a.jpg', type: 'image' },
  }),
  platformMessageRecord({ id: 3, type: 'location', content: null, data: { lat: 41.31, lng: 69.28 } }),
  platformMessageRecord({ id: 4, agent: 'agent@example.com', customer: null, group: { name: 'Sales' } }),
  platformMessageRecord({
    id: 5,
    conversation: { uuid: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f', customer: null, is_archived: true },
    data: { in_working_hours: null, quote: { id: 1 }, language: null, extra: [1, 2] },
  }),
];

const CHECKERS = [
  ['record', streamMessageSchema, checkStreamMessage],
  ['record key (the light check)', streamRecordKeySchema, checkStreamRecordKey],
] as const;

describe('the generated stream record checkers', () => {
  it.each(CHECKERS)('%s: agrees with the schema on the simulator records', (_, schema, check) => {
    for (const record of RECORDS) agree(schema, check, record);
  });

  for (const [name, schema, check] of CHECKERS) {
    property(
      `${name}: agrees on mutations of the records and on any value`,
      fc.tuple(fc.nat(), mutations, values),
      ([pick, ms, any]) => {
        agree(schema, check, mutate(structuredClone(RECORDS[pick % RECORDS.length]), fresh(ms)));
        agree(schema, check, any);
      },
    );
  }
});
