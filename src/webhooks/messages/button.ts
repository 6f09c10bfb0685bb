/**
 * The `button` incoming message: a tap on a quick-reply button of a template the business sent.
 *
 * The gateway spec's table of incoming types does not list it (it lists `interactive` `button_reply`, the tap on a
 * button of an interactive message). The SDK types it because real deliveries of the upstream platform carry it for
 * every template quick-reply tap: without it, a bot that sends a template with quick replies could read the tap only
 * from the `unknown` variant's `raw`.
 */
import * as z from '../../core/zod.js';
import { messageBase, requiredString } from '../wire.js';

export const buttonMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('button'),
  // Both fields are in every real delivery (test/webhooks/corpus/) and in what other SDKs type; `context.id`, when
  // sent, is the wamid of the template message whose button was tapped.
  button: z.looseObject({
    /** The payload the business set on the button when it sent the template: what a bot routes by. */
    payload: requiredString,
    /** The button's label as the customer saw it. */
    text: requiredString,
  }),
});

/**
 * A tap on a template's quick-reply button (not in the gateway spec's table; real deliveries carry it).
 *
 * @example
 * if (event.message.type === 'button') await route(event.message.button.payload, event.message.context?.id);
 */
export interface ButtonMessage extends z.output<typeof buttonMessageSchema> {}
