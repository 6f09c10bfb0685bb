/**
 * The send's fast path (src/gateway/message-fast-path.ts) against the schema it shortcuts: whenever it answers,
 * `outboundMessageSchema` accepts the same input and gives the same output (deep-equal, and the same JSON, key
 * order included). It must also answer for the shapes it exists for, or it speeds nothing up. Inputs: every shape
 * the spec allows, near misses of the fast shapes (one field off), random mutations, and hostile values (getters,
 * proxies, inherited keys, class instances). Runs per property: FUZZ_RUNS (default 1,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastValidMessage } from '../../src/gateway/message-fast-path.js';
import {
  outboundMessageSchema,
  outboundTemplateMessageSchema,
  outboundTextMessageSchema,
  templateComponentSchema,
  templateParameterSchema,
} from '../../src/gateway/message-schema.js';
import { validateMessage } from '../../src/index.js';
import { hostileFrom } from './hostile-values.js';
import { mutate, to, validMessage } from './message-arbitraries.js';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 10);

/** The fast path's answer, or the schema's verdict when they differ: the property's failure message. */
function agrees(input: unknown): boolean {
  let fast: unknown;
  try {
    fast = fastValidMessage(input);
  } catch {
    // A throwing getter or proxy: validateMessage then asks the schema, which reports it.
    return true;
  }
  if (fast === undefined) return true;
  const parsed = outboundMessageSchema.safeParse(input);
  if (!parsed.success) throw new Error(`fast path accepted what the schema refuses: ${parsed.error.message}`);
  expect(fast).toStrictEqual(parsed.data);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(parsed.data));
  return true;
}

const textParameter = fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 30 }) });

/** The shapes the fast path is for: a text, a template whose parameters are all texts. */
const fastShape = fc.oneof(
  fc.record(
    {
      to,
      type: fc.constant('text'),
      text: fc.record(
        { body: fc.string({ minLength: 1, maxLength: 4096 }), preview_url: fc.boolean() },
        { requiredKeys: ['body'] },
      ),
    },
    { noNullPrototype: true },
  ),
  fc.record({
    to,
    type: fc.constant('template'),
    template: fc.record(
      {
        name: fc.string({ minLength: 1, maxLength: 60 }),
        language: fc.record({ code: fc.constantFrom('en', 'en_US', 'uz') }),
        components: fc.array(
          fc.oneof(
            fc.record({
              type: fc.constantFrom('header', 'body'),
              parameters: fc.array(textParameter, { maxLength: 4 }),
            }),
            fc.record({
              type: fc.constant('button'),
              sub_type: fc.constantFrom('url', 'quick_reply'),
              index: fc.constantFrom('0', '1', '2', 0, 1, 2),
              parameters: fc.array(textParameter, { maxLength: 1 }),
            }),
          ),
          { maxLength: 4 },
        ),
      },
      { requiredKeys: ['name', 'language'] },
    ),
  }),
);

/** One field of a fast shape set to a value next to its rule's edge, or of the wrong kind. */
const nearMiss = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(''),
  fc.constant('0998901234567'),
  fc.constant('9989012'),
  fc.constant('9989012345678901'),
  fc.constant('+998901234567'),
  fc.constant('x'.repeat(4097)),
  fc.constantFrom('0', '1', '2', '3', '01', ' 1', '1.0', 'url', 'quick_reply', 'header', 'body', 'button'),
  fc.constantFrom(0, 1, 2, 3, -0, 1.5, Number.NaN),
  fc.constantFrom('text', 'image', 'template', 'toString', '__proto__', 'constructor'),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.anything(),
);

/** `value` rebuilt on a prototype that carries `inherited`: keys `for...in` sees but `Object.keys` does not. */
function withPrototype(value: unknown, inherited: Record<string, unknown>): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.assign(Object.create(inherited) as object, value);
}

