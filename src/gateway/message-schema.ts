import { z } from 'zod';

/**
 * Outbound message schemas: every rule and limit of the gateway spec's "Outbound message request" tables.
 * Objects are CLOSED: a key the spec does not list is a compile error on a literal and a `MessageValidationError`
 * at run time that names it (with a "did you mean"), because a misspelt or misplaced key (`previewUrl`, an
 * `isFake` meant as a send option) would otherwise go out silently ignored, or worse, as a real send. A field the
 * spec does not show is sent on purpose through the send option `extraFields` (or `validate: false`).
 *
 * Lengths are counted in Unicode code points (`charCount`, through `limitedText`): the unit of every character
 * limit of both specs, in every checker of the SDK (see `core/text.ts` for the evidence).
 *
 * Every issue carries the SDK's rule id (`MessageIssue.rule`): named here in `params.rule`, or derived from the
 * field and the kind of problem by `toIssue`.
 */
import { isHttpUrl } from '../core/text.js';
import {
  atLeastItems,
  atMostItems,
  BUTTON_INDEX,
  buttonHas,
  buttonIndexText,
  MAX_RECIPIENT_DIGITS,
  onArrays,
  onlyButtonsHave,
  parameterHasValue,
  recipientDigitsOnly,
  recipientGiven,
  recipientHasCountryCode,
  recipientUnformatted,
  recipientWithinE164,
  uniqueReplyIds,
} from './message-rules.js';
import { limitedText, stringOr } from './text-schema.js';
import { unknownKeysError } from './unknown-keys.js';

/** What the recipient's messages suggest to write instead of a formatted number. */
const NORMALISE = "normalizeRecipient('+998 90 123-45-67') gives '998901234567'";

/**
 * The recipient as the spec gives it: digits only, country code first (so no leading zero), and what E.164 rules
 * out: more than 15 digits. No lower bound: the spec has none, and real numbers with their country code are as
 * short as 7 digits (`2904567`, Saint Helena). Each rule has its own message and rule id. The number itself is
 * never quoted (it is personal data and errors end up in logs).
 */
export const recipientSchema = stringOr(
  'must be a string of digits',
  "is required: the customer's number with its country code, digits only (e.g. 998901234567)",
)
  .refine(
    recipientGiven,
    digitsRule(
      'to.required',
      'is empty: give the number with its country code, digits only (e.g. 998901234567)',
    ),
  )
  .refine(
    recipientUnformatted,
    digitsRule(
      'to.digits_only',
      `must be digits only, country code first: no '+', spaces, dashes or brackets (${NORMALISE})`,
    ),
  )
  .refine(
    recipientDigitsOnly,
    digitsRule('to.digits_only', 'must be digits only, country code first (e.g. 998901234567)'),
  )
  .refine(
    recipientHasCountryCode,
    digitsRule(
      'to.country_code',
      `must start with the country code, not 0 (${NORMALISE}; '00998...' gives '998...')`,
    ),
  )
  .refine(
    recipientWithinE164,
    digitsRule(
      'to.max_length',
      (to) =>
        `has ${to.length} digits; E.164 numbers have at most ${MAX_RECIPIENT_DIGITS}, country code included`,
    ),
  );

/**
 * One rule of the recipient: its id and message, and `abort` so that only the first broken rule is reported (a
 * number with a '+' is not also told it has a non-digit). Predicates (`.refine`), not one `.superRefine`, because
 * zod compiles a predicate into the hot send path's code and runs a `.superRefine` through a context object on
 * every check: 3 µs of a loopback send (docs/benchmarks.md).
 */
function digitsRule(rule: string, message: string | ((to: string) => string)) {
  return {
    abort: true,
    params: { rule },
    error: (issue: { input?: unknown }) =>
      typeof message === 'string' ? message : message(String(issue.input ?? '')),
  };
}

const httpUrl = stringOr('must be a string', 'is required: a public http(s) URL').refine(isHttpUrl, {
  error: 'must be a public http(s) URL',
});

/** A closed object: unknown keys are issues that name the key and suggest the field meant. */
const closed = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: unknownKeysError(Object.keys(shape)) });

const nonEmpty = (what: string) => limitedText(what, { min: 1 });

const maxLen = (what: string, max: number) => limitedText(what, { min: 1, max });

export const outboundTextMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('text'),
  text: closed({
    body: maxLen('text.body', 4096),
    preview_url: z.boolean().optional(),
  }),
});

export const outboundImageMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('image'),
  image: closed({ link: httpUrl, caption: z.string().optional() }),
});

export const outboundAudioMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('audio'),
  audio: closed({ link: httpUrl }),
});

export const outboundDocumentMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('document'),
  document: closed({
    link: httpUrl,
    caption: z.string().optional(),
    filename: z.string().optional(),
  }),
});

