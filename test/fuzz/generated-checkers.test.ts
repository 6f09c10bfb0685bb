/**
 * The generated webhook checkers (`src/webhooks/checkers.generated.ts`) answer as the zod schemas they were
 * generated from: the same verdict, the same output (deeply and in key order) on success, and on failure the same
 * issues (code, path, message, what `toIssues` reads) in the same order. For valid items, their mutations (missing,
 * mistyped, `null`, wrapped, inserted fields), any value at all, and every item of the real-payload corpus.
 * Runs per property: FUZZ_RUNS (default 1,000; `npm run test:fuzz` uses 100,000).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { toIssues } from '../../src/core/issues.js';
import {
  accountUpdateValue,
  contact,
  everyMessageType,
  FIXTURE_METADATA,
  messageEnvelope,
  statusEnvelope,
  statusObject,
  templateStatusValue,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import {
  checkAccountUpdateValue,
  checkContact,
  checkEnvelope,
  checkMetadata,
  checkStatus,
  checkTemplateStatusValue,
  messageCheckers,
} from '../../src/webhooks/checkers.generated.js';
import {
  accountUpdateValueSchema,
  contactSchema,
  messageSchemas,
  metadataSchema,
  statusSchema,
  templateStatusValueSchema,
  webhookEnvelopeSchema,
} from '../../src/webhooks/schemas.js';
import { mutate, mutationArb } from './tree-mutations.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);

/**
 * The zod the checkers' messages were generated with, and the one installed. They differ only in CI's zod matrix
 * (`.ci/zod-matrix/run`), which runs the suites on the range's lowest and newest zod: there the verdicts and outputs
 * must still agree, while the messages are the generating zod's (which the built entries bundle), not this one's.
 */
const GENERATED_WITH = /Messages from zod (\S+)\./.exec(
  readFileSync(new URL('../../src/webhooks/checkers.generated.ts', import.meta.url), 'utf8'),
)?.[1];
const SAME_ZOD =
  GENERATED_WITH === (createRequire(import.meta.url)('zod/package.json') as { version: string }).version;
const TIMEOUT = Math.max(20_000, RUNS * 15);

type Check = (input: unknown, issues: RawIssue[]) => unknown;
interface Parser {
  safeParse(
    input: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: RawIssue[] } };
}

/**
 * Throws unless every object of the checker's output has its keys in the order of zod's, or is the input's own
 * object at that place (a valid item returned as received keeps the delivery's order; its contents are compared
 * by `toStrictEqual`).
 */
function sameKeyOrder(value: unknown, expected: unknown, input: unknown, seen = new Set<unknown>()): void {
  if (value === input || seen.has(value) || typeof value !== 'object' || value === null) return;
  seen.add(value);
  const at = (x: unknown, k: string | number) =>
    typeof x === 'object' && x !== null ? (x as Record<string | number, unknown>)[k] : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) sameKeyOrder(v, at(expected, i), at(input, i), seen);
    return;
  }
  expect(Object.keys(value)).toEqual(Object.keys(expected as object));
  for (const [k, v] of Object.entries(value)) sameKeyOrder(v, at(expected, k), at(input, k), seen);
}

/** What an issue says, as a user can see it (zod's finalised fields; `errors` of a union left out). */
const said = (i: RawIssue) => ({
  code: i.code,
  path: i.path,
  message: i.message,
  expected: i['expected'],
  minimum: i['minimum'],
  maximum: i['maximum'],
  origin: i['origin'],
  params: i['params'],
  values: i['values'],
  keys: i['keys'],
  options: i['options'],
  discriminator: i['discriminator'],
});

/** Throws (with the input) unless the checker and the schema give the same answer. */
function agree(schema: Parser, check: Check, input: unknown): void {
  const expected = schema.safeParse(input);
  const issues: RawIssue[] = [];
  const value = check(input, issues);
  if (expected.success !== (issues.length === 0)) {
    throw new Error(
      `generated says ${issues.length === 0 ? 'valid' : 'invalid'}, zod says ${expected.success ? 'valid' : 'invalid'} for ${json(input)}: ${json(issues)}`,
    );
  }
  if (expected.success) {
    expect(value).toStrictEqual(expected.data);
    sameKeyOrder(value, expected.data, input);
  } else if (SAME_ZOD) {
    expect(issues.map(said)).toEqual(expected.error.issues.map(said));
    expect(toIssues(issues as never)).toEqual(toIssues(expected.error.issues as never));
  }
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return '(not JSON)';
  }
}

const values = fc.oneof(
  fc.anything(),
  fc.constantFrom(null, undefined, '', 'x', 0, 1.5, -1, 2 ** 60, Number.NaN, true, [], {}, [1], {
    length: 0,
  }),
  fc.constantFrom('text', 'button_reply', 'list_reply', 'nfm_reply', 'sent', 'APPROVED', 'messages'),
);
const mutations = fc.array(
  mutationArb({
    ops: ['delete', 'null', 'undefined', 'replace', 'wrap', 'insert', 'stringify', 'empty'],
    values,
    keys: [
      'type',
      'id',
      'timestamp',
      'extra',
      'errors',
      'pricing',
      'body',
      'raw',
      '__proto__',
      'interactive',
    ],
  }),
  { maxLength: 3 },
);

