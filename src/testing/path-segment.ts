/**
 * An id in a simulated route's path (`/v1/wa/media/{id}`, `/wa/{app_id}/templates`), decoded, and the answer when it
 * cannot be: one rule for the sandbox's routes and the msw handlers, so both answer a malformed escape alike.
 */

/** A path segment decoded, or `undefined` when a `%` escape in it is malformed (`decodeURIComponent` throws). */
export function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The answer to an id in the path with a malformed `%` escape (`/v1/wa/media/%E0`): it names nothing, so it is a
 * malformed request, refused with 400 before any other check, as an HTTP framework refuses a path it cannot
 * decode. Each in its service's envelope, with the code that service has for a malformed request: the public
 * API's `REQ_001`; the gateway's spec shows none, so the sandbox's `BAD_REQUEST` (as for a missing
 * `phone_number_id`).
 */
export const malformedPath = {
  media: {
    isSuccess: false,
    errors: {
      code: 'BAD_REQUEST',
      group: 'BAD_REQUEST',
      description: 'The media id in the path has a malformed percent-escape.',
    },
  },
  template: {
    isSuccess: false,
    errors: {
      code: 'REQ_001',
      group: 'VALIDATION',
      description: 'Malformed request: the app id in the path has a malformed percent-escape.',
    },
  },
} as const;
