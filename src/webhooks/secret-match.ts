/**
 * Matching a received credential against the configured secrets: the secret option as a list, and a comparison
 * whose time says nothing about how much matched. Shared by the Authorization check and the upstream signature.
 */

/** A secret option (one secret, or several during a rotation) as a list. */
export function secretList(secret: string | readonly string[]): readonly string[] {
  return typeof secret === 'string' ? [secret] : Array.isArray(secret) ? secret : [];
}

/**
 * XOR-accumulating comparison of two byte arrays. Runs over the full length of `expected` whatever the content of
 * `actual`, so the time taken says nothing about how many leading bytes matched.
 */
export function bytesEqual(actual: Uint8Array, expected: Uint8Array): boolean {
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (actual[i] ?? 0) ^ (expected[i] ?? 0);
  return diff === 0;
}

/**
 * Constant-time equality of two strings, code unit by code unit: the same answer as comparing their UTF-8 bytes
 * (stricter for lone surrogates, which UTF-8 encoding would turn into the same replacement character), without
 * encoding either on every delivery (a tenth of a small delivery's verify+parse, docs/benchmarks.md).
 */
export function textEqual(actual: string, expected: string): boolean {
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (actual.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return diff === 0;
}
