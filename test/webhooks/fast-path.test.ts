/**
 * The webhook fast path (src/webhooks/fast-path.ts): its key lists are the schemas' shapes, it answers for the
 * common deliveries (else nothing is faster), and `parseWebhook` then runs no zod schema on them. Whether its
 * answers equal zod's is test/fuzz/webhook-fast-path.test.ts's job.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  FAST_PATH_SHAPES,
  fastContact,
  fastMetadata,
  fastStatus,
  fastTextMessage,
  NULL_SEARCH_BOUND,
} from '../../src/webhooks/fast-path.js';
import {
  contact,
  entry,
  envelope,
  FIXTURE_METADATA,
  messageEnvelope,
  messagesChange,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../../src/webhooks/fixtures.js';
import { parseWebhook } from '../../src/webhooks/index.js';
import { parseWebhookWith } from '../../src/webhooks/parse.js';
import {
  contactSchema,
  metadataSchema,
  statusErrorSchema,
  statusSchema,
  textMessageSchema,
} from '../../src/webhooks/schemas.js';

interface ZodInternals {
  _zod: {
    optin?: string;
    def: {
      type: string;
      shape?: Record<string, ZodInternals>;
      catchall?: ZodInternals;
      innerType?: ZodInternals;
    };
  };
}

/** A schema's object shape, through one `optional` if there is one. */
function objectOf(schema: unknown): ZodInternals['_zod']['def'] {
  let def = (schema as ZodInternals)._zod.def;
  if (def.type === 'optional') def = def.innerType!._zod.def;
  expect(def.type).toBe('object');
  return def;
}

/** The shape's keys in order, each marked `?` when optional, and whether other keys pass through (loose). */
function describeShape(schema: unknown): { keys: string[]; loose: boolean } {
  const def = objectOf(schema);
  return {
    keys: Object.entries(def.shape!).map(([k, s]) => (s._zod.optin === 'optional' ? `${k}?` : k)),
    loose: def.catchall?._zod.def.type === 'unknown',
  };
}

const shapeOf = (schema: unknown) => objectOf(schema).shape!;

describe('the fast path twins the schemas it stands in for', () => {
  it.each([
    ['metadata', metadataSchema, FAST_PATH_SHAPES.metadata, []],
    ['contact', contactSchema, FAST_PATH_SHAPES.contact, []],
    ['profile', shapeOf(contactSchema)['profile'], FAST_PATH_SHAPES.profile, []],
    ['text', textMessageSchema, FAST_PATH_SHAPES.text, ['context']],
    ['context', shapeOf(textMessageSchema)['context'], FAST_PATH_SHAPES.context, ['from', 'id']],
    ['textBody', shapeOf(textMessageSchema)['text'], FAST_PATH_SHAPES.textBody, []],
    ['status', statusSchema, FAST_PATH_SHAPES.status, ['conversation', 'pricing', 'errors']],
    ['conversation', shapeOf(statusSchema)['conversation'], FAST_PATH_SHAPES.conversation, ['origin']],
    ['origin', shapeOf(shapeOf(statusSchema)['conversation'])['origin'], FAST_PATH_SHAPES.origin, []],
    ['pricing', shapeOf(statusSchema)['pricing'], FAST_PATH_SHAPES.pricing, []],
    ['statusError', statusErrorSchema, FAST_PATH_SHAPES.statusError, []],
    ['errorData', shapeOf(statusErrorSchema)['error_data'], FAST_PATH_SHAPES.errorData, []],
  ] as const)(
    '%s: the same keys in the same order, the same optional ones, loose',
    (_, schema, keys, optional) => {
      // A key added to a schema, reordered or made optional must be taught to its twin (fast-path.ts) as well.
      expect(describeShape(schema)).toEqual({
        keys: [...keys].map((k) => ((optional as readonly string[]).includes(k) ? `${k}?` : k)),
        loose: true,
      });
    },
  );
});

