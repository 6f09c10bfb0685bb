/**
 * Property runs of the webhook fast path (src/webhooks/fast-path.ts) against the zod schemas it stands in for:
 * whenever a twin answers, its schema accepts the same input and outputs the same tree (same keys in the same
 * order, same values; compared by structure, not by reference), and a twin never throws. Over valid
 * items, mutated items and hostile values; then whole envelopes, where `parseWebhook` must give the same events
 * with the fast path on and off. FUZZ_RUNS per property (default 1,000; `npm run test:fuzz` runs 100,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutNulls } from '../../src/webhooks/body.js';
import { parseTimestamp } from '../../src/webhooks/event-fields.js';
import { fastContact, fastMetadata, fastStatus, fastTextMessage } from '../../src/webhooks/fast-path.js';
import {
  contact,
  entry,
  envelope,
  everyMessageType,
  FIXTURE_METADATA,
  messagesChange,
  statusObject,
  textMessage,
  unknownTypeMessage,
} from '../../src/webhooks/fixtures.js';
import { parseWebhookWith } from '../../src/webhooks/parse.js';
import {
  contactSchema,
  metadataSchema,
  statusSchema,
  textMessageSchema,
} from '../../src/webhooks/schemas.js';
import { hostileFrom } from './hostile-values.js';
import { mutate, mutationArb } from './tree-mutations.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(60_000, RUNS * 30);

interface Schema {
  safeParse(
    input: unknown,
    params?: { jitless?: boolean },
  ): { success: true; data: unknown } | { success: false };
}
type Twin = (input: unknown) => unknown;

/** Each twin, its schema, and whether it stands in for the schema after `withoutNulls` (the item twins). */
const TWINS: [string, Twin, Schema, boolean][] = [
  ['metadata', fastMetadata, metadataSchema, false],
  ['contact', fastContact, contactSchema, false],
  ['text', fastTextMessage, textMessageSchema, true],
  ['status', fastStatus, statusSchema, true],
];

/**
 * Whether two trees are the same: identical values, or objects of the same prototype with the same own keys
 * (symbols and `undefined`-valued keys included) in the same order, holding the same trees. Stricter than
 * `toStrictEqual` (which ignores key order) and total on values `JSON.stringify` throws on (BigInt, cycles).
 */
function sameTree(a: unknown, b: unknown, depth = 0): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > 50) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || Array.isArray(a) !== Array.isArray(b))
    return false;
  const keysA = Reflect.ownKeys(a);
  const keysB = Reflect.ownKeys(b);
  if (keysA.length !== keysB.length || keysA.some((k, i) => k !== keysB[i])) return false;
  return keysA.every((k) =>
    sameTree((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], depth + 1),
  );
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * `schema.safeParse(input)`, or `'threw'` (a hostile getter or trap reached zod). `jitless`: zod's interpreted
 * object parser, the one it falls back to where code generation is not allowed (Workers).
 */
function zodRun(
  schema: Schema,
  input: unknown,
  jitless = false,
): { success: true; data: unknown } | { success: false } | 'threw' {
  try {
    return schema.safeParse(input, { jitless });
  } catch {
    return 'threw';
  }
}

/**
 * The contract, for one twin and one input. Returns whether the twin answered. Plain checks, not `expect`, in this
 * hot path (100,000 runs in CI's fuzz job).
 */
function holds(
  name: string,
  twin: Twin,
  schema: Schema,
  input: unknown,
  plain: boolean,
  item: boolean,
): boolean {
  let fast: unknown;
  try {
    fast = twin(input);
  } catch (error) {
    throw new Error(`the ${name} twin threw: ${String(error)}`);
  }
  if (fast === undefined) return false;
  const first = zodRun(schema, input);
  if (first === 'threw' || !first.success) {
    throw new Error(
      `the ${name} twin accepted what zod refuses (${first === 'threw' ? 'zod threw' : 'refused'})`,
    );
  }
  // A getter that makes a fresh value on every read gives two zod runs different trees: then only acceptance can
  // be compared. On every other input zod's output is a function of the input, and the twin's must be the same.
  const second = zodRun(schema, input);
  const stable = second !== 'threw' && second.success && sameTree(first.data, second.data);
  if (stable && !sameTree(fast, first.data)) throw new Error(`the ${name} twin's output differs from zod's`);
  // Not on a hostile input: JSON.stringify would walk a fan-out for ever.
  if (stable && plain && jsonOf(fast) !== jsonOf(first.data)) {
    throw new Error(`the ${name} twin's JSON differs from zod's: ${jsonOf(fast)} vs ${jsonOf(first.data)}`);
  }
  // The parser hands an item twin the item as received and the schema `withoutNulls(item)`: the twin must give
  // that too.
  if (item && plain) {
    const stripped = zodRun(schema, withoutNulls(input));
    if (stripped === 'threw' || !stripped.success || !sameTree(fast, stripped.data)) {
      throw new Error(`the ${name} twin's output differs from zod's on the item without its nulls`);
    }
  }
  const interpreted = zodRun(schema, input, true);
  if (interpreted === 'threw' || !interpreted.success) {
    throw new Error(`the ${name} twin accepted what zod's interpreted parser refuses`);
  }
  if (stable && !sameTree(fast, interpreted.data)) {
    throw new Error(`the ${name} twin's output differs from zod's interpreted parser's`);
  }
  return true;
}

