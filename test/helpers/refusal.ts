import { expect } from 'vitest';
import { MessageValidationError, TemplateSendError } from '../../src/index.js';

/** The error of class `cls` a call rejects with (the test fails when it resolves or throws anything else). */
export async function rejectionOf<E extends Error>(
  cls: abstract new (...args: never[]) => E,
  run: () => Promise<unknown>,
): Promise<E> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(cls);
  return error as E;
}

/** The `MessageValidationError` a call refuses with. */
export const refusal = (run: () => Promise<unknown>) => rejectionOf(MessageValidationError, run);

/** The `TemplateSendError` a template send is refused with. */
export const templateSendRefusal = (run: () => Promise<unknown>) => rejectionOf(TemplateSendError, run);
