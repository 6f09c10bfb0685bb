/**
 * The protocol between the stores (in the Worker) and `WaGatewayDurableObject` (in the object): one JSON `POST`
 * per operation, over the stub's `fetch`. The class does not extend `DurableObject` from `cloudflare:workers` (so
 * that this entry imports in Node, Bun and tests as well as in workerd), and a class that does not cannot be
 * called by RPC; `fetch` is what every Durable Object answers.
 *
 * Each operation's arguments are declared once, as data: the object reads them with `readArgs` (a call of another
 * shape is refused, not guessed at) and the stores' calls are typed from the same table.
 */
import { isRecord } from '../core/plain-data.js';
import type { TemplateRecord } from '../templates/catalog.js';
import type { ClaimResult } from '../webhooks/dedup.js';
import type { StatusUpdateResult, TrackedStatus } from '../webhooks/status-tracker.js';

/**
 * The version of this protocol. An object deployed with another version of the SDK (the class hosted by another
 * Worker, `script_name` in `wrangler.toml`) refuses the call with a `refused` error instead of misreading it.
 */
export const PROTOCOL_VERSION = 1;

/** The URL of every call: an object reached through its stub, never the network; the path names the operation. */
export const OBJECT_ORIGIN = 'https://wa-gateway-sdk.durable-object';

/** What a field of a call must be. */
const FIELD_CHECKS = {
  string: (v: unknown): v is string => typeof v === 'string',
  boolean: (v: unknown): v is boolean => typeof v === 'boolean',
  /** A duration or a time in ms: finite and positive. */
  ms: (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0,
  /** Any JSON value (a session record, a template definition). */
  json: (v: unknown): v is unknown => v !== undefined,
  object: (v: unknown): v is Record<string, unknown> => isRecord(v),
  /** A tracked status snapshot, or `null` for "none". */
  snapshot: (v: unknown): v is TrackedStatus | null => v === null || isRecord(v),
} as const;
type FieldKind = keyof typeof FIELD_CHECKS;
type FieldType<K extends FieldKind> = (typeof FIELD_CHECKS)[K] extends (v: unknown) => v is infer T
  ? T
  : never;

/** Every operation and its arguments: the object's dispatch table and the stores' calls both come from it. */
export const OPERATIONS = {
  /** Idempotency keys and the reply ledger: one object per key. */
  'cell.claim': { token: 'string', ms: 'ms', done: 'boolean' },
  'cell.complete': { ttlMs: 'ms' },
  'cell.release': { token: 'string' },
  'cell.renew': { token: 'string', leaseMs: 'ms' },
  'cell.peek': {},
  'cell.forget': {},
  /** A customer's record and lock: one object per session key. */
  'record.get': {},
  'record.set': { value: 'json', ttlMs: 'ms' },
  'record.delete': {},
  'record.save': { token: 'string', value: 'json', ttlMs: 'ms' },
  'lock.take': { token: 'string', leaseMs: 'ms', waitMs: 'ms' },
  'lock.renew': { token: 'string', leaseMs: 'ms' },
  'lock.release': { token: 'string' },
  /** A customer's last inbound time: one object per customer. */
  'window.record': { atMs: 'ms', retainMs: 'ms' },
  'window.last': {},
  /** An outbound message's status: one object per wamid. */
  'status.update': { input: 'object', retainMs: 'ms' },
  'status.undo': { current: 'snapshot', previous: 'snapshot', retainMs: 'ms' },
  'status.get': {},
  'status.delete': {},
  /** The template catalogue: one object per prefix. */
  'template.get': { name: 'string', language: 'string' },
  'template.update': { name: 'string', language: 'string', patch: 'object' },
  'template.list': {},
} as const satisfies Record<string, Record<string, FieldKind>>;

export type Operation = keyof typeof OPERATIONS;

/** The arguments of `op`, typed from the table. */
export type Args<Op extends Operation> = {
  -readonly [F in keyof (typeof OPERATIONS)[Op]]: (typeof OPERATIONS)[Op][F] extends FieldKind
    ? FieldType<(typeof OPERATIONS)[Op][F]>
    : never;
};

/** What each operation answers (JSON: an absent value is `null`). */
export interface Answers {
  'cell.claim': ClaimResult;
  'cell.complete': null;
  'cell.release': null;
  'cell.renew': boolean;
  'cell.peek': 'in_progress' | 'done' | null;
  'cell.forget': null;
  'record.get': { value?: unknown };
  'record.set': null;
  'record.delete': null;
  'record.save': boolean;
  'lock.take': boolean;
  'lock.renew': boolean;
  'lock.release': null;
  'window.record': null;
  'window.last': number | null;
  'status.update': StatusUpdateResult;
  'status.undo': boolean;
  'status.get': TrackedStatus | null;
  'status.delete': boolean;
  'template.get': TemplateRecord | null;
  'template.update': TemplateRecord;
  'template.list': TemplateRecord[];
}

/** What a refused call answers, with status 400. */
export interface Refusal {
  error: { failure: 'refused'; message: string };
}

export function isOperation(value: unknown): value is Operation {
  return typeof value === 'string' && Object.hasOwn(OPERATIONS, value);
}

/** The call's arguments as `op` declares them, or the name of the first field that is not. */
export function readArgs<Op extends Operation>(
  op: Op,
  body: Record<string, unknown>,
): { args: Args<Op> } | { wrong: string } {
  const spec: Record<string, FieldKind> = OPERATIONS[op];
  const args: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(spec)) {
    const value = body[field];
    if (!FIELD_CHECKS[kind](value)) return { wrong: field };
    args[field] = value;
  }
  return { args: args as Args<Op> };
}