/**
 * Every twin on `input` and, for a plain tree, on `withoutNulls(input)` too: what the parser hands the message and
 * status twins (it only ever gets plain trees: on a hostile one it may throw, or walk a fan-out for ever).
 */
function holdsForAll(input: unknown, plain = true): number {
  const stripped = plain ? withoutNulls(input) : input;
  let answered = 0;
  for (const [name, twin, schema, item] of TWINS) {
    if (holds(name, twin, schema, input, plain, item)) answered++;
    if (stripped !== input && holds(name, twin, schema, stripped, plain, item)) answered++;
  }
  return answered;
}

// Generators of valid items, around the fixtures: the shapes the twins are for, and their optional parts.
const str = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '0', 'sent', 'text', '__proto__'));
const timestamp = fc.oneof(
  fc.constantFrom('1700000000', ' 17 ', '', '-1', '1e3'),
  fc.string({ maxLength: 12 }),
  fc.double(),
  fc.integer(),
);
// Keys a relay might add, some of them the names of shape keys one level up or down, or special to objects.
const extraKey = fc.constantFrom(
  'x',
  'extra',
  'id',
  'body',
  'type',
  '__proto__',
  'constructor',
  '0',
  '10',
  'toString',
);
const extras = fc.dictionary(extraKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });

/** `base` with `extra` added as own data keys (a `__proto__` key too, as `JSON.parse` would add it). */
function withExtras(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Marks an optional key given as `undefined` (present, unlike an absent key: zod keeps it). */
const UNDEFINED = Symbol('present undefined');
/** An optional key's value: absent (`undefined`), present as `undefined` (`UNDEFINED`), or a value. */
function optional<T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | typeof UNDEFINED | undefined> {
  return fc.option(
    fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(UNDEFINED) }),
    {
      nil: undefined,
    },
  );
}
/** `target[key] = value` as `optional` drew it. */
function setOptional(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value === UNDEFINED ? undefined : value;
}

const contextArb = fc.record({ from: optional(str), id: optional(str) }).chain(({ from, id }) =>
  extras.map((x) => {
    const c: Record<string, unknown> = {};
    setOptional(c, 'from', from);
    setOptional(c, 'id', id);
    return withExtras(c, x);
  }),
);
const textArb = fc
  .record({
    body: fc.string({ maxLength: 40 }),
    id: fc.oneof(str, fc.constant('wamid.X')),
    from: str,
    timestamp,
    context: optional(contextArb),
    extra: extras,
    textExtra: extras,
    keyOrder: fc.boolean(),
  })
  .map(({ body, id, from, timestamp: ts, context, extra, textExtra, keyOrder }) => {
    const message: Record<string, unknown> = textMessage({ id, from, timestamp: ts as string });
    message['text'] = withExtras({ body }, textExtra);
    setOptional(message, 'context', context);
    const ordered = keyOrder ? Object.fromEntries(Object.entries(message).reverse()) : message;
    return withExtras(ordered, extra);
  });
/** One `errors[]` item: `code` is a `z.int()`, so its edges (fractions, unsafe integers, -0, NaN) come up often. */
function statusErrorArb() {
  const code = fc.oneof(
    fc.integer(),
    fc.constantFrom(131026, -0, 1.5, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, Number.NaN, '131026'),
    fc.double(),
  );
  return fc
    .record({
      code,
      title: str,
      message: str,
      error_data: fc.record({ details: str }).chain((d) => extras.map((x) => withExtras(d, x))),
    })
    .chain((e) => extras.map((x) => withExtras(e, x)));
}

