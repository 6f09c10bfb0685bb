/**
 * One send of `POST /v1/wa/message`, as `messages.send` and `sendMany` share it: what the gateway is asked to do
 * (`SendFlags`), how the request travels (`PostRequest`), what the send resolves to (`SendResult`), and the one
 * send that `sendMany` drives (`PostSend`).
 */
import type { WithResponse } from '../core/api-promise.js';
import type { RequestOptions } from '../core/call-options.js';
import type { SendContact } from './message-schema.js';

/**
 * What the gateway is asked to do with a message: the query flags of `POST /v1/wa/message`. They change what
 * is sent, so they are the send's own; `RequestOptions` only change how the request travels.
 */
export interface SendFlags {
  /**
   * Run auth, rate limiting and billing checks but skip the upstream call; a fake wamid comes back and no
   * `delivered` webhook follows. For integration tests against a real gateway.
   */
  isFake?: boolean | undefined;
  /** Route through the upstream marketing-lite route (high-volume promotional template sends). */
  mmlite?: boolean | undefined;
}

/** What `messages.send` resolves to. */
export interface SendResult {
  /** The wamid. Status events carry it in `statuses[].id`; use it to match delivery receipts. */
  messageId: string;
  /** The number as sent (`input`) and as the network normalised it (`wa_id`). */
  contacts: SendContact[];
  /** The whole response body, fields the spec does not list included. */
  raw: unknown;
}

/** How one send of `Messages` travels: the call's options plus what `sendMany` sets. */
export type PostRequest = RequestOptions & {
  retryInFlight?: boolean | undefined;
  onRetryWait?: ((ms: number) => void) | undefined;
};

/**
 * `Messages`' one send, as `sendMany` drives it: `stopSignal` stops it from starting, `onSend` is told when its
 * request goes out (a failure before that was certainly not sent), and `beforeSend` is awaited before each
 * attempt's request, after the rate limiter (a durable queue's ledger write; see `TransportRequest.beforeSend`).
 */
export type PostSend = (
  valid: object,
  flags: SendFlags,
  request: PostRequest,
  stopSignal?: AbortSignal,
  onSend?: () => void,
  beforeSend?: () => Promise<void>,
) => Promise<WithResponse<SendResult>>;
