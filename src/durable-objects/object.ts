/** `WaGatewayDurableObject`: the Durable Object class the stores of this entry keep their state in. */
import { isRecord } from '../core/plain-data.js';
import type { TemplateRecordPatch } from '../templates/catalog.js';
import { type DurableObjectStateLike, ObjectState } from './object-state.js';
import {
  type Answers,
  type Args,
  isOperation,
  type Operation,
  PROTOCOL_VERSION,
  type Refusal,
  readArgs,
} from './wire.js';

type Handlers = {
  [Op in Operation]: (state: ObjectState, args: Args<Op>) => Answers[Op] | Promise<Answers[Op]>;
};

const HANDLERS: Handlers = {
  'cell.claim': (s, a) => s.claim(a.token, a.ms, a.done),
  'cell.complete': (s, a) => s.complete(a.ttlMs),
  'cell.release': (s, a) => s.release(a.token),
  'cell.renew': (s, a) => s.renew(a.token, a.leaseMs),
  'cell.peek': (s) => s.peek(),
  'cell.forget': (s) => s.forget(),
  'record.get': (s) => s.getRecord(),
  'record.set': (s, a) => s.setRecord(a.value, a.ttlMs),
  'record.delete': (s) => s.deleteRecord(),
  'record.save': (s, a) => s.saveRecord(a.token, a.value, a.ttlMs),
  'lock.take': (s, a) => s.takeLock(a.token, a.leaseMs, a.waitMs),
  'lock.renew': (s, a) => s.renewLock(a.token, a.leaseMs),
  'lock.release': (s, a) => s.releaseLock(a.token),
  'window.record': (s, a) => s.recordInbound(a.atMs, a.retainMs),
  'window.last': (s) => s.lastInbound(),
  'status.update': (s, a) => s.updateStatus(a.input, a.retainMs),
  'status.undo': (s, a) => s.undoStatus(a.current, a.previous, a.retainMs),
  'status.get': (s) => s.getStatus(),
  'status.delete': (s) => s.deleteStatus(),
  'template.get': (s, a) => s.getTemplate(a.name, a.language),
  'template.update': (s, a) => s.updateTemplate(a.name, a.language, a.patch as TemplateRecordPatch),
  'template.list': (s) => s.listTemplates(),
};

function refuse(message: string): Response {
  const body: Refusal = { error: { failure: 'refused', message } };
  return Response.json(body, { status: 400 });
}

/**
 * The Durable Object every store of `wa-gateway-sdk/durable-objects` keeps its state in. Export it from your
 * Worker and bind it in `wrangler.toml`; the stores take the binding. One object per key: each idempotency key,
 * each customer's session and lock, each customer's window, each message's status, and one object for the template
 * catalogue. Objects free their storage by themselves (an alarm) once everything in them has expired.
 *
 * It is called by the stores only, through `fetch`: it is not meant to be routed requests from the internet.
 *
 * @example
 * // worker.ts
 * export { WaGatewayDurableObject } from 'wa-gateway-sdk/durable-objects';
 * // wrangler.toml:
 * // [[durable_objects.bindings]]
 * // name = "WA_STATE"
 * // class_name = "WaGatewayDurableObject"
 * // [[migrations]]
 * // tag = "v1"
 * // new_sqlite_classes = ["WaGatewayDurableObject"]
 */
export class WaGatewayDurableObject {
  readonly #state: Promise<ObjectState>;

  constructor(ctx: DurableObjectStateLike, _env?: unknown) {
    // No event reaches the object before what it stored is in memory.
    this.#state = ctx.blockConcurrencyWhile(() => ObjectState.load(ctx.storage));
  }

  /**
   * Answers one store operation (a JSON `POST` from a store of this entry).
   *
   * @example
   * // Called by the stores through the binding's stub; a Worker does not call it itself.
   * const answer = await env.WA_STATE.get(env.WA_STATE.idFromName('wa:window:998901234567')).fetch(request);
   */
  async fetch(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      body = undefined;
    }
    if (!isRecord(body)) return refuse('a call to WaGatewayDurableObject is a JSON object.');
    if (body['v'] !== PROTOCOL_VERSION) {
      return refuse(
        `the store speaks protocol ${String(body['v']).slice(0, 10)} and this object ${PROTOCOL_VERSION}: deploy ` +
          'the Worker that exports WaGatewayDurableObject with the same version of wa-gateway-sdk as its callers.',
      );
    }
    const op = body['op'];
    if (!isOperation(op)) return refuse('the operation is not one WaGatewayDurableObject knows.');
    const read = readArgs(op, body);
    if ('wrong' in read) return refuse(`${op}: \`${read.wrong}\` is missing or of the wrong type.`);
    const state = await this.#state;
    const handler = HANDLERS[op] as (s: ObjectState, a: Args<Operation>) => unknown;
    return Response.json({ ok: (await handler(state, read.args)) ?? null });
  }

  /**
   * Frees what expired; an object left empty deletes its storage. Called by the runtime.
   *
   * @example
   * // Set by the object itself (storage.setAlarm); the runtime calls it, a Worker does not.
   * await object.alarm();
   */
  async alarm(): Promise<void> {
    await (await this.#state).alarm();
  }
}