const statusArb = fc
  .record({
    id: fc.oneof(str, fc.constant('wamid.S')),
    status: fc.oneof(fc.constantFrom('sent', 'delivered', 'read', 'failed', ''), str),
    timestamp,
    recipient: str,
    conversation: optional(
      fc
        .record({
          id: str,
          origin: optional(fc.record({ type: str }).chain((o) => extras.map((x) => withExtras(o, x)))),
        })
        .chain(({ id, origin }) =>
          extras.map((x) => {
            const c: Record<string, unknown> = { id };
            setOptional(c, 'origin', origin);
            return withExtras(c, x);
          }),
        ),
    ),
    pricing: optional(
      fc
        .record({ billable: fc.boolean(), pricing_model: str, category: str })
        .chain((p) => extras.map((x) => withExtras(p, x))),
    ),
    errors: optional(fc.array(statusErrorArb(), { maxLength: 2 })),
    extra: extras,
  })
  .map(({ id, status, timestamp: ts, recipient, conversation, pricing, errors, extra }) => {
    const base: Record<string, unknown> = statusObject(status, { id, recipient_id: recipient });
    base['timestamp'] = ts;
    delete base['conversation'];
    delete base['pricing'];
    delete base['errors'];
    setOptional(base, 'conversation', conversation);
    setOptional(base, 'pricing', pricing);
    setOptional(base, 'errors', errors);
    return withExtras(base, extra);
  });
const metadataArb = fc
  .record({ phone_number_id: str, display_phone_number: str })
  .chain((m) => extras.map((x) => withExtras(m, x)));
const contactArb = fc
  .record({ wa_id: str, name: str, profileExtra: extras, extra: extras })
  .map(({ wa_id, name, profileExtra, extra }) =>
    withExtras({ profile: withExtras({ name }, profileExtra), wa_id }, extra),
  );
const itemArb = fc.oneof(textArb, statusArb, metadataArb, contactArb);

const mutation = mutationArb({
  ops: ['delete', 'null', 'undefined', 'replace', 'wrap', 'insert', 'stringify', 'empty'],
  values: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, 10n),
  ),
  keys: ['id', 'type', 'text', 'body', 'status', 'timestamp', 'errors', '__proto__', 'context', 'x'],
});

/** Valid items of every twin's shape, and of shapes next to them, for the hostile runs to spike. */
function seeds(): unknown[] {
  return [
    textMessage(),
    textMessage({ context: { from: '15550009999', id: 'wamid.ctx' } }),
    ...['sent', 'delivered', 'read', 'failed'].map((s) => statusObject(s)),
    { ...FIXTURE_METADATA },
    contact(),
    ...Object.values(everyMessageType()),
  ];
}

