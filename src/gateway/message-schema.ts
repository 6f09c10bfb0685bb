import { z } from 'zod';

/**
 * Outbound message schemas: every rule and limit of the gateway spec's "Outbound message request" tables.
 * Objects are loose on purpose: a field the spec does not list (a reply `context`, an interactive `header`)
 * is sent as given rather than silently stripped.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), the unit the gateway's JSON stack counts in.
 */

/** Digits only, country code first, no leading zero, 8 to 15 digits in all (E.164 without the `+`). */
const RECIPIENT = /^[1-9]\d{7,14}$/;

export const recipientSchema = z.string({ error: 'must be a string of digits' }).regex(RECIPIENT, {
  error:
    "must be the recipient's number with country code, digits only: no '+', spaces or dashes " +
    "(e.g. 998901234567). normalizeRecipient('+998 90 123-45-67') converts a formatted number.",
});

const httpUrl = z
  .string({ error: 'must be a string' })
  .refine((v) => /^https?:\/\/[^\s/$.?#][^\s]*$/i.test(v), { error: 'must be a public http(s) URL' });

const nonEmpty = (what: string) => z.string({ error: `${what} must be a string` }).min(1, `${what} is empty`);

const maxLen = (what: string, max: number) =>
  nonEmpty(what).max(max, {
    error: (i) => `${what} is ${String((i.input as string).length)} characters; the maximum is ${max}`,
  });

export const outboundTextMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('text'),
  text: z.looseObject({
    body: maxLen('text.body', 4096),
    preview_url: z.boolean().optional(),
  }),
});

export const outboundImageMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('image'),
  image: z.looseObject({ link: httpUrl, caption: z.string().optional() }),
});

export const outboundAudioMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('audio'),
  audio: z.looseObject({ link: httpUrl }),
});

export const outboundDocumentMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('document'),
  document: z.looseObject({
    link: httpUrl,
    caption: z.string().optional(),
    filename: z.string().optional(),
  }),
});

const PARAMETER_TYPES = ['text', 'image', 'document', 'video', 'currency', 'date_time'] as const;

/**
 * A template variable value. The object named after `type` must be present; `text` and `image.link` are
 * typed as the spec states, the other parameter objects pass through as given (the spec does not list
 * their fields).
 */
export const templateParameterSchema = z
  .looseObject({
    type: z.enum(PARAMETER_TYPES),
    text: z.string().optional(),
    image: z.looseObject({ link: httpUrl }).optional(),
    document: z.looseObject({}).optional(),
    video: z.looseObject({}).optional(),
    currency: z.looseObject({}).optional(),
    date_time: z.looseObject({}).optional(),
  })
  .superRefine((p, ctx) => {
    if (p[p.type] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [p.type],
        message: `a '${p.type}' parameter needs its '${p.type}' ${p.type === 'text' ? 'value' : 'object'}`,
      });
    }
  });

const BUTTON_INDEX = ['0', '1', '2'] as const;

export const templateComponentSchema = z
  .looseObject({
    type: z.enum(['header', 'body', 'button']),
    sub_type: z.enum(['url', 'quick_reply']).optional(),
    // Accept 0, 1, 2 as numbers too: the wire wants a string, and nobody should lose a send over quotes.
    index: z
      .union([
        z.enum(BUTTON_INDEX),
        z.literal([0, 1, 2]).transform((n) => String(n) as (typeof BUTTON_INDEX)[number]),
      ])
      .optional(),
    parameters: z.array(templateParameterSchema),
  })
  .superRefine((c, ctx) => {
    for (const key of ['sub_type', 'index'] as const) {
      if (c.type === 'button' && c[key] === undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `a button component needs '${key}'` });
      }
      if (c.type !== 'button' && c[key] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `'${key}' is only for button components` });
      }
    }
  });

export const outboundTemplateMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('template'),
  template: z.looseObject({
    name: nonEmpty('template.name'),
    language: z.looseObject({ code: nonEmpty('template.language.code') }),
    components: z.array(templateComponentSchema).optional(),
  }),
});

const replyButtonSchema = z.looseObject({
  type: z.literal('reply'),
  reply: z.looseObject({ id: maxLen('reply.id', 256), title: maxLen('reply.title', 20) }),
});

/** Run a refinement even when the items have issues (zod skips it by default). */
const ALWAYS = { when: () => true } as unknown as Parameters<z.ZodArray['superRefine']>[1];

