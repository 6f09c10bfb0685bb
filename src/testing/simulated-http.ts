/**
 * A request and its answer as the simulators see them: the parts of an HTTP exchange they read and write,
 * whatever carries it (msw's handlers, the sandbox's server).
 */

export interface SimulatedRequest {
  authorization: string | null;
  query: URLSearchParams;
  body: string;
  /**
   * The request's `Content-Type` (`null` when it has none). A send must say `application/json`, or it gets `400`;
   * left out (`undefined`), it is not checked.
   */
  contentType?: string | null | undefined;
}

export interface SimulatedResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialisable, or raw bytes for media. */
  body: unknown;
}
