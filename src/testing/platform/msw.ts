import type { RequestHandler } from 'msw';
import { loadMsw } from '../msw-handlers.js';
import { PlatformSimulator } from './simulator.js';
import type { PlatformHandlersOptions, PlatformState } from './state.js';

/**
 * msw 2 handlers that behave like the conversation platform API, and the `state` they read and change.
 *
 * - `POST /jwt/` checks `users`; a token is accepted for `tokenLifetimeMs` (24 h), then 401 "invalid auth
 *   key"; `state.expireTokens()` forces that now. A missing or malformed header is 401 "invalid Authorization
 *   header".
 * - `GET /stats` serves `channels`; `GET /reports/` validates its enums (400 `{ error }`) and computes the
 *   messages, conversations and feedback sections from the seeded records; `/reports/conversations/` filters
 *   by the relative ranges; `/reports/feedbacks/` refuses a range over one calendar month.
 * - `GET /stream/messages/` answers NDJSON in `created_at` order with the filters, exclusive bounds (to the
 *   microsecond), the one-week limit and the 100,000 cap.
 * - The `/v2` operations and batch send check their bodies and the conversation, record into `state` and
 *   answer `{ detail }` (batch: 200, empty body), with the statuses of the spec's table.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createPlatformHandlers } from 'wa-gateway-sdk/testing';
 * const { handlers, state } = createPlatformHandlers({
 *   platformUrl: 'https://platform.test',
 *   streamUrl: 'https://stream.test',
 *   conversationUuids: [conversationUuid],
 * });
 * const server = setupServer(...handlers);
 * // ... code under test uses new PlatformClient({ platformUrl, streamUrl, username: 'agent@example.com', password: 'secret-password' })
 * expect(state.archived.has(conversationUuid)).toBe(true);
 */
export function createPlatformHandlers(options: PlatformHandlersOptions): {
  handlers: RequestHandler[];
  state: PlatformState;
  simulator: PlatformSimulator;
} {
  const { http } = loadMsw('createPlatformHandlers');
  const simulator = new PlatformSimulator(options);
  const { platform, stream } = simulator.bases;
  const bases = platform === stream ? [platform] : [platform, stream];
  const handlers = bases.map((base) => http.all(`${base}/*`, ({ request }) => simulator.handle(request)));
  return { handlers, state: simulator.state, simulator };
}
