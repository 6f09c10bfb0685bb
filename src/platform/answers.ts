import { z } from 'zod';
import { isRecord } from '../core/error-body.js';
import { type AnswerSeen, unexpectedAnswer } from '../core/errors.js';
import { describeIssues, safeCheck } from '../core/zod.js';

/** The answer of every `/v2/...` operation. */
export const detailResponseSchema = z.object({
  /** The server's confirmation text. */
  detail: z.string(),
});
export interface DetailResponse extends z.infer<typeof detailResponseSchema> {}

/** A 2xx body checked against its documented shape; the error names paths, never values. */
export function parseAnswer<S extends z.ZodType>(schema: S, data: unknown, answer: AnswerSeen): z.output<S> {
  const result = safeCheck(schema, data);
  if (result.ok) return result.data;
  // Paths and expectations only: the body itself may hold customer data.
  const where = describeIssues(result.issues, 5);
  throw unexpectedAnswer(answer, `with a body that does not have the documented shape (${where}).`);
}

/** The operation was accepted whatever its body says, so a missing or odd `detail` is not an error. */
export function detailOf(data: unknown): DetailResponse {
  return { detail: isRecord(data) && typeof data['detail'] === 'string' ? data['detail'] : '' };
}
