/** The `interactive` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, optionalString, requiredString } from '../wire.js';
import { wrapUnknownKind } from '../wire-rules.js';

export { INTERACTIVE_TYPES } from '../vocabulary.js';

/** A tap on a reply button the business sent. */
export const buttonReplySchema = z.looseObject({
  type: z.literal('button_reply'),
  button_reply: z.looseObject({
    /** The `reply.id` the business sent with the button. */
    id: requiredString,
    title: requiredString,
  }),
});

/** A row chosen from a list the business sent. */
export const listReplySchema = z.looseObject({
  type: z.literal('list_reply'),
  list_reply: z.looseObject({
    id: requiredString,
    title: requiredString,
    /** Present when the row had one. */
    description: optionalString,
  }),
});

/**
 * An interactive reply of a kind the spec does not list (a form or flow completion, `nfm_reply`; a payment or call
 * permission reply; kinds added later): the same case as an unknown message type, one level down. The message is
 * still an `interactive` message; `originalType` names the kind and `raw` is the `interactive` object as received
 * (its content sits under `raw[originalType]`).
 */
export const unknownInteractiveSchema = z.looseObject({
  type: z.literal('unknown'),
  /** The `interactive.type` the message carried, e.g. `'nfm_reply'`. */
  originalType: requiredString,
  /** The `interactive` object as received. */
  raw: z.looseObject({}),
});

export const interactiveMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('interactive'),
  interactive: z.pipe(
    z.transform(wrapUnknownKind),
    z.discriminatedUnion('type', [buttonReplySchema, listReplySchema, unknownInteractiveSchema]),
  ),
});

export interface InteractiveMessage extends z.output<typeof interactiveMessageSchema> {}
/** An interactive reply of a kind the spec does not list: see `unknownInteractiveSchema`. */
export interface UnknownInteractive extends z.output<typeof unknownInteractiveSchema> {}