const PARAMETER_TYPES = ['text', 'image', 'document', 'video', 'currency', 'date_time'] as const;

/**
 * A template variable value. The object named after `type` must be present; `text` and `image.link` are
 * typed as the spec states. The `document`, `video`, `currency` and `date_time` objects stay open: the spec
 * names them but not their fields, so whatever they hold is sent as given. One predicate per type, each reporting at
 * the missing key (`.refine`, which zod compiles into the hot send path; see `templateComponentSchema`).
 */
export const templateParameterSchema = PARAMETER_TYPES.reduce(
  (schema, type) =>
    schema.refine(parameterHasValue(type), {
      path: [type],
      params: { rule: 'template.components.parameters.value.required' },
      error: `a '${type}' parameter needs its '${type}' ${type === 'text' ? 'value' : 'object'}`,
    }),
  closed({
    type: z.enum(PARAMETER_TYPES),
    text: z.string().optional(),
    image: closed({ link: httpUrl }).optional(),
    document: z.looseObject({}).optional(),
    video: z.looseObject({}).optional(),
    currency: z.looseObject({}).optional(),
    date_time: z.looseObject({}).optional(),
  }),
);

const componentFields = closed({
  type: z.enum(['header', 'body', 'button']),
  sub_type: z.enum(['url', 'quick_reply']).optional(),
  // Accept 0, 1, 2 as numbers too: the wire wants a string, and nobody should lose a send over quotes.
  index: z
    .union([z.enum(BUTTON_INDEX), z.literal([0, 1, 2]).transform(buttonIndexText)], {
      // A template may have more buttons (the public API takes 10), but the gateway's send names only these.
      error: `must be the button's position: ${BUTTON_INDEX.map((i) => `'${i}'`).join(', ')} (or the number); the gateway's send takes values for the first three buttons only`,
    })
    .optional(),
  parameters: z.array(templateParameterSchema),
});

/**
 * `sub_type` and `index` are required on a button component and not allowed on another, each its own issue at its
 * own key. Predicates (`.refine`), one per rule, like every rule of a template message: zod compiles them into the
 * hot send path, where a `.superRefine` costs a context object per check (docs/benchmarks.md).
 */
export const templateComponentSchema = (['sub_type', 'index'] as const).reduce(
  (schema, key) =>
    schema
      .refine(buttonHas(key), {
        path: [key],
        params: { rule: `template.components.${key}.required` },
        error: `a button component needs '${key}'`,
      })
      .refine(onlyButtonsHave(key), {
        path: [key],
        params: { rule: `template.components.${key}.not_allowed` },
        error: `'${key}' is only for button components`,
      }),
  componentFields,
);

export const outboundTemplateMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('template'),
  template: closed({
    name: nonEmpty('template.name'),
    language: z.strictObject(
      { code: nonEmpty('template.language.code') },
      {
        // A bare code is the common slip (other SDKs take one): say what to write instead.
        error: (issue) =>
          issue.code === 'invalid_type' && typeof issue.input === 'string'
            ? `template.language is an object: did you mean language: { code: ${JSON.stringify(issue.input.slice(0, 20))} }?`
            : unknownKeysError(['code'])(issue),
      },
    ),
    components: z.array(templateComponentSchema).optional(),
  }),
});

const replyButtonSchema = closed({
  type: z.literal('reply'),
  reply: closed({
    id: maxLen('reply.id', 256),
    title: maxLen('reply.title', 20),
  }),
});

/**
 * An array with a count limit that is checked *alongside* its items. zod's own `.min()`/`.max()` on arrays
 * abort before the items are looked at, which would hide item problems until the count is fixed; the
 * contract is every issue at once.
 */
function arrayOf<T extends z.ZodType>(item: T, what: string, min: number, max?: number, rule = what) {
  const count = (issue: { input?: unknown }) => (issue.input as readonly unknown[]).length;
  const atLeast = z.array(item).refine(atLeastItems(min), {
    when: onArrays,
    params: { rule: `${rule}.min_items` },
    error: (issue) => `${what} needs at least ${min}; got ${count(issue)}`,
  });
  if (max === undefined) return atLeast;
  return atLeast.refine(atMostItems(max), {
    when: onArrays,
    params: { rule: `${rule}.max_items` },
    error: (issue) => `${what} has ${count(issue)}; the maximum is ${max}`,
  });
}

/** `rule` (a zod-free check, which the generated checker runs too) as a check of an array, run as `arrayOf`'s. */
function arrayCheck(rule: (payload: z.core.ParsePayload<unknown[]>) => void): z.core.$ZodCheck<unknown[]> {
  const check = new z.core.$ZodCheck({ check: 'custom', when: onArrays });
  check._zod.check = rule;
  return check;
}

