import { InvalidResponseError } from './errors.js';

/** The answer a call got, as an error reports it. */
export interface AnswerSeen {
  /** The answer's real status: a create may be answered 201 or 202, not only 200. */
  status: number;
  method: string;
  path: string;
  /** A redacted excerpt of the body, when it is safe to keep one; empty by default. */
  bodyExcerpt?: string;
}

/**
 * A 2xx without the body the call needs: the server accepted the request, so what it asked for may have
 * happened (`mayHaveBeenSent`). The message starts with the request and the status it was really answered with;
 * `problem` says what was missing and what to do, e.g. `'but its body carries no message id'`.
 */
export function unexpectedAnswer(answer: AnswerSeen, problem: string): InvalidResponseError {
  const { status, method, path } = answer;
  return new InvalidResponseError(`${method} ${path} answered ${status} ${problem}`, {
    status,
    bodyExcerpt: answer.bodyExcerpt ?? '',
    request: { method, path },
  });
}
