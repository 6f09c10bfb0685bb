import type { z } from 'zod';
import type { ApiPromise } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import { hot } from '../core/compiled.js';
import { ConfigurationError, MessageValidationError, WaGatewayError } from '../core/errors.js';
import { callHook } from '../core/hooks.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { mayHaveBeenSent as sentMaybe } from '../core/retry-policy.js';
import { safeCheck } from '../core/zod.js';
import { optionsOf } from './arguments.js';
import type { DetailResponse, PlatformHttp } from './http.js';
import {
  BATCH_SEND_MAX,
  batchSendAllInputSchema,
  batchSendBodySchema,
  type MessageItem,
  sendMessagesBodySchema,
} from './messages.schema.js';
// The retry table decides "was it sent?" for a failed chunk too.
import { PLATFORM_RETRY_RULES } from './retry-rules.js';
import { type StreamOptions, streamMessages } from './stream.js';
import type { StreamMessage, StreamQuery } from './stream.schema.js';
import { type StreamRangeOptions, type StreamRangeQuery, streamRange } from './stream-range.js';

/** What `batchSend` and `batchSendAll` take: one text and the conversations to send it to. */
export interface BatchSendInput extends z.input<typeof batchSendAllInputSchema> {}

export type BatchChunkResult =
  | { index: number; conversations: string[]; status: 'sent' }
  | {
      index: number;
      conversations: string[];
      status: 'failed';
      error: WaGatewayError;
      /** `true` when the request may have reached the server (cut connection, timeout, 5xx): check first. */
      mayHaveBeenSent: boolean;
    }
  | { index: number; conversations: string[]; status: 'skipped' };

export interface BatchSendAllResult {
  /** One result per chunk, in order. */
  chunks: BatchChunkResult[];
  /** Conversations whose chunk was accepted. */
  sent: string[];
  /** Conversations whose chunk was refused or never reached the server: safe to send again. */
  failed: string[];
  /** Conversations whose chunk may have been delivered (the request failed in flight): check before resending. */
  uncertain: string[];
  /** Conversations of chunks not attempted (after a failure, or after the signal aborted). */
  skipped: string[];
}

export interface BatchSendAllOptions extends RequestOptions {
  /** Conversations per request, 1 to 500. Default 500. */
  chunkSize?: number | undefined;
  /** Go on with the next chunks after one fails. Default `false`: the rest are `skipped`. */
  continueOnError?: boolean | undefined;
  /**
   * Called after each chunk settles and at each retry wait. To resume after a crash, persist `done` and call
   * again with the conversations from `done * chunkSize` on; a chunk that was in flight at the crash may have
   * been delivered (check it, as for `uncertain`).
   */
  onProgress?: ((progress: BatchSendProgress) => void) | undefined;
}

/** `batchSendAll`'s options, every one (see `OptionKeys`). */
const BATCH_SEND_ALL_KEYS = [...REQUEST_KEYS, 'chunkSize', 'continueOnError', 'onProgress'] as const;
const batchSendAllKeys: OptionKeys<BatchSendAllOptions, typeof BATCH_SEND_ALL_KEYS> = BATCH_SEND_ALL_KEYS;

/** Where a `batchSendAll` stands. */
export interface BatchSendProgress {
  /** Chunks settled (sent, failed or skipped), in order: chunks `0 .. done - 1`. */
  done: number;
  /** Chunks in all. */
  total: number;
  /** Conversations sent so far. */
  sent: number;
  /** Chunks failed so far. */
  errors: number;
  /** The retry wait under way in ms, else 0. */
  waitMs: number;
}