describe('the fast path answers for the common deliveries', () => {
  const common: [
    string,
    (input: unknown) => unknown,
    { safeParse(i: unknown): { data?: unknown } },
    unknown,
  ][] = [
    ['metadata', fastMetadata, metadataSchema, { ...FIXTURE_METADATA }],
    ['contact', fastContact, contactSchema, contact()],
    ['text message', fastTextMessage, textMessageSchema, textMessage()],
    [
      'text reply with context',
      fastTextMessage,
      textMessageSchema,
      textMessage({ context: { from: '15550009999', id: 'wamid.ctx' } }),
    ],
    [
      'text with a number timestamp',
      fastTextMessage,
      textMessageSchema,
      textMessage({ timestamp: 1700000000 }),
    ],
    ['sent', fastStatus, statusSchema, statusObject('sent')],
    ['delivered', fastStatus, statusSchema, statusObject('delivered')],
    ['read', fastStatus, statusSchema, statusObject('read')],
    [
      'delivered, conversation without origin, free tier',
      fastStatus,
      statusSchema,
      statusObject('delivered', {
        conversation: { id: 'c1' },
        pricing: { billable: false, pricing_model: 'PMP', category: 'service' },
      }),
    ],
    ['failed, with its errors', fastStatus, statusSchema, statusObject('failed')],
    ['a status value the spec does not list', fastStatus, statusSchema, statusObject('deleted')],
  ];

  it.each(common)('%s', (_, twin, schema, input) => {
    const answer = twin(input);
    expect(answer).toBeDefined();
    expect(answer).toStrictEqual(schema.safeParse(input).data);
    expect(JSON.stringify(answer)).toBe(JSON.stringify(schema.safeParse(input).data));
  });

  it('leaves every shape it does not know to the schema', () => {
    const [error] = statusObject('failed').errors!;
    expect(fastStatus(statusObject('failed', { errors: [{ ...error!, code: 1.5 }] }))).toBeUndefined();
    expect(fastTextMessage({ ...textMessage(), type: 'image' })).toBeUndefined();
    expect(fastTextMessage({ ...textMessage(), context: undefined })).toBeUndefined();
    expect(fastMetadata([])).toBeUndefined();
    // The item twins take items as received: a null anywhere is the schema's (after withoutNulls) to handle.
    expect(fastStatus({ ...statusObject('read'), biz_opaque_callback_data: null })).toBeUndefined();
    expect(fastTextMessage({ ...textMessage(), referral: { source: [null] } })).toBeUndefined();
    expect(fastTextMessage({ ...textMessage(), context: null })).toBeUndefined();
    expect(fastContact(null)).toBeUndefined();
  });
});

describe('the null search of the item twins', () => {
  it('finds a null past its bound of values by declining, and the schema then strips it as before', () => {
    // Wide enough that the values before the null use up the bound, so only giving up keeps the twin honest.
    const wide = Array.from({ length: NULL_SEARCH_BOUND + 5 }, (_, i) => i);
    const message = { ...textMessage(), extra: { big: [...wide, { k: null }] } };
    expect(fastTextMessage(message)).toBeUndefined();
    const body = JSON.stringify(messageEnvelope([message]));
    expect(parseWebhookWith(body, true)).toStrictEqual(parseWebhookWith(body, false));
    const [event] = parseWebhook(body);
    const extra = event?.kind === 'message' && (event.message as { extra?: { big: unknown[] } }).extra;
    expect(extra ? extra.big.at(-1) : undefined).toEqual({});
  });

  it('declines a wide unknown field after looking at its bound of values, not at every value', () => {
    let reads = 0;
    const values = new Proxy(
      Array.from({ length: 100_000 }, () => 1),
      {
        get(target, key, receiver) {
          if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
          return Reflect.get(target, key, receiver);
        },
      },
    );
    expect(fastTextMessage({ ...textMessage(), extra: values })).toBeUndefined();
    expect(reads).toBe(0);
  });
});

describe('parseWebhook runs no zod schema on the common deliveries', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function spies() {
    return [metadataSchema, contactSchema, textMessageSchema, statusSchema].map((s) =>
      vi.spyOn(s, 'safeParse'),
    );
  }

  it('a text message with its contact and metadata, as text and as an object', () => {
    const calls = spies();
    const body = messageEnvelope([textMessage(), textMessage({ context: { id: 'wamid.ctx' } })]);
    expect(parseWebhook(JSON.stringify(body)).map((e) => e.kind)).toEqual(['message', 'message']);
    expect(parseWebhook(body).map((e) => e.kind)).toEqual(['message', 'message']);
    for (const spy of calls) expect(spy).not.toHaveBeenCalled();
  });

  it('an item holding a null goes through its schema, after withoutNulls', () => {
    const [, , , statusSpy] = spies();
    const status = { ...statusObject('read'), biz_opaque_callback_data: null };
    const [event] = parseWebhook(JSON.stringify(statusEnvelope(status as never)));
    expect(statusSpy).toHaveBeenCalledTimes(1);
    expect(event?.kind === 'status' && Object.keys(event.status)).toEqual([
      'id',
      'status',
      'timestamp',
      'recipient_id',
    ]);
  });

  it('a batch of sent, delivered, read and failed statuses; an odd one goes through its schema', () => {
    const [, , , statusSpy] = spies();
    const body = statusEnvelope(['sent', 'delivered', 'read', 'failed'].map((s) => statusObject(s)));
    expect(parseWebhook(JSON.stringify(body)).map((e) => e.kind)).toEqual([
      'status',
      'status',
      'status',
      'status',
    ]);
    expect(statusSpy).not.toHaveBeenCalled();
    const odd = { ...statusObject('read'), conversation: 'c1' };
    const events = parseWebhook(envelope([entry([messagesChange({ statuses: [odd as never] })])]));
    expect(statusSpy).toHaveBeenCalledTimes(1);
    expect(events[0]?.kind).toBe('unknown');
  });
});
