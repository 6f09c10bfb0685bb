/**
 * The generated stream record checkers (`src/platform/checkers.generated.ts`: the record and its light check),
 * one rule at a time: a record that breaks only one rule (a required key gone, a non-nullable key `null`, an id
 * that is no safe integer) is refused by the generated checker alone and by the schema with exactly one issue at
 * that key; a record using a leniency (a nullable or optional key `null` or absent, unknown keys) is accepted by
 * both with the same output; and every single mutation of the simulator's records gets the schema's verdict.
 */
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { checkStreamMessage, checkStreamRecordKey } from '../../src/platform/checkers.generated.js';
import { streamMessageSchema, streamRecordKeySchema } from '../../src/platform/stream.schema.js';
import { platformMessageRecord } from '../../src/testing/platform/state.js';
import { edited, everySingleMutation, GONE, type TreePath } from '../fuzz/tree-mutations.js';

type Check = (input: unknown, issues: RawIssue[]) => unknown;
interface Schema {
  safeParse(
    input: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: { path: PropertyKey[] }[] } };
}

/** A record using every field: a media record with its data, a customer on the conversation, a group. */
const RECORD = platformMessageRecord({
  id: 7,
  type: 'media',
  agent: 'agent@example.com',
  content: null,
  data: {
    url: 'https://x.example/a.jpg',
    type: 'image',
    quote: { id: 1 },
    language: 'uz',
    recipient: null,
    identifier: 'abc',
    in_working_hours: true,
    lat: 41.31,
    lng: 69.28,
  },
  group: { name: 'Sales' },
});

/** A copy of the record with the value at `path` set, or the key deleted (`GONE`). */
const withValue = (path: TreePath, value: unknown) => edited(RECORD, [path, value]);

/** [what is broken, the path, the value (or `GONE`)]: each breaks one rule of the record schema. */
const BROKEN: readonly [string, TreePath, unknown][] = [
  ['id: missing', ['id'], GONE],
  ['id: a string', ['id'], '7'],
  ['id: not an integer', ['id'], 1.5],
  ['id: beyond the safe integers', ['id'], 2 ** 53],
  ['id: NaN', ['id'], Number.NaN],
  ['id: null', ['id'], null],
  ['created_at: missing', ['created_at'], GONE],
  ['created_at: null', ['created_at'], null],
  ['conversation: missing', ['conversation'], GONE],
  ['conversation: null', ['conversation'], null],
  ['conversation.uuid: missing', ['conversation', 'uuid'], GONE],
  ['conversation.customer: a string', ['conversation', 'customer'], 'Aziza'],
  ['conversation.customer.uuid: missing', ['conversation', 'customer', 'uuid'], GONE],
  ['conversation.customer.email: a number', ['conversation', 'customer', 'email'], 1],
  ['conversation.is_archived: null', ['conversation', 'is_archived'], null],
  ['conversation.is_archived: a string', ['conversation', 'is_archived'], 'false'],
  ['channel: missing', ['channel'], GONE],
  ['channel: null', ['channel'], null],
  ['channel.uuid: missing', ['channel', 'uuid'], GONE],
  ['channel.name: a number', ['channel', 'name'], 1],
  ['type: missing', ['type'], GONE],
  ['type: null', ['type'], null],
  ['agent: missing (nullable, not optional)', ['agent'], GONE],
  ['agent: a number', ['agent'], 1],
  ['customer: missing (nullable, not optional)', ['customer'], GONE],
  ['customer: a string', ['customer'], 'Aziza'],
  ['content: missing (nullable, not optional)', ['content'], GONE],
  ['content: a number', ['content'], 1],
  ['data: a string', ['data'], 'x'],
  ['data.url: null', ['data', 'url'], null],
  ['data.type: null', ['data', 'type'], null],
  ['data.language: a number', ['data', 'language'], 1],
  ['data.in_working_hours: a string', ['data', 'in_working_hours'], 'yes'],
  ['data.lat: a string', ['data', 'lat'], '41.31'],
  ['data.lat: null', ['data', 'lat'], null],
  ['data.lng: Infinity', ['data', 'lng'], Number.POSITIVE_INFINITY],
  ['group: a string', ['group'], 'Sales'],
  ['group.name: a number', ['group', 'name'], 1],
];