describe('the fast path answers only as its schema does', () => {
  it(
    'valid items: a twin that answers outputs what zod outputs, key order included',
    () => {
      let answered = 0;
      fc.assert(
        fc.property(itemArb, (item) => {
          answered += holdsForAll(item);
        }),
        { numRuns: RUNS },
      );
      // Not vacuous: most generated items are of a twin's shape.
      expect(answered).toBeGreaterThan(RUNS / 4);
    },
    TIMEOUT,
  );

  it(
    'mutated items: dropped keys, changed types, nulls, present undefineds, __proto__ keys',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(itemArb, fc.constantFrom(...seeds())),
          fc.array(mutation, { minLength: 1, maxLength: 4 }),
          (item, ms) => {
            holdsForAll(mutate(structuredClone(item), ms));
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'hostile values: getters (throwing or not), proxies, cycles, BigInt, symbols, odd prototypes',
    () => {
      fc.assert(
        fc.property(hostileFrom(seeds()), (item) => {
          holdsForAll(item, false);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it('an accessor that throws makes a twin decline, not throw', () => {
    const message: Record<string, unknown> = textMessage();
    Object.defineProperty(message, 'text', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    expect(fastTextMessage(message)).toBeUndefined();
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    for (const [, twin] of TWINS) expect(twin(revoked.proxy)).toBeUndefined();
  });
});

describe('parseWebhook gives the same events with the fast path on and off', () => {
  const on = (body: unknown) => parseWebhookWith(body as object, true);
  const off = (body: unknown) => parseWebhookWith(body as object, false);

  /** Same events (deep, key order included) or the same error, for the body as an object and as JSON text. */
  function sameEvents(body: unknown): void {
    for (const form of [body, jsonOf(body) ?? 'null']) {
      let fast: unknown;
      let slow: unknown;
      try {
        fast = on(form);
      } catch (error) {
        fast = error;
      }
      try {
        slow = off(form);
      } catch (error) {
        slow = error;
      }
      if (fast instanceof Error || slow instanceof Error) {
        if (!(fast instanceof Error && slow instanceof Error && fast.message === slow.message)) {
          throw new Error('the fast path changed whether, or how, the body fails');
        }
      } else if (!sameTree(fast, slow) || jsonOf(fast) !== jsonOf(slow)) {
        throw new Error(`events differ: ${jsonOf(fast)} vs ${jsonOf(slow)}`);
      }
    }
  }

  it(
    'generated and mutated envelopes of messages and statuses',
    () => {
      const textItems = fc.array(fc.oneof(textArb, fc.constantFrom(...Object.values(everyMessageType()))), {
        maxLength: 3,
      });
      const statusItems = fc.array(statusArb, { maxLength: 3 });
      const envelopeArb = fc
        .record({
          messages: fc.option(textItems, { nil: undefined }),
          statuses: fc.option(statusItems, { nil: undefined }),
          metadata: fc.oneof(fc.constant(FIXTURE_METADATA), metadataArb),
          contacts: fc.option(fc.array(contactArb, { maxLength: 2 }), { nil: undefined }),
        })
        .map(({ messages, statuses, metadata, contacts }) =>
          envelope([
            entry([
              messagesChange({
                ...(messages ? { messages: messages as never } : {}),
                ...(statuses ? { statuses: statuses as never } : {}),
                ...(contacts ? { contacts: contacts as never } : {}),
                metadata: metadata as never,
              }),
            ]),
          ]),
        );
      fc.assert(
        fc.property(envelopeArb, fc.array(mutation, { maxLength: 4 }), (env, ms) => {
          sameEvents(env);
          sameEvents(mutate(structuredClone(env), ms));
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it('every documented message type, every status, with and without nulls', () => {
    const messages = [...Object.values(everyMessageType()), unknownTypeMessage()];
    const statuses = ['sent', 'delivered', 'read', 'failed', 'deleted'].map((s) => statusObject(s));
    const bodies: unknown[] = [
      ...messages.map((m) => envelope([entry([messagesChange({ messages: [m] })])])),
      envelope([entry([messagesChange({ messages })])]),
      ...statuses.map((s) => envelope([entry([messagesChange({ statuses: [s] })])])),
      envelope([entry([messagesChange({ statuses })])]),
      envelope([entry([messagesChange({ messages, statuses })])]),
      envelope([entry([messagesChange({ messages: [textMessage({ context: { id: 'wamid.ctx' } })] })])]),
      envelope([
        entry([messagesChange({ statuses: [{ ...statusObject('read'), conversation: null } as never] })]),
      ]),
      envelope([entry([messagesChange({ messages: [{ ...textMessage(), context: null }] })])]),
    ];
    for (const body of bodies) {
      sameEvents(body);
      const events = on(body);
      expect(events).toStrictEqual(off(body));
      expect(events.every((e) => e.kind !== 'unknown' || e.field !== 'messages')).toBe(true);
    }
  });
});

describe('parseTimestamp', () => {
  const NUMERIC = /^\s*-?\d+(?:\.\d+)?\s*$/;
  /** The definition before the all-digits shortcut. */
  function reference(raw: unknown): number | undefined {
    if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
    if (typeof raw !== 'string' || !NUMERIC.test(raw)) return undefined;
    const n = Number(raw);
    return Number.isFinite(n) ? n : undefined;
  }

  it('agrees with its regular expression on every string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.stringMatching(/^[0-9]{0,400}$/),
          fc.stringMatching(/^\s*-?[0-9]{1,12}(\.[0-9]{1,4})?\s*$/),
          fc.double(),
        ),
        (raw) => {
          expect(Object.is(parseTimestamp(raw), reference(raw))).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
    expect(parseTimestamp('')).toBeUndefined();
    expect(parseTimestamp('9'.repeat(400))).toBeUndefined();
    expect(parseTimestamp('1700000000')).toBe(1_700_000_000);
  });
});
