/**
 * How a store reaches its objects: the Durable Object namespace binding (`env.WA_STATE`), one object per key
 * (`idFromName`), and one call per operation. The types are structural, so `wa-gateway-sdk` needs neither
 * `@cloudflare/workers-types` nor `cloudflare:workers`: a `DurableObjectNamespace` from either fits.
 */
import { boundedDurationMs, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { isRecord } from '../core/plain-data.js';
import { storableJson } from '../core/serialise.js';
import { DurableObjectStoreError } from './errors.js';
import { type Answers, type Args, OBJECT_ORIGIN, type Operation, PROTOCOL_VERSION } from './wire.js';

/** How long a record is kept after its last write when a store's options do not say: 30 days. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How long one call to an object may take by default. An object answers in milliseconds; one that does not within
 * this (overloaded, a stalled connection) is failed as `unavailable`, well inside the gateway's 4 s delivery
 * deadline, so the webhook handler's `onStoreUnavailable` applies and a retry asks again.
 */
const TIMEOUT_MS = 2_000;

/**
 * What a Durable Object namespace binding offers the stores: a `DurableObjectNamespace` (`env.WA_STATE`), typed by
 * `@cloudflare/workers-types` or not.
 *
 * @example
 * interface Env { WA_STATE: DurableObjectNamespace } // assignable to DurableObjectNamespaceLike
 * const window = new DurableObjectWindowStore({ namespace: env.WA_STATE });
 */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): object;
  get(id: object): DurableObjectStubLike;
}

/**
 * A stub of one object: its `fetch`, the one method the stores call.
 *
 * @example
 * const stub: DurableObjectStubLike = env.WA_STATE.get(env.WA_STATE.idFromName('wa:window:998901234567'));
 */
export interface DurableObjectStubLike {
  fetch(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string },
  ): Promise<{ readonly status: number; text(): Promise<string> }>;
}

/**
 * Options every Durable Objects store accepts.
 *
 * @example
 * const options: DurableObjectStoreOptions = { namespace: env.WA_STATE, prefix: 'staging:' };
 */
export interface DurableObjectStoreOptions {
  /** The namespace bound to `WaGatewayDurableObject` in `wrangler.toml` (`env.WA_STATE`). */
  namespace: DurableObjectNamespaceLike;
  /**
   * Namespace of every object name this store uses (`<prefix>dedup:<key>`, ...). Default `wa:`. Give each
   * environment that shares one namespace its own.
   */
  prefix?: string | undefined;
  /**
   * How long one call to an object may take, in ms (a lock's wait comes on top). Default 2,000. A call that takes
   * longer fails with `DurableObjectStoreError` (`unavailable`, `causeName: 'TimeoutError'`), as a Redis store's
   * call does past its `commandTimeout`: an object that never answers would otherwise hold the event until the
   * gateway's deadline, every time. The object may still do the work (a claim or a lock then runs out with its lease).
   */
  timeoutMs?: number | undefined;
}

/** A store's checked binding: what every operation calls through. */
export interface Binding {
  readonly namespace: DurableObjectNamespaceLike;
  readonly prefix: string;
  readonly timeoutMs: number;
}

/** Checks a store's options once, at construction: a missing binding fails there, not at the first event. */
export function openBinding(options: DurableObjectStoreOptions, operation: string): Binding {
  const namespace = (options as Partial<DurableObjectStoreOptions> | undefined)?.namespace;
  if (
    !isRecord(namespace) ||
    typeof namespace.idFromName !== 'function' ||
    typeof namespace.get !== 'function'
  ) {
    throw new ConfigurationError(
      `${operation}: \`namespace\` must be the Durable Object namespace bound to WaGatewayDurableObject ` +
        '(env.WA_STATE with [[durable_objects.bindings]] in wrangler.toml).',
    );
  }
  const prefix = options.prefix ?? 'wa:';
  if (typeof prefix !== 'string' || prefix.length > 200 || /[\p{Cc}]/u.test(prefix)) {
    throw new ConfigurationError(`${operation}: \`prefix\` must be a string without control characters.`);
  }
  const timeoutMs = boundedDurationMs(
    options.timeoutMs,
    `${operation}: \`timeoutMs\``,
    TIMEOUT_MS,
    MAX_TIMER_MS,
  );
  return { namespace: namespace as unknown as DurableObjectNamespaceLike, prefix, timeoutMs };
}

/**
 * Calls `op` on the object named `<prefix><kind>:<key>` and returns its answer, within the binding's `timeoutMs`
 * and `waitsMs` more (the time the object itself may wait, a lock's). A stub is made per call: a stub whose
 * connection broke stays broken (Cloudflare's rule), and a call is one cheap `get` away.
 */
export async function callObject<Op extends Operation>(
  binding: Binding,
  name: string,
  op: Op,
  args: Args<Op>,
  operation: string,
  waitsMs = 0,
): Promise<Answers[Op]> {
  // Outside the try: a value JSON cannot hold (a cycle, a BigInt) is the caller's error, not an outage.
  const body = storableJson({ v: PROTOCOL_VERSION, op, ...args }, operation);
  let status: number;
  let text: string;
  // A timer's longest delay: past it, setTimeout fires at once.
  const limitMs = Math.min(binding.timeoutMs + waitsMs, MAX_TIMER_MS);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const { namespace } = binding;
    const stub = namespace.get(namespace.idFromName(`${binding.prefix}${name}`));
    const call = (async () => {
      const answer = await stub.fetch(`${OBJECT_ORIGIN}/${op}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      return { status: answer.status, text: await answer.text() };
    })();
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimedOut()), limitMs);
    });
    ({ status, text } = await Promise.race([call, late]));
  } catch (error) {
    if (error instanceof TimedOut) {
      throw new DurableObjectStoreError(
        `${operation}: the Durable Object did not answer within ${limitMs} ms (the store's \`timeoutMs\`); ` +
          'the call may be retried.',
        { failure: 'unavailable', operation, causeName: 'TimeoutError' },
      );
    }
    // Cloudflare's message may quote the object's own failure; only the class name is kept.
    const causeName = error instanceof Error ? error.name : typeof error;
    throw new DurableObjectStoreError(
      `${operation}: the Durable Object could not be reached or failed (${causeName}); the call may be retried.`,
      { failure: 'unavailable', operation, causeName },
    );
  } finally {
    clearTimeout(timer);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (status === 200 && isRecord(parsed) && 'ok' in parsed) return parsed['ok'] as Answers[Op];
  const error = isRecord(parsed) && isRecord(parsed['error']) ? parsed['error'] : undefined;
  if (status === 400 && error?.['failure'] === 'refused' && typeof error['message'] === 'string') {
    throw new DurableObjectStoreError(`${operation}: ${error['message'].slice(0, 300)}`, {
      failure: 'refused',
      operation,
    });
  }
  throw unexpectedAnswer(operation, `with status ${status}`);
}

/** A call past its time: told apart from the runtime's own errors, which may be named `TimeoutError` too. */
class TimedOut extends Error {}

/** The object answered a shape this store never asks for. */
export function unexpectedAnswer(operation: string, what: string): DurableObjectStoreError {
  return new DurableObjectStoreError(
    `${operation}: the Durable Object answered ${what}. Is the binding's class WaGatewayDurableObject, from the ` +
      'same version of wa-gateway-sdk as this Worker?',
    { failure: 'unexpected_answer', operation },
  );
}

/** A random token naming one holder of a claim or a lock. */
export function holderToken(): string {
  return crypto.randomUUID();
}