/** The message stream and sending into conversations. */
export class PlatformMessages {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Streams message records (`GET {stream_url}/stream/messages/`, NDJSON; `text/event-stream` is read too).
   *
   * - Back pressure: records are decoded as you pull them; the socket is read no faster than you consume.
   * - Cancel with `options.signal` or by leaving the `for await` loop: the connection is closed.
   * - A stream cut mid-record, or silent for longer than `idleTimeoutMs`, yields every complete record, then
   *   throws `StreamInterruptedError` (a `StreamError`) with `recordsDelivered`, `lastCreatedAt` to resume
   *   from, and the transport's `ConnectionError` or `TimeoutError` as `cause`. A line that is not JSON
   *   throws a plain `StreamError` naming the line, never its content.
   * - The range (`created_at__gt` to `__lt`) may span one week and return at most 100,000 messages:
   *   `streamRange` lifts both limits.
   *
   * @example
   * for await (const m of platform.messages.stream({ channel: channelUuid, created_at__gt: since })) {
   *   await save(m);
   * }
   */
  stream(
    query: StreamQuery = {},
    options: StreamOptions = {},
  ): AsyncGenerator<StreamMessage, void, undefined> {
    return streamMessages(this.#http, query, options);
  }

  /**
   * Streams every message from `from` to `to`, however long the range and however many messages it holds.
   *
   * - The range is cut into windows of at most a week (the per-request limit).
   * - Each window is requested with bounds one millisecond wider on each side, because `created_at__gt` and
   *   `__lt` are exclusive: a message whose `created_at` is exactly on a boundary is still fetched. Each
   *   window then keeps only the messages whose `created_at` (to the millisecond) falls inside it, so a
   *   message is yielded by exactly one window: no gaps and no duplicates at window edges.
   * - A request that returns exactly 100,000 messages (the cap) may have been truncated: the window is
   *   continued from the last `created_at` (minus a millisecond, the bound being exclusive), and the messages
   *   of those last two milliseconds already yielded are skipped by `id`. This relies on the stream being in
   *   `created_at` order; if a capped answer was not, a `StreamError` says so rather than silently leaving a
   *   gap (pass a smaller `windowMs`).
   * - Once the first request has answered, a cut, a stall, or a later request failing on the connection or
   *   with a 5xx or 429 throws `StreamInterruptedError`: call again with `from: error.lastCreatedAt`.
   *
   * @example
   * for await (const m of platform.messages.streamRange({ from: '2024-01-01T00:00:00Z', to: new Date() })) {
   *   await save(m);
   * }
   */
  streamRange(
    query: StreamRangeQuery,
    options: StreamRangeOptions = {},
  ): AsyncGenerator<StreamMessage, void, undefined> {
    return streamRange(this.#http, query, options);
  }

  /**
   * Sends items into a conversation (`POST /v2/messages/`). Items are validated first: every problem is
   * listed in one `MessageValidationError` (paths like `['messages', 0, 'data', 'action', 'items', 1]`) and
   * nothing is sent. Not retried once the request may have reached the server.
   *
   * @example
   * await platform.messages.send(conversationUuid, [
   *   { type: 'text', content: 'Your order has shipped.' },
   *   { type: 'document', content: 'Invoice', url: 'https://files.example.com/invoice-1042.pdf' },
   * ]);
   */
  send(
    conversationUuid: string,
    items: readonly MessageItem[],
    options: RequestOptions = {},
  ): ApiPromise<DetailResponse> {
    return this.#http.operation('messages.send', '/v2/messages/', options, () => {
      const result = safeCheck(hot(sendMessagesBodySchema), { uuid: conversationUuid, messages: items });
      if (!result.ok) throw new MessageValidationError(result.issues, 'messages');
      return result.data;
    });
  }