const everyMessage = everyMessageType();
/** A root checker, its schema, and valid inputs to start mutating from. */
const CASES: { name: string; schema: Parser; check: Check; valid: () => unknown[] }[] = [
  {
    name: 'envelope',
    schema: webhookEnvelopeSchema as Parser,
    check: checkEnvelope,
    valid: () => [
      messageEnvelope(textMessage()),
      statusEnvelope([statusObject('sent'), statusObject('failed')]),
    ],
  },
  {
    name: 'metadata',
    schema: metadataSchema as Parser,
    check: checkMetadata,
    valid: () => [FIXTURE_METADATA],
  },
  { name: 'contact', schema: contactSchema as Parser, check: checkContact, valid: () => [contact()] },
  {
    name: 'status',
    schema: statusSchema as Parser,
    check: checkStatus,
    valid: () => [
      statusObject('sent'),
      statusObject('delivered'),
      statusObject('read'),
      statusObject('failed'),
    ],
  },
  {
    name: 'template status',
    schema: templateStatusValueSchema as Parser,
    check: checkTemplateStatusValue,
    valid: () => [
      templateStatusValue(),
      templateStatusValue({ event: 'REJECTED', reason: 'ABUSIVE_CONTENT' }),
    ],
  },
  {
    name: 'account update',
    schema: accountUpdateValueSchema as Parser,
    check: checkAccountUpdateValue,
    valid: () => [accountUpdateValue()],
  },
  ...Object.entries(messageSchemas).map(([type, schema]) => ({
    name: `${type} message`,
    schema: schema as Parser,
    check: messageCheckers[type]!,
    valid: () => [structuredClone(everyMessage[type])],
  })),
];

describe('the generated webhook checkers', () => {
  it('say which zod their messages come from', () => {
    expect(GENERATED_WITH).toMatch(/^4\.\d+\.\d+/);
  });

  it('have a checker for every message schema, and no other', () => {
    expect(Object.keys(messageCheckers)).toEqual(Object.keys(messageSchemas));
  });

  describe.each(CASES)('$name', ({ schema, check, valid }) => {
    it('agree with zod on the valid inputs', () => {
      for (const input of valid()) agree(schema, check, input);
    });

    it(
      'agree with zod on mutations of valid inputs',
      () =>
        fc.assert(
          fc.property(fc.nat(), mutations, (pick, ms) => {
            const inputs = valid();
            // Fresh values: fast-check hands the same objects to later runs, and a mutation may nest one in itself.
            const fresh = ms.map((m) => ({ ...m, value: structuredClone(m.value) }));
            // A copy: mutate works in place, and a fixture (FIXTURE_METADATA) is a shared module constant.
            agree(schema, check, mutate(structuredClone(inputs[pick % inputs.length]), fresh));
          }),
          { numRuns: RUNS },
        ),
      TIMEOUT,
    );

    it(
      'agree with zod on any value',
      () =>
        fc.assert(
          fc.property(values, (input) => agree(schema, check, input)),
          { numRuns: Math.ceil(RUNS / 4) },
        ),
      TIMEOUT,
    );
  });
});

describe('the generated webhook checkers on the real-payload corpus', () => {
  const dir = new URL('../webhooks/corpus/', import.meta.url);
  const bodies = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap(
      (f) =>
        (JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { payloads: { body: unknown }[] }).payloads,
    )
    .map((p) => p.body);

  it('reads a corpus (the test checks something)', () => {
    expect(bodies.length).toBeGreaterThan(20);
  });

  it('agree with zod on every envelope, value, message, status and contact of it', () => {
    let items = 0;
    for (const body of bodies) {
      agree(webhookEnvelopeSchema as Parser, checkEnvelope, body);
      for (const e of (
        body as { entry?: { changes?: { field?: string; value?: Record<string, unknown> }[] }[] }
      ).entry ?? []) {
        for (const change of e.changes ?? []) {
          const value = change.value ?? {};
          if (change.field === 'message_template_status_update')
            agree(templateStatusValueSchema as Parser, checkTemplateStatusValue, value);
          if (change.field === 'account_update')
            agree(accountUpdateValueSchema as Parser, checkAccountUpdateValue, value);
          if (value['metadata'] !== undefined)
            agree(metadataSchema as Parser, checkMetadata, value['metadata']);
          for (const c of (value['contacts'] as unknown[] | undefined) ?? [])
            agree(contactSchema as Parser, checkContact, c);
          for (const s of (value['statuses'] as unknown[] | undefined) ?? [])
            agree(statusSchema as Parser, checkStatus, s);
          for (const m of (value['messages'] as { type?: string }[] | undefined) ?? []) {
            const type = m.type ?? '';
            if (!Object.hasOwn(messageCheckers, type)) continue;
            agree(messageSchemas[type as keyof typeof messageSchemas] as Parser, messageCheckers[type]!, m);
            items++;
          }
        }
      }
    }
    expect(items).toBeGreaterThan(20);
  });
});