describe('the send fast path', () => {
  it(
    'answers for every text and text-parameter template, with exactly what the schema gives',
    () => {
      fc.assert(
        fc.property(fastShape, (message) => {
          expect(fastValidMessage(message)).toBeDefined();
          return agrees(message);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'never accepts what the schema refuses, on near misses of its shapes',
    () => {
      fc.assert(
        fc.property(fastShape, fc.array(fc.nat(), { maxLength: 7 }), nearMiss, (message, path, value) =>
          agrees(mutate(message, path, value)),
        ),
        { numRuns: RUNS * 3 },
      );
    },
    TIMEOUT,
  );

  it(
    'agrees with the schema on every shape the spec allows and on their mutations',
    () => {
      fc.assert(
        fc.property(
          validMessage,
          fc.array(fc.nat(), { maxLength: 6 }),
          fc.anything(),
          (message, path, value) => agrees(message) && agrees(mutate(message, path, value)),
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'agrees with the schema on inherited keys and hostile values',
    () => {
      const inherited = fc.dictionary(
        fc.constantFrom(
          'to',
          'type',
          'text',
          'body',
          'preview_url',
          'sub_type',
          'index',
          'components',
          'extra',
        ),
        nearMiss,
        { minKeys: 1, maxKeys: 2 },
      );
      fc.assert(
        fc.property(fastShape, fc.array(fc.nat(), { maxLength: 6 }), inherited, (message, path, proto) => {
          // Rebuild one object on the path (the root when the path is empty) over the prototype.
          let target: unknown = message;
          for (const step of path) {
            if (typeof target !== 'object' || target === null) break;
            const keys = Object.keys(target);
            if (keys.length === 0) break;
            const key = keys[step % keys.length]!;
            const child = (target as Record<string, unknown>)[key];
            if (typeof child !== 'object' || child === null || Array.isArray(child)) break;
            (target as Record<string, unknown>)[key] = withPrototype(child, proto);
            target = (target as Record<string, unknown>)[key];
          }
          return agrees(path.length === 0 ? withPrototype(message, proto) : message);
        }),
        { numRuns: RUNS },
      );
      const seeds = fc.sample(fastShape, { numRuns: 20, seed: 7 });
      fc.assert(fc.property(hostileFrom(seeds), agrees), { numRuns: RUNS });
    },
    TIMEOUT,
  );
});

/** Every path to a value inside `value` (objects and arrays), the root's `[]` included. */
function pathsOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [at];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => pathsOf((value as Record<string | number, unknown>)[k], [...at, k]))];
}

/** A deep copy of `value` with `change` applied to the object at `path` (a copy of it, not the original). */
function edit(value: unknown, path: (string | number)[], change: (target: object) => object): unknown {
  if (path.length === 0) return change(structuredClone(value) as object);
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  parent[last] = change(parent[last] as object);
  return copy;
}

const SEEDS = [
  { to: '998901234567', type: 'text', text: { body: 'Hi', preview_url: true } },
  {
    to: '998901234567',
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'A' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'B' },
            { type: 'text', text: '' },
          ],
        },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'C' }] },
      ],
    },
  },
];

const EDGE_VALUES: unknown[] = [
  undefined,
  null,
  '',
  '0998901234567',
  '9989012',
  '9989012345678901',
  '+998901234567',
  'x'.repeat(4096),
  'x'.repeat(4097),
  ...['0', '1', '2', '3', '01', ' 1', '1.0', 'toString', '__proto__', 'constructor', 'valueOf'],
  ...['url', 'quick_reply', 'header', 'body', 'button', 'text', 'image', 'template', 'footer'],
  ...[0, 1, 2, 3, -0, 1.5, Number.NaN, true, false],
  [],
  {},
  { link: 'https://example.com/a.png' },
  [{ type: 'text', text: 'x' }],
];

const SHAPE_KEYS = [
  'image',
  'document',
  'video',
  'currency',
  'date_time',
  'sub_type',
  'index',
  'preview_url',
  'text',
  'components',
];

describe('the send fast path, one field off', () => {
  it('agrees with the schema when any one value of a fast shape is set to any edge value', () => {
    let cases = 0;
    for (const seed of SEEDS) {
      for (const path of pathsOf(seed)) {
        for (const value of EDGE_VALUES) {
          cases++;
          agrees(
            path.length === 0
              ? value
              : edit(seed, path.slice(0, -1), (t) => Object.assign(t, { [path[path.length - 1]!]: value })),
          );
        }
      }
    }
    expect(cases).toBeGreaterThan(500);
  });

  it('agrees with the schema when a field of the shape hides as non-enumerable or inherited', () => {
    for (const seed of SEEDS) {
      for (const path of pathsOf(seed)) {
        for (const key of SHAPE_KEYS) {
          for (const value of EDGE_VALUES) {
            const hidden = (t: object) => {
              if (typeof t !== 'object' || t === null || Array.isArray(t)) return t;
              const copy = { ...t };
              Object.defineProperty(copy, key, { value, enumerable: false, configurable: true });
              return copy;
            };
            const inherited = (t: object) =>
              typeof t !== 'object' || t === null || Array.isArray(t)
                ? t
                : Object.assign(Object.create({ [key]: value }) as object, t);
            agrees(edit(seed, path, hidden));
            agrees(edit(seed, path, inherited));
          }
        }
      }
    }
  });
});