  /**
   * Sends one text to up to 500 conversations (`POST /batch_send_message/`). More than 500, a repeated or
   * malformed UUID, or an empty message throw `MessageValidationError` before any request. The platform
   * answers 200 with an empty body; a 400 (too many conversations, rate limited) is a `BadRequestError`.
   *
   * @example
   * await platform.messages.batchSend({ message: 'We are closed today.', conversations: uuids });
   */
  batchSend(input: BatchSendInput, options: RequestOptions = {}): ApiPromise<void> {
    return this.#http.run(async (json) => {
      refuseNearMisses(options, REQUEST_KEYS, 'messages.batchSend');
      const result = safeCheck(hot(batchSendBodySchema), input);
      if (!result.ok) throw new MessageValidationError(result.issues, 'batch send');
      await json('platform', {
        method: 'POST',
        path: '/batch_send_message/',
        body: { message: result.data.message, conversations: result.data.conversations },
        idempotent: false,
        ...requestOf(options),
      });
    });
  }

  /**
   * Sends one text to any number of conversations, in chunks of 500, one chunk after the other, and reports
   * the outcome of every chunk, so a failure never loses track of which conversations got the message.
   * The whole list is validated before the first request. By default the first failed chunk stops the run
   * (the rest are `skipped`); `continueOnError: true` tries every chunk.
   *
   * @example
   * const r = await platform.messages.batchSendAll({ message: 'Maintenance tonight.', conversations: all });
   * if (r.uncertain.length > 0) alert('check these before resending', r.uncertain);
   * await retryLater(r.failed.concat(r.skipped));
   */
  batchSendAll(input: BatchSendInput, options: BatchSendAllOptions = {}): ApiPromise<BatchSendAllResult> {
    const opts = optionsOf(options);
    return this.#http.run(async (json) => {
      refuseNearMisses(opts, batchSendAllKeys, 'messages.batchSendAll');
      const result = safeCheck(hot(batchSendAllInputSchema), input);
      if (!result.ok) throw new MessageValidationError(result.issues, 'batch send');
      const size = opts.chunkSize ?? BATCH_SEND_MAX;
      if (!Number.isInteger(size) || size < 1 || size > BATCH_SEND_MAX) {
        throw new ConfigurationError(
          `batchSendAll chunkSize must be a whole number from 1 to ${BATCH_SEND_MAX}.`,
        );
      }
      const { message, conversations } = result.data;
      const out: BatchSendAllResult = { chunks: [], sent: [], failed: [], uncertain: [], skipped: [] };
      let stopped = false;
      const total = Math.ceil(conversations.length / size);
      let waitMs = 0;
      const request = {
        ...requestOf(opts),
        onRetryWait: (ms: number) => {
          waitMs = ms;
          report();
        },
      };
      const report = () =>
        callHook(opts.onProgress, {
          done: out.chunks.length,
          total,
          sent: out.sent.length,
          errors: out.chunks.filter((c) => c.status === 'failed').length,
          waitMs,
        });
      for (let index = 0, start = 0; start < conversations.length; index++, start += size) {
        if (index > 0) report();
        waitMs = 0;
        const chunk = conversations.slice(start, start + size);
        if (stopped || opts.signal?.aborted) {
          out.chunks.push({ index, conversations: chunk, status: 'skipped' });
          out.skipped.push(...chunk);
          continue;
        }
        try {
          await json('platform', {
            method: 'POST',
            path: '/batch_send_message/',
            body: { message, conversations: chunk },
            idempotent: false,
            ...request,
          });
          out.chunks.push({ index, conversations: chunk, status: 'sent' });
          out.sent.push(...chunk);
        } catch (error) {
          const mayHaveBeenSent = sentMaybe(error, PLATFORM_RETRY_RULES);
          out.chunks.push({
            index,
            conversations: chunk,
            status: 'failed',
            // The caller's abort reason (or a hostile fetch double's throw) is kept as the cause of an SDK error.
            error:
              error instanceof WaGatewayError
                ? error
                : new WaGatewayError(
                    opts.signal?.aborted && error === opts.signal.reason
                      ? 'This chunk was in flight when your signal stopped batchSendAll: it may have been sent. ' +
                          'Check these conversations before sending it to them again.'
                      : 'This chunk failed with an error that is not an SDK error.',
                    { cause: error },
                  ),
            mayHaveBeenSent,
          });
          (mayHaveBeenSent ? out.uncertain : out.failed).push(...chunk);
          if (!opts.continueOnError) stopped = true;
        }
      }
      report();
      return out;
    });
  }
}
