import { brandError, WaGatewayError } from '../core/errors.js';

/**
 * Why a Durable Objects store failed:
 * - `unavailable`: the object could not be reached or its call threw (the runtime reset it, it was overloaded,
 *   a network fault between the Worker and the object); Cloudflare's own error is not kept, only its class name;
 * - `unexpected_answer`: the object answered something this store does not understand (the binding points at
 *   another class, or the object runs another version of the SDK);
 * - `refused`: the object refused the call (it speaks another version of the stores' protocol, or was given
 *   something it cannot store);
 * - `lock_timeout`: another request held a customer's lock for longer than this one would wait.
 *
 * @example
 * if (error instanceof DurableObjectStoreError && error.failure === 'unavailable') console.warn(error.operation);
 */
export type DurableObjectStoreFailure = 'unavailable' | 'unexpected_answer' | 'refused' | 'lock_timeout';

/**
 * A Durable Objects store (`wa-gateway-sdk/durable-objects`) could not do its work. The message names the store
 * and the operation, never a key or a value (keys hold customers' phone numbers and event ids). The webhook
 * handler answers it with 500 and the router fails the event with it, so the gateway delivers the event again.
 *
 * @example
 * try { await sessions.lock(customer, 5_000) }
 * catch (e) { if (e instanceof DurableObjectStoreError && e.failure === 'lock_timeout') console.warn('busy') }
 */
export class DurableObjectStoreError extends WaGatewayError {
  override name = 'DurableObjectStoreError';
  readonly failure: DurableObjectStoreFailure;
  /** Which store and operation, e.g. `DurableObjectSessionStore.lock`. */
  readonly operation: string;
  /** The class name of the runtime's error when the object could not be reached (`Error`, `TypeError`, ...). */
  readonly causeName: string | undefined;
  /**
   * Always `false`: a store fails before any request to the gateway, so a send it stopped was certainly not
   * sent.
   */
  readonly mayHaveBeenSent = false;

  constructor(
    message: string,
    options: { failure: DurableObjectStoreFailure; operation: string; causeName?: string | undefined },
  ) {
    super(message);
    this.failure = options.failure;
    this.operation = options.operation;
    this.causeName = options.causeName;
  }
}
brandError(DurableObjectStoreError, 'DurableObjectStoreError');
