/** Generators of outbound messages for the property runs: every shape the spec allows, and mutations of them. */
import fc from 'fast-check';

export const to = fc.stringMatching(/^[1-9]\d{7,14}$/);
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
export const validMessage = fc.oneof(
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
export function mutate(value: unknown, path: number[], replacement: unknown): unknown {
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