/**
 * An array with a count limit that is checked *alongside* its items. zod's own `.min()`/`.max()` on arrays
 * abort before the items are looked at, which would hide item problems until the count is fixed; the
 * contract is every issue at once.
 */
function arrayOf<T extends z.ZodType>(item: T, what: string, min: number, max?: number) {
  return z.array(item).superRefine((value, ctx) => {
    const n = value.length;
    if (n < min) ctx.addIssue({ code: 'custom', message: `${what} needs at least ${min}; got ${n}` });
    if (max !== undefined && n > max)
      ctx.addIssue({ code: 'custom', message: `${what} has ${n}; the maximum is ${max}` });
  }, ALWAYS);
}

const interactiveButtonSchema = z.looseObject({
  type: z.literal('button'),
  body: z.looseObject({ text: nonEmpty('interactive.body.text') }),
  action: z.looseObject({
    buttons: arrayOf(replyButtonSchema, 'interactive.action.buttons', 1, 3).superRefine((value, ctx) => {
      const seen = new Set<unknown>();
      value.forEach((b, i) => {
        const id: unknown = (b as { reply?: { id?: unknown } } | undefined)?.reply?.id;
        if (typeof id !== 'string') return;
        if (seen.has(id)) {
          ctx.addIssue({
            code: 'custom',
            path: [i, 'reply', 'id'],
            message: 'reply.id must be unique among the buttons',
          });
        }
        seen.add(id);
      });
    }, ALWAYS),
  }),
});

const listRowSchema = z.looseObject({
  id: maxLen('row id', 200),
  title: maxLen('row title', 24),
  description: z.string().optional(),
});

const interactiveListSchema = z.looseObject({
  type: z.literal('list'),
  body: z.looseObject({ text: nonEmpty('interactive.body.text') }),
  action: z.looseObject({
    button: maxLen('interactive.action.button', 20),
    sections: arrayOf(
      z.looseObject({ title: z.string(), rows: arrayOf(listRowSchema, "a section's rows", 1) }),
      'interactive.action.sections',
      1,
    ),
  }),
});

export const outboundInteractiveMessageSchema = z.looseObject({
  to: recipientSchema,
  type: z.literal('interactive'),
  interactive: z.discriminatedUnion('type', [interactiveButtonSchema, interactiveListSchema], {
    error: "interactive.type must be 'button' or 'list'",
  }),
});

/** Any outbound message, discriminated by `type`. `messaging_product` is filled by the SDK. */
export const outboundMessageSchema = z.discriminatedUnion(
  'type',
  [
    outboundTextMessageSchema,
    outboundImageMessageSchema,
    outboundAudioMessageSchema,
    outboundDocumentMessageSchema,
    outboundTemplateMessageSchema,
    outboundInteractiveMessageSchema,
  ],
  { error: "type must be one of 'text', 'image', 'audio', 'document', 'template', 'interactive'" },
);

/** What `messages.send` accepts. */
export type OutboundMessage = z.input<typeof outboundMessageSchema>;
/** The message after validation, as it goes on the wire (without `messaging_product`). */
export type ValidatedMessage = z.output<typeof outboundMessageSchema>;
export type OutboundTextMessage = z.input<typeof outboundTextMessageSchema>;
export type OutboundImageMessage = z.input<typeof outboundImageMessageSchema>;
export type OutboundAudioMessage = z.input<typeof outboundAudioMessageSchema>;
export type OutboundDocumentMessage = z.input<typeof outboundDocumentMessageSchema>;
export type OutboundTemplateMessage = z.input<typeof outboundTemplateMessageSchema>;
export type OutboundInteractiveMessage = z.input<typeof outboundInteractiveMessageSchema>;
export type TemplateComponent = z.input<typeof templateComponentSchema>;
export type TemplateParameter = z.input<typeof templateParameterSchema>;

/** The gateway's send success body. Loose: fields the spec does not list are kept in `raw`. */
export const sendResponseSchema = z.looseObject({
  isSuccess: z.literal(true),
  data: z.looseObject({
    messaging_product: z.string().optional(),
    // Lenient on purpose: the send succeeded; a contact missing a field must not hide the message id.
    contacts: z
      .array(z.looseObject({ input: z.string().optional(), wa_id: z.string().optional() }))
      .catch([])
      .default([]),
    messages: z.array(z.looseObject({ id: z.string().min(1) })).min(1),
  }),
});

export type SendResponse = z.output<typeof sendResponseSchema>;
export type SendContact = SendResponse['data']['contacts'][number];