const interactiveButtonSchema = closed({
  type: z.literal('button'),
  body: closed({ text: nonEmpty('interactive.body.text') }),
  action: closed({
    buttons: arrayOf(replyButtonSchema, 'interactive.action.buttons', 1, 3).check(arrayCheck(uniqueReplyIds)),
  }),
});

const listRowSchema = closed({
  id: maxLen('row id', 200),
  title: maxLen('row title', 24),
  description: z.string().optional(),
});

const interactiveListSchema = closed({
  type: z.literal('list'),
  body: closed({ text: nonEmpty('interactive.body.text') }),
  action: closed({
    button: maxLen('interactive.action.button', 20),
    sections: arrayOf(
      closed({
        title: z.string(),
        rows: arrayOf(listRowSchema, "a section's rows", 1, undefined, 'interactive.action.sections.rows'),
      }),
      'interactive.action.sections',
      1,
    ),
  }),
});

export const outboundInteractiveMessageSchema = closed({
  to: recipientSchema,
  type: z.literal('interactive'),
  interactive: z.discriminatedUnion('type', [interactiveButtonSchema, interactiveListSchema], {
    error: (issue) =>
      issue.input === undefined
        ? "interactive is required: an object whose type is 'button' or 'list'"
        : typeof issue.input !== 'object' || issue.input === null || Array.isArray(issue.input)
          ? "interactive must be an object whose type is 'button' or 'list'"
          : "interactive.type must be 'button' or 'list'",
  }),
});

/**
 * Schema of each outbound message type, keyed by `type`: the one list of the types `messages.send` takes. The
 * union below and its error for an unknown `type` are derived from it; a type added here needs no other edit in
 * this file (test/gateway/message-types.test.ts checks the keys against the schemas and `OutboundMessage`).
 */
const outboundMessageSchemas = {
  text: outboundTextMessageSchema,
  image: outboundImageMessageSchema,
  audio: outboundAudioMessageSchema,
  document: outboundDocumentMessageSchema,
  template: outboundTemplateMessageSchema,
  interactive: outboundInteractiveMessageSchema,
} as const;

type OutboundMessageSchemas = typeof outboundMessageSchemas;
/** A message type `messages.send` takes. */
export type OutboundMessageType = keyof OutboundMessageSchemas;
/** The message types `messages.send` takes, in the table's order. */
export const OUTBOUND_MESSAGE_TYPES = Object.keys(outboundMessageSchemas) as OutboundMessageType[];

/** Any outbound message, discriminated by `type`. `messaging_product` is filled by the SDK. */
export const outboundMessageSchema = z.discriminatedUnion(
  'type',
  Object.values(outboundMessageSchemas) as [
    OutboundMessageSchemas[OutboundMessageType],
    ...OutboundMessageSchemas[OutboundMessageType][],
  ],
  { error: `type must be one of ${OUTBOUND_MESSAGE_TYPES.map((t) => `'${t}'`).join(', ')}` },
);

/** What `messages.send` accepts: one closed type per message type (the union of the schemas' inputs). */
export type OutboundMessage =
  | OutboundTextMessage
  | OutboundImageMessage
  | OutboundAudioMessage
  | OutboundDocumentMessage
  | OutboundTemplateMessage
  | OutboundInteractiveMessage;
/** The message after validation, as it goes on the wire (without `messaging_product`). */
export type ValidatedMessage = z.output<typeof outboundMessageSchema>;
export interface OutboundTextMessage extends z.input<typeof outboundTextMessageSchema> {}
export interface OutboundImageMessage extends z.input<typeof outboundImageMessageSchema> {}
export interface OutboundAudioMessage extends z.input<typeof outboundAudioMessageSchema> {}
export interface OutboundDocumentMessage extends z.input<typeof outboundDocumentMessageSchema> {}
export interface OutboundTemplateMessage extends z.input<typeof outboundTemplateMessageSchema> {}
export interface OutboundInteractiveMessage extends z.input<typeof outboundInteractiveMessageSchema> {}
export type TemplateComponent = z.input<typeof templateComponentSchema>;
export type TemplateParameter = z.input<typeof templateParameterSchema>;

/** The gateway's send success body. Loose: fields the spec does not list are kept in `raw`. */
export const sendResponseSchema = z.looseObject({
  isSuccess: z.literal(true),
  data: z.looseObject({
    messaging_product: z.string().optional(),
    // Lenient on purpose: the send succeeded; a contact missing a field must not hide the message id. A new
    // array each time: `.catch([])` hands every malformed answer the same one, which a caller could push into.
    contacts: z
      .array(z.looseObject({ input: z.string().optional(), wa_id: z.string().optional() }))
      .catch(() => [])
      .default([]),
    messages: z.array(z.looseObject({ id: z.string().min(1) })).min(1),
  }),
});

export type SendResponse = z.output<typeof sendResponseSchema>;
export type SendContact = SendResponse['data']['contacts'][number];
