import { expect } from 'vitest';
import { MessageValidationError } from '../../src/index.js';

/** The `MessageValidationError` a call refuses with (the test fails when it resolves or throws anything else). */
export async function refusal(run: () => Promise<unknown>): Promise<MessageValidationError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MessageValidationError);
  return error as MessageValidationError;
}
