/**
 * One send whose request goes out only once a gate allows it: for a durable queue's worker, which must write "this
 * message is about to be sent" to its ledger after any wait (the rate limiter, a retry's pause) and before the
 * request, so that a worker that dies then leaves a message in doubt, never one that looks unsent but went out.
 * The result is `sendMany`'s, decided by the same rule (`failedSend`): the gateway's retry table says what was
 * sent.
 */
import { ConfigurationError, MessageValidationError, NotSentError } from '../core/errors.js';
import { traced } from '../core/tracing.js';
import { type Messages, senderOf } from './messages.js';
import { prepare } from './prepare-message.js';
import type { SendFlags } from './send.js';
import { failedSend, SEND_SPAN, type SendManyResult } from './send-many.js';

/** How `sendGated` sends. */
export interface GatedSendOptions extends SendFlags {
  /**
   * Awaited before each attempt's request, after the rate limiter granted it: reject (with an error whose
   * `mayHaveBeenSent` is `false`) and the message is not sent, its result `notSent: true` with that error.
   */
  gate: () => Promise<void>;
  /** Cancels the send while it waits (for the limiter, between attempts); never one in flight. */
  signal?: AbortSignal;
  /** The send's timeout, ms. Default: the client's. */
  timeoutMs?: number;
}

/**
 * Sends `message` through `messages` (a `GatewayClient`'s: its limiter, retries, catalogue and service window),
 * its request made only once `options.gate` resolves, and never repeated after a fault in flight whatever the
 * client's `retryInFlightSends`: a repeat could send twice. Never throws: a failure is a result, `notSent`
 * decided as `sendMany` decides it, and `requested` says whether a request was handed to `fetch`.
 *
 * @example
 * const { result } = await sendGated(gw.messages, message, { gate: () => ledger.markSending(id) });
 */
export async function sendGated(
  messages: Messages,
  message: unknown,
  options: GatedSendOptions,
): Promise<{ result: SendManyResult; requested: boolean }> {
  const sender = senderOf(messages);
  if (sender === undefined)
    throw new ConfigurationError('sendGated takes the `messages` of a GatewayClient.');
  const checked = prepare(message, true, undefined);
  if (!checked.valid) {
    return { result: failedSend(0, new MessageValidationError(checked.issues), false), requested: false };
  }
  let requested = false;
  // Whether the latest attempt's request is out and unanswered: a stop then waits for its answer (cutting it
  // would leave it in doubt), and takes effect before the next attempt.
  let out = false;
  const caller = options.signal;
  const stop = caller ? new AbortController() : undefined;
  const stopNow = () => {
    if (caller?.aborted && !out) stop?.abort(caller.reason);
  };
  caller?.addEventListener('abort', stopNow, { once: true });
  stopNow();
  const onSend = () => {
    requested = true;
    out = true;
  };
  const between = () => {
    out = false;
    stopNow();
  };
  const gate = () => {
    between();
    return options.gate();
  };
  try {
    const type = (checked.message as { type?: unknown }).type;
    const { data } = await traced(
      'wa-gateway send',
      {
        ...SEND_SPAN,
        'server.address': sender.host,
        'wa_gateway.message.type': typeof type === 'string' ? type : 'unknown',
      },
      () =>
        sender.post(
          checked.message,
          { isFake: options.isFake, mmlite: options.mmlite },
          {
            signal: stop?.signal,
            timeoutMs: options.timeoutMs,
            retryInFlight: false,
            onRetryWait: between,
          },
          undefined,
          onSend,
          gate,
        ),
      (sent, span) => span.set('messaging.message.id', sent.messageId),
    );
    return {
      result: { index: 0, ok: true, messageId: data.messageId, contacts: data.contacts },
      requested: true,
    };
  } catch (error) {
    // Stopped while it waited (the limiter, a retry's pause, its gate) after attempts refused unsent: the call
    // ends with the stop's own reason only when no earlier attempt may be out (`settleAttempts`), so not sent.
    if (stop?.signal.aborted && error === stop.signal.reason && !out) {
      const stopped = new NotSentError('The send was stopped before its request was made; see its cause.', {
        cause: error,
      });
      return { result: failedSend(0, stopped, false), requested };
    }
    return { result: failedSend(0, error, requested), requested };
  } finally {
    caller?.removeEventListener('abort', stopNow);
  }
}
