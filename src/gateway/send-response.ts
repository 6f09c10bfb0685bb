import { passed } from '../core/checker-runtime.js';
import { checkSendResponse } from './checkers.generated.js';
import type { SendContact } from './message-schema.js';

/**
 * The message id and contacts of a send's answer, or `undefined` when it carries no message id. The schema is the
 * one reading of the answer, its leniencies (a contact missing a field) included, through the checker generated
 * from it (`checkSendResponse`): a plain function, no zod on the way (docs/benchmarks.md, "The send path").
 */
export function readSendResponse(data: unknown): { messageId: string; contacts: SendContact[] } | undefined {
  const parsed = passed(checkSendResponse, data);
  return parsed && { messageId: parsed.data.messages[0]!.id, contacts: parsed.data.contacts };
}