/** [what is lenient, the path, the value (or `GONE`)]: each is a record the schema takes. */
const ACCEPTED: readonly [string, TreePath, unknown][] = [
  ['the record as it is', ['id'], 7],
  ['id: the largest safe integer', ['id'], Number.MAX_SAFE_INTEGER],
  ['id: negative', ['id'], -1],
  ['conversation.customer: null', ['conversation', 'customer'], null],
  ['conversation.customer: absent', ['conversation', 'customer'], GONE],
  ['conversation.customer.name: null', ['conversation', 'customer', 'name'], null],
  ['conversation.is_archived: absent', ['conversation', 'is_archived'], GONE],
  ['conversation: an unknown key', ['conversation', 'extra'], 1],
  ['channel.name: null', ['channel', 'name'], null],
  ['channel.backend: absent', ['channel', 'backend'], GONE],
  ['agent: null', ['agent'], null],
  ['customer: null', ['customer'], null],
  ['customer: any keys', ['customer'], { anything: [1] }],
  ['content: a string', ['content'], 'Hello'],
  ['data: null', ['data'], null],
  ['data: absent', ['data'], GONE],
  ['data.quote: anything', ['data', 'quote'], null],
  ['data.in_working_hours: null', ['data', 'in_working_hours'], null],
  ['data.lat: absent', ['data', 'lat'], GONE],
  ['group: null', ['group'], null],
  ['group: absent', ['group'], GONE],
  ['group.name: null', ['group', 'name'], null],
  ['an unknown top-level key', ['extra'], { x: 1 }],
];

function verdict(check: Check, input: unknown): { valid: boolean; value: unknown } {
  const issues: RawIssue[] = [];
  const value = check(input, issues);
  return { valid: issues.length === 0, value };
}

describe('the stream record checker, one rule at a time', () => {
  it.each(BROKEN)('%s', (_, path, value) => {
    const record = withValue(path, value);
    expect(verdict(checkStreamMessage, record).valid).toBe(false);
    const parsed = streamMessageSchema.safeParse(record);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([path]);
  });

  it.each(ACCEPTED)('accepts %s', (_, path, value) => {
    const record = withValue(path, value);
    const parsed = streamMessageSchema.safeParse(record);
    expect(parsed.success).toBe(true);
    const { valid, value: out } = verdict(checkStreamMessage, record);
    expect(valid).toBe(true);
    expect(out).toStrictEqual(parsed.data);
  });
});

describe("the stream's light check (id and created_at only), one rule at a time", () => {
  const KEY_RULES = BROKEN.filter(([, path]) => path[0] === 'id' || path[0] === 'created_at');
  it.each(KEY_RULES)('%s', (_, path, value) => {
    const record = withValue(path, value);
    expect(verdict(checkStreamRecordKey, record).valid).toBe(false);
    const parsed = streamRecordKeySchema.safeParse(record);
    expect(parsed.error?.issues.map((i) => i.path)).toEqual([path]);
  });

  it('takes a record broken anywhere but its id and created_at', () => {
    const others = BROKEN.filter(([, path]) => path[0] !== 'id' && path[0] !== 'created_at');
    expect(others.length).toBeGreaterThan(20);
    for (const [, path, value] of others) {
      const record = withValue(path, value);
      expect(verdict(checkStreamRecordKey, record)).toEqual({
        valid: true,
        value: { id: 7, created_at: RECORD.created_at },
      });
      expect(streamRecordKeySchema.safeParse(record).success).toBe(true);
    }
  });
});

describe('every single mutation of a record: the generated checkers give the schema its verdict', () => {
  const CHECKERS = [
    ['record', streamMessageSchema, checkStreamMessage],
    ['record key (the light check)', streamRecordKeySchema, checkStreamRecordKey],
  ] as const;
  const records = [
    RECORD,
    platformMessageRecord(),
    platformMessageRecord({ type: 'location', data: { lat: 1, lng: 2 } }),
  ];

  it.each(CHECKERS)('%s', (_, schema, check) => {
    const differences: string[] = [];
    let refused = 0;
    for (const record of records) {
      const mutations = everySingleMutation(record, {
        strings: ['', '7', 'x'.repeat(5000)],
        values: [0, 1.5, 2 ** 53, -1, Number.NaN, true, 'x', {}, [], ['x']],
        added: [
          ['extra', 'x'],
          ['__proto__', { id: 1 }],
        ],
      });
      for (const { what, tree } of mutations) {
        const expected = (schema as Schema).safeParse(tree);
        const got = verdict(check, tree);
        if (!expected.success) refused++;
        if (expected.success !== got.valid)
          differences.push(`${what}: generated ${got.valid}, schema ${expected.success}`);
        else if (expected.success && JSON.stringify(got.value) !== JSON.stringify(expected.data))
          differences.push(`${what}: the outputs differ`);
      }
    }
    expect(differences).toEqual([]);
    expect(refused).toBeGreaterThan(10);
  });
});
