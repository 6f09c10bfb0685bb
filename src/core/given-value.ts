/**
 * What a bad value was, for an error message: the one wording of every check in the SDK. A number as itself; anything
 * else by its kind (`givenKind` for a value that may be personal data echoes no number either). A string's content
 * is never echoed (a key pasted into the wrong option would reach the logs, a customer's number is personal data,
 * and a long string would make the message as long), and an object is never
 * turned into a string (a null-prototype object or a throwing `toString` would fail the message itself).
 *
 * @example
 * givenValue('5000'); // 'a string'
 * givenValue([]); // 'an array'
 */
export function givenValue(value: unknown): string {
  const type = typeof value;
  if (type === 'number' || value == null) return String(value);
  if (type === 'string') return (value as string).trim() ? 'a string' : 'an empty string';
  if (type !== 'object') return `a ${type}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch {
    return 'an object'; // a revoked Proxy: even `Array.isArray` throws on it
  }
}

/**
 * `givenValue` for a value that may be personal data, such as a customer's phone number given as a number: a
 * number is not echoed either.
 *
 * @example
 * givenKind(998901234567); // 'a number'
 */
export function givenKind(value: unknown): string {
  return typeof value === 'number' ? 'a number' : givenValue(value);
}
