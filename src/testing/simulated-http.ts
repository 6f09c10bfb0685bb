/**
 * A request and its answer as the simulators see them: the parts of an HTTP exchange they read and write,
 * whatever carries it (msw's handlers, the sandbox's server).
 */

export interface SimulatedRequest {
  authorization: string | null;
  query: URLSearchParams;
  body: string;
}

export interface SimulatedResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialisable, or raw bytes for media. */
  body: unknown;
}
