import { expect } from 'vitest';
import { TemplateSendError } from '../../src/index.js';

/** The `TemplateSendError` a call rejects with (fails the test when it resolves or throws anything else). */
export async function templateSendRefusal(run: () => Promise<unknown>): Promise<TemplateSendError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TemplateSendError);
  return error as TemplateSendError;
}