describe('the send fast path, rules no generator reaches', () => {
  const TO = '998901234567';
  const template = (components: unknown[]) => ({
    to: TO,
    type: 'template',
    template: { name: 'n', language: { code: 'en' }, components },
  });

  it('takes the recipient rule over the whole string, across line breaks', () => {
    for (const to of [`${TO}\nx`, `x\n${TO}`, `${TO}\n`, `\n${TO}`]) {
      expect(fastValidMessage({ to, type: 'text', text: { body: 'hi' } })).toBeUndefined();
    }
  });

  it('takes no array for an object', () => {
    expect(
      fastValidMessage({ to: TO, type: 'text', text: Object.assign([], { body: 'hi' }) }),
    ).toBeUndefined();
    expect(
      fastValidMessage(Object.assign([], { to: TO, type: 'text', text: { body: 'hi' } })),
    ).toBeUndefined();
  });

  it('sees a field of the shape inherited as non-enumerable, as the schema reads it', () => {
    const image = Object.defineProperty({}, 'image', { value: { link: 'https://example.com/a.png' } });
    const parameter = Object.assign(Object.create(image) as object, { type: 'text', text: 'x' });
    expect(fastValidMessage(template([{ type: 'body', parameters: [parameter] }]))).toBeUndefined();
    const index = Object.defineProperty({}, 'index', { value: '0' });
    const header = Object.assign(Object.create(index) as object, { type: 'header', parameters: [] });
    expect(fastValidMessage(template([{ ...header }]))).toBeDefined();
    expect(fastValidMessage(template([header]))).toBeUndefined();
    agrees(template([header]));
  });

  it('meets an array whose length no array can have as the schema does, at once and without reading items', () => {
    for (const length of [2 ** 32, -1, 1.5]) {
      let reads = 0;
      const parameters = new Proxy([], {
        get: (target, key) => {
          if (key === 'length') return length;
          if (typeof key === 'string' && /^\d+$/.test(key)) {
            reads++;
            return { type: 'text', text: 'x' };
          }
          return Reflect.get(target, key);
        },
      });
      const message = template([{ type: 'body', parameters }]);
      expect(() => fastValidMessage(message)).toThrow(RangeError);
      expect(reads).toBe(0);
      const result = validateMessage(message);
      expect(result.valid).toBe(false);
      expect(result.issues[0]?.code).toBe('unreadable');
    }
  });

  it('knows every field of the shapes it walks (a field added to the schema must be added to it, or it declines)', () => {
    // A new required field would otherwise pass the fast path unchecked; a new optional one it already declines.
    const text = outboundTextMessageSchema.shape;
    const template = outboundTemplateMessageSchema.shape;
    expect(Object.keys(text)).toEqual(['to', 'type', 'text']);
    expect(Object.keys(text.text.shape)).toEqual(['body', 'preview_url']);
    expect(Object.keys(template)).toEqual(['to', 'type', 'template']);
    expect(Object.keys(template.template.shape)).toEqual(['name', 'language', 'components']);
    expect(Object.keys(template.template.shape.language.shape)).toEqual(['code']);
    expect(Object.keys(templateComponentSchema.shape)).toEqual(['type', 'sub_type', 'index', 'parameters']);
    expect(Object.keys(templateParameterSchema.shape)).toEqual([
      'type',
      'text',
      'image',
      'document',
      'video',
      'currency',
      'date_time',
    ]);
  });
});

describe('validateMessage with the fast path', () => {
  it('gives the schema its say on what the fast path leaves: issues and their wording stay the schema’s', () => {
    const result = validateMessage({ to: '0998901234567', type: 'text', text: { body: 'hi' } });
    expect(result.valid).toBe(false);
    expect(result.issues[0]?.path).toEqual(['to']);
    expect(result.issues[0]?.message).toMatch(/country code, not 0/);
  });

  it('turns a button index given as a number into the string the wire wants', () => {
    const message = {
      to: '998901234567',
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en' },
        components: [
          { type: 'button', sub_type: 'url', index: 1, parameters: [{ type: 'text', text: 'x' }] },
        ],
      },
    } as const;
    const result = validateMessage(message);
    expect(fastValidMessage(message)).toBeDefined();
    expect(
      result.valid && result.message.type === 'template' && result.message.template.components?.[0]?.index,
    ).toBe('1');
  });

  it('reads a throwing getter through the schema, which reports it, and never throws', () => {
    const message = {
      to: '998901234567',
      type: 'text',
      get text(): never {
        throw new Error('boom');
      },
    };
    const result = validateMessage(message);
    expect(result.valid).toBe(false);
    expect(result.issues[0]?.code).toBe('unreadable');
  });

  it('copies: the validated message shares no object with the input', () => {
    const input = {
      to: '998901234567',
      type: 'template' as const,
      template: {
        name: 'n',
        language: { code: 'en' },
        components: [{ type: 'body' as const, parameters: [{ type: 'text' as const, text: 'a' }] }],
      },
    };
    const result = validateMessage(input);
    if (!result.valid || result.message.type !== 'template') throw new Error('expected a valid template');
    input.template.components[0]!.parameters[0]!.text = 'changed';
    expect(result.message.template.components?.[0]?.parameters[0]).toEqual({ type: 'text', text: 'a' });
  });
});
