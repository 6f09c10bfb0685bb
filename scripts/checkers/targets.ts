/**
 * What is generated, from which schemas: each file, its roots and the zod-free modules whose exported functions
 * (predicates, transforms) the schemas call. Shared by `npm run generate` and test/generated/fresh.test.ts.
 */
import { type FunctionRef, generate, type Schema } from './generator.js';

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  text: string;
}

/** Every exported function of the given modules, by identity, named as the generated file imports it. */
async function functionsOf(modules: Record<string, string>): Promise<Map<unknown, FunctionRef>> {
  const map = new Map<unknown, FunctionRef>();
  for (const [specifier, from] of Object.entries(modules)) {
    const mod = (await import(from)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(mod)) {
      if (typeof value === 'function') map.set(value, { module: specifier, name });
    }
  }
  return map;
}

const src = new URL('../../src/', import.meta.url).href;
const s = (x: unknown) => x as Schema;

async function webhooks(): Promise<GeneratedFile> {
  const schemas = await import(`${src}webhooks/schemas.js`);
  const functions = await functionsOf({ './wire-rules.js': `${src}webhooks/wire-rules.js` });
  /**
   * A checker `name` of `schema`, typed as the schema's output type `type` (from `schemas.ts`); `eager`: compiled
   * with the module, as the checkers of what nearly every delivery holds are (the envelope, its metadata and
   * contact, a status, a text message), so a cold function's first delivery does not compile them; the rarer
   * kinds compile on their first use (docs/benchmarks.md, "The second pass", first parse).
   */
  const root = (name: string, schema: unknown, type: string, eager = false) => ({
    name,
    schema: s(schema),
    type: { name: type, module: './schemas.js' },
    eager,
  });
  const text = generate({
    what: 'The webhook envelope, its changes and every item, as parseWebhook checks and shapes them.',
    // Every input is `JSON.parse`'s tree or `decodeBody`'s plain copy of the caller's object. Nothing may change an
    // object a predicate returned as received: `withReceivedRaw` writes into an unknown interactive kind's wrapper,
    // which a transform makes new (so its message has no predicate).
    identity: true,
    runtime: '../core/checker-runtime.js',
    functions,
    roots: [
      root('checkEnvelope', schemas.webhookEnvelopeSchema, 'WebhookEnvelope', true),
      root('checkMetadata', schemas.metadataSchema, 'WebhookMetadata', true),
      root('checkContact', schemas.contactSchema, 'WebhookContact', true),
      root('checkStatus', schemas.statusSchema, 'WebhookStatus', true),
      root('checkTemplateStatusValue', schemas.templateStatusValueSchema, 'TemplateStatusValue'),
      root('checkAccountUpdateValue', schemas.accountUpdateValueSchema, 'AccountUpdateValue'),
    ],
    tables: [
      {
        name: 'messageCheckers',
        doc: 'The checker of each documented incoming message type, keyed as `messageSchemas` is.',
        entries: schemas.messageSchemas as Record<string, Schema>,
        eager: ['text'],
      },
    ],
  });
  return { path: 'src/webhooks/checkers.generated.ts', text };
}

/**
 * A file of the Node-only send path's checkers (classic zod): each root `[name, schema, its output type]`, the type
 * from `types` (relative to the file). They give the verdict and the output; an input they refuse is parsed by the
 * schema for its issues (`explain: 'schema'`), so its messages stay the schema's closures.
 */
function explainedBySchema(
  path: string,
  what: string,
  functions: ReadonlyMap<unknown, FunctionRef>,
  types: string,
  roots: [string, unknown, string][],
): GeneratedFile {
  const text = generate({
    what,
    runtime: '../core/checker-runtime.js',
    functions,
    explain: 'schema',
    roots: roots.map(([name, schema, type]) => ({
      name,
      schema: s(schema),
      type: { name: type, module: types },
    })),
  });
  return { path, text };
}

/** The outbound message and the send answer. */
async function gateway(): Promise<GeneratedFile> {
  const schemas = await import(`${src}gateway/message-schema.js`);
  const functions = await functionsOf({
    './message-rules.js': `${src}gateway/message-rules.js`,
    '../core/text.js': `${src}core/text.js`,
  });
  return explainedBySchema(
    'src/gateway/checkers.generated.ts',
    'The outbound message and the send answer, as messages.send checks and reads them.',
    functions,
    './message-schema.js',
    [
      ['checkOutboundMessage', schemas.outboundMessageSchema, 'ValidatedMessage'],
      ['checkSendResponse', schemas.sendResponseSchema, 'SendResponse'],
    ],
  );
}

/** The message stream's record, and what its light check reads of one. */
async function platformStream(): Promise<GeneratedFile> {
  const schemas = await import(`${src}platform/stream.schema.js`);
  return explainedBySchema(
    'src/platform/checkers.generated.ts',
    "The message stream's record, as messages.stream checks it.",
    new Map(),
    './stream.schema.js',
    [
      ['checkStreamMessage', schemas.streamMessageSchema, 'StreamMessage'],
      ['checkStreamRecordKey', schemas.streamRecordKeySchema, 'StreamRecordKey'],
    ],
  );
}

/** A shape (`templates/rules/shape.ts`) as code: plain objects and Maps, in the schema's key order. */
function shapeCode(shape: unknown, indent = ''): string {
  const s = shape as {
    kind: string;
    options?: string[];
    item?: unknown;
    fields?: Map<string, { shape: unknown; required: boolean }>;
    order?: Map<string, number>;
  };
  const inner = `${indent}  `;
  switch (s.kind) {
    case 'array':
      return `{ kind: 'array', item: ${shapeCode(s.item, indent)} }`;
    case 'object': {
      const fields = [...s.fields!].map(
        ([k, f]) =>
          `${inner}  [${JSON.stringify(k)}, { shape: ${shapeCode(f.shape, `${inner}  `)}, required: ${f.required} }],`,
      );
      const order = [...s.order!].map(([k, n]) => `[${JSON.stringify(k)}, ${n}]`).join(', ');
      return `{\n${inner}kind: 'object',\n${inner}fields: new Map<string, { shape: Shape; required: boolean }>([\n${fields.join('\n')}\n${inner}]),\n${inner}order: new Map<string, number>([${order}]),\n${indent}}`;
    }
    default:
      return s.options
        ? `{ kind: '${s.kind}', options: ${JSON.stringify(s.options)} }`
        : `{ kind: '${s.kind}' }`;
  }
}

async function templateShape(): Promise<GeneratedFile> {
  const { shapeOf } = await import(`${src}templates/rules/shape.js`);
  const { TemplateCreateRequestSchema } = await import(`${src}templates/schema.js`);
  const text = [
    '// GENERATED by `npm run generate` (scripts/generate-checkers.ts) from the zod schemas: do not edit.',
    '// The structure of the template create request (`shapeOf(TemplateCreateRequestSchema)`), which validateTemplate',
    '// reads input by; test/generated/fresh.test.ts fails when this file is stale.',
    "import type { Shape } from './rules/shape.js';",
    '',
    `export const TEMPLATE_SHAPE: Shape = ${shapeCode(shapeOf(TemplateCreateRequestSchema))};`,
    '',
  ].join('\n');
  return { path: 'src/templates/shape.generated.ts', text };
}

/** Every generated file, as the schemas generate it now. */
export async function generatedFiles(): Promise<GeneratedFile[]> {
  return [await webhooks(), await templateShape(), await gateway(), await platformStream()];
}
