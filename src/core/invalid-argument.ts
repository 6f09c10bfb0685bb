import { MessageValidationError } from './errors.js';

/**
 * The one rule for argument errors, in every client: what a call sends or asks for (a message, a template, an id,
 * a UUID, a date, a query) that fails a check before any request is a `MessageValidationError` with `issues`
 * (path from the argument, a rule id); `ConfigurationError` is only for how a client is built or a call is made
 * (client options, `timeoutMs`, `concurrency`, `chunkSize`, ...). docs/errors-and-retries.md states it.
 *
 * @example
 * throw invalidArgument('conversations.archive', ['uuid'], 'must be a UUID', 'uuid.format');
 */
export function invalidArgument(
  call: string,
  path: (string | number)[],
  message: string,
  rule: string,
): MessageValidationError {
  return new MessageValidationError([{ path, message, code: 'custom', rule }], `${call} argument`);
}
