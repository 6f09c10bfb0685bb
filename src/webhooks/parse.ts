/**
 * `parseWebhook`: envelope bytes in, typed events out.
 *
 * The envelope's skeleton (an object with an `entry` array of objects, each with a `changes` array of objects, each
 * with a `value` object) must be right, or parsing throws `WebhookParseError` with the path where it broke. Inside a
 * value, nothing is ever dropped: an item that does not fit its schema is delivered as an `unknown` message variant
 * or an `unknown` event with the raw object and the issues, so one odd item cannot cost the other events of the
 * same delivery (a 400 would make the gateway drop the whole envelope for good).
 *
 * Error messages name a location and a type, never a value: payloads hold phone numbers and message text.
 */
import { WebhookParseError } from '../core/errors.js';
import type { IncomingMessage, UnknownEvent, UnknownMessage, WebhookEvent, WebhookIssue } from './events.js';
import {
  accountUpdateValueSchema,
  contactSchema,
  messageSchemas,
  metadataSchema,
  statusSchema,
  templateStatusValueSchema,
  type WebhookContact,
  type WebhookMetadata,
} from './schemas.js';

type Path = (string | number)[];
type JsonObject = Record<string, unknown>;

/** What `parseWebhook` accepts: the raw body (text or bytes) or an already parsed object. */
export type WebhookBody = string | Uint8Array | ArrayBuffer | ArrayBufferView | object;

const decoder = new TextDecoder();

/**
 * Turns a webhook body into one event per incoming message, status, template update and account update, across
 * all entries and changes, in document order.
 *
 * Throws `WebhookParseError` (and nothing else, whatever the input) when the body is not JSON, not an object, or
 * lacks the envelope's skeleton; `error.path` says where. Items inside a change that do not fit their schema are
 * delivered as `unknown` rather than dropped.
 *
 * @example
 * for (const event of parseWebhook(rawBody)) {
 *   if (event.kind === 'message' && event.message.type === 'text') reply(event.message.from, event.message.text.body);
 *   if (event.kind === 'status') tracker.update(event);
 * }
 */
export function parseWebhook(body: WebhookBody): WebhookEvent[] {
  try {
    const { root, mayHoldNulls } = decodeBody(body);
    return walkEnvelope(root, mayHoldNulls);
  } catch (error) {
    if (error instanceof WebhookParseError) throw error;
    // Do not read the error: on an object input it may come from a hostile getter or proxy. Stack overflows on
    // absurd nesting and throwing accessors end up here.
    throw new WebhookParseError(
      'Webhook body could not be read (an accessor threw, or the structure is too deeply nested)',
    );
  }
}

/**
 * The envelope as a plain tree, and whether it may hold a `null` anywhere: most deliveries hold none, and a search
 * of the text for `null` is far cheaper than looking for one in every item.
 */
function decodeBody(body: WebhookBody): { root: JsonObject; mayHoldNulls: boolean } {
  if (typeof body === 'string') return fromText(body);
  if (body instanceof Uint8Array) return fromText(decoder.decode(body));
  if (isArrayBuffer(body)) return fromText(decoder.decode(new Uint8Array(body)));
  if (ArrayBuffer.isView(body)) {
    return fromText(decoder.decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength)));
  }
  if (isObject(body)) return { root: snapshot(body), mayHoldNulls: true };
  throw new WebhookParseError(`Webhook body must be a JSON object, got ${describe(body)}`);
}

function isArrayBuffer(value: unknown): value is ArrayBuffer {
  // `instanceof` fails across realms (vm contexts, some Worker runtimes); the tag does not.
  return value instanceof ArrayBuffer || Object.prototype.toString.call(value) === '[object ArrayBuffer]';
}

function fromText(text: string): { root: JsonObject; mayHoldNulls: boolean } {
  return { root: parseJsonText(text), mayHoldNulls: text.includes('null') };
}

function parseJsonText(text: string): JsonObject {
  if (text.trim() === '') throw new WebhookParseError('Webhook body is empty');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // V8's SyntaxError quotes the input around the fault: never pass it on.
    throw new WebhookParseError('Webhook body is not valid JSON');
  }
  if (!isObject(parsed))
    throw new WebhookParseError(`Webhook body must be a JSON object, got ${describe(parsed)}`);
  return parsed;
}

/** The most values an object input may hold, counted as a JSON text would hold them (a shared object once per use). */
const MAX_VALUES = 100_000;
/** Deeper than any envelope the spec shows (about 10 levels); also where a cycle is caught. */
const MAX_DEPTH = 64;

/**
 * A plain copy of an object handed in by the caller (JSON text needs none: `JSON.parse` builds plain trees).
 * Everything after works on data that can run no getter or proxy trap a second time, and whose size is that of
 * its JSON text: a cycle, or shared references that expand past `MAX_VALUES` (two references per level double
 * the work at every level), are refused here with `WebhookParseError` instead of hanging every later walk.
 */
function snapshot(root: JsonObject): JsonObject {
  let budget = MAX_VALUES;
  // One path, pushed and popped: copied only into an error, so a large input allocates none per value.
  const path: Path = [];
  const copy = (value: unknown): unknown => {
    if (--budget < 0) {
      throw new WebhookParseError(
        `Webhook body holds more than ${MAX_VALUES} values (counting a shared object once per reference)`,
        [...path],
      );
    }
    if (value === null || typeof value !== 'object') return value;
    if (path.length >= MAX_DEPTH) {
      throw new WebhookParseError(`Webhook body nests deeper than ${MAX_DEPTH} levels, or refers to itself`, [
        ...path,
      ]);
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        out.push(copy(value[i]));
        path.pop();
      }
      return out;
    }
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      path.push(key);
      setOwn(out, key, copy((value as JsonObject)[key]));
      path.pop();
    }
    return out;
  };
  return copy(root) as JsonObject;
}

/** `out[key] = value`, except that a `__proto__` key stays data rather than setting the prototype. */
function setOwn(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON type of a value, for error messages; never the value itself. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t}`;
}

function formatPath(path: Path): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

function fail(path: Path, expected: string, got: unknown): never {
  throw new WebhookParseError(
    `Invalid webhook envelope at ${formatPath(path)}: expected ${expected}, got ${describe(got)}`,
    path,
  );
}

function walkEnvelope(root: JsonObject, mayHoldNulls: boolean): WebhookEvent[] {
  const entries = root['entry'];
  if (!Array.isArray(entries)) fail(['entry'], 'an array', entries);
  const events: WebhookEvent[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry: unknown = entries[i];
    if (!isObject(entry)) fail(['entry', i], 'an object', entry);
    const changes = entry['changes'];
    if (!Array.isArray(changes)) fail(['entry', i, 'changes'], 'an array', changes);
    const rawId = entry['id'];
    const businessAccountId =
      typeof rawId === 'string' ? rawId : typeof rawId === 'number' ? String(rawId) : undefined;
    const time = entry['time'];
    for (let j = 0; j < changes.length; j++) {
      const change: unknown = changes[j];
      if (!isObject(change)) fail(['entry', i, 'changes', j], 'an object', change);
      const value = change['value'];
      if (!isObject(value)) fail(['entry', i, 'changes', j, 'value'], 'an object', value);
      const rawField = change['field'];
      const field = typeof rawField === 'string' ? rawField : '';
      const ctx: ChangeContext = {
        businessAccountId,
        field,
        time,
        path: ['entry', i, 'changes', j, 'value'],
        mayHoldNulls,
      };
      if (field === 'messages') walkMessagesValue(value, ctx, events);
      else if (field === 'message_template_status_update') events.push(templateEvent(value, ctx));
      else if (field === 'account_update') events.push(accountEvent(value, ctx));
      else events.push(unknownEvent(ctx, 'unknown_field', ctx.path, value, []));
    }
  }
  return events;
}

interface ChangeContext {
  businessAccountId: string | undefined;
  field: string;
  /** `entry[].time` when the envelope carries one: it tells two identical template/account updates apart. */
  time: unknown;
  path: Path;
  /** `false` when the body holds no `null` at all, so items need no `withoutNulls` copy. */
  mayHoldNulls: boolean;
}

function walkMessagesValue(value: JsonObject, ctx: ChangeContext, events: WebhookEvent[]): void {
  const metadata = parseMetadata(value['metadata']);
  const contacts = value['contacts'];
  const contactCache = new Map<unknown, WebhookContact | undefined>();
  let sawItems = false;
  // Object key order is document order: honour it even in the odd change that carries both arrays.
  for (const key of Object.keys(value)) {
    if (key !== 'messages' && key !== 'statuses') continue;
    sawItems = true;
    const items = value[key];
    const path = [...ctx.path, key];
    if (!Array.isArray(items)) {
      events.push(
        unknownEvent(ctx, 'invalid_item', path, items, [issue([], 'invalid_type', 'Expected an array')]),
      );
      continue;
    }
    for (let k = 0; k < items.length; k++) {
      const item: unknown = items[k];
      if (!metadata.ok) {
        events.push(withoutMetadata(item, key, ctx, [...path, k], metadata.issues));
      } else if (key === 'messages') {
        events.push(messageEvent(item, ctx, [...path, k], metadata.metadata, contacts, contactCache));
      } else {
        events.push(statusEvent(item, ctx, [...path, k], metadata.metadata));
      }
    }
  }
  if (!sawItems) events.push(unknownEvent(ctx, 'unrecognized_value', ctx.path, value, []));
}

type MetadataResult = { ok: true; metadata: WebhookMetadata } | { ok: false; issues: WebhookIssue[] };

/** The change's `value.metadata`, which the spec gives on every `messages` change (both fields required). */
function parseMetadata(raw: unknown): MetadataResult {
  const result = metadataSchema.safeParse(raw);
  if (result.success) return { ok: true, metadata: result.data };
  return {
    ok: false,
    issues: toIssues(result.error.issues).map((i) => ({
      ...i,
      path: ['metadata', ...i.path],
      message: `the change's value.metadata: ${i.message}`,
    })),
  };
}

/**
 * A message or status whose change lacks a valid `value.metadata`: it cannot be a typed event (its `metadata` is
 * required), so it is delivered as an `unknown` event with the item as received, never dropped. The key differs
 * from a valid event's, so a complete redelivery of the same item is not taken for a duplicate.
 */
function withoutMetadata(
  item: unknown,
  key: 'messages' | 'statuses',
  ctx: ChangeContext,
  path: Path,
  issues: WebhookIssue[],
): UnknownEvent {
  const id = isObject(item) ? item['id'] : undefined;
  const status = isObject(item) ? item['status'] : undefined;
  const idKey =
    typeof id !== 'string' || id === ''
      ? undefined
      : key === 'messages'
        ? `unknown:${id}`
        : typeof status === 'string'
          ? `unknown:${id}:${status}`
          : undefined;
  return unknownEvent(ctx, 'invalid_item', path, item, issues, idKey);
}

/** The sender's contact: the one whose `wa_id` is the message's `from`, else the first (per the spec they match). */
function findContact(
  contacts: unknown,
  from: unknown,
  cache: Map<unknown, WebhookContact | undefined>,
): WebhookContact | undefined {
  if (!Array.isArray(contacts) || contacts.length === 0) return undefined;
  if (cache.has(from)) return cache.get(from);
  let raw: unknown = contacts[0];
  if (typeof from === 'string') {
    for (const candidate of contacts) {
      if (isObject(candidate) && candidate['wa_id'] === from) {
        raw = candidate;
        break;
      }
    }
  }
  const result = contactSchema.safeParse(raw);
  const contact = result.success ? result.data : undefined;
  cache.set(from, contact);
  return contact;
}

function messageEvent(
  item: unknown,
  ctx: ChangeContext,
  path: Path,
  metadata: WebhookMetadata,
  contacts: unknown,
  contactCache: Map<unknown, WebhookContact | undefined>,
): WebhookEvent {
  if (!isObject(item)) {
    return unknownEvent(ctx, 'invalid_item', path, item, [issue([], 'invalid_type', 'Expected an object')]);
  }
  const id = item['id'];
  const type = item['type'];
  if (typeof id !== 'string' || id === '' || typeof type !== 'string' || type === '') {
    const issues: WebhookIssue[] = [];
    if (typeof id !== 'string' || id === '')
      issues.push(issue(['id'], 'invalid_type', 'Expected a non-empty string'));
    if (typeof type !== 'string' || type === '') {
      issues.push(issue(['type'], 'invalid_type', 'Expected a non-empty string'));
    }
    return unknownEvent(ctx, 'invalid_item', path, item, issues);
  }
  let message: IncomingMessage;
  const schema = Object.hasOwn(messageSchemas, type)
    ? messageSchemas[type as keyof typeof messageSchemas]
    : null;
  if (schema) {
    const result = schema.safeParse(ctx.mayHoldNulls ? withoutNulls(item) : item);
    message = result.success ? result.data : unknownMessage(item, id, type, toIssues(result.error.issues));
  } else {
    message = unknownMessage(item, id, type, []);
  }
  const from = item['from'];
  const rawTimestamp = item['timestamp'];
  return {
    kind: 'message',
    field: 'messages',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: id,
    metadata,
    contact: findContact(contacts, from, contactCache),
    message,
    timestamp: parseTimestamp(rawTimestamp),
    timestampRaw: rawTimestampString(rawTimestamp),
  };
}

/**
 * `value` without its `null` properties, at every depth. Relays write `null` for fields that are absent; the
 * schemas' optional fields mean "absent", and a `null` there must not demote a whole status or message to
 * `unknown` (which handlers usually skip).
 *
 * Copy on write: a branch without a `null` is returned as it is, so the common delivery (no `null` at all) costs
 * one read of each property and no allocation. The input is a plain tree (JSON text, or a `snapshot`), so the
 * walk is linear in its size.
 */
function withoutNulls(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const before: unknown = value[i];
      const after = withoutNulls(before, depth + 1);
      if (out === undefined && after !== before) out = value.slice(0, i);
      out?.push(after);
    }
    return out ?? value;
  }
  const object = value as JsonObject;
  const keys = Object.keys(object);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const before = object[key];
    const after = before === null ? null : withoutNulls(before, depth + 1);
    if (out === undefined && (after === null || after !== before)) {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j]!, object[keys[j]!]);
    }
    if (out !== undefined && after !== null) setOwn(out, key, after);
  }
  return out ?? value;
}

function unknownMessage(item: JsonObject, id: string, type: string, issues: WebhookIssue[]): UnknownMessage {
  const from = item['from'];
  const timestamp = item['timestamp'];
  return {
    type: 'unknown',
    originalType: type,
    id,
    from: typeof from === 'string' ? from : undefined,
    timestamp: typeof timestamp === 'string' || typeof timestamp === 'number' ? timestamp : undefined,
    raw: item,
    issues,
  };
}

function statusEvent(item: unknown, ctx: ChangeContext, path: Path, metadata: WebhookMetadata): WebhookEvent {
  const result = statusSchema.safeParse(ctx.mayHoldNulls ? withoutNulls(item) : item);
  if (!result.success) {
    const id = isObject(item) ? item['id'] : undefined;
    const status = isObject(item) ? item['status'] : undefined;
    // Not the key a valid status has: a handler that skips `unknown` events must not make a later, well-formed
    // redelivery of the same status look like a duplicate (it would be lost).
    const key =
      typeof id === 'string' && id !== '' && typeof status === 'string'
        ? `unknown:${id}:${status}`
        : undefined;
    return unknownEvent(ctx, 'invalid_item', path, item, toIssues(result.error.issues), key);
  }
  const status = result.data;
  return {
    kind: 'status',
    field: 'messages',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: `${status.id}:${status.status}`,
    metadata,
    status,
    timestamp: parseTimestamp(status.timestamp),
    timestampRaw: rawTimestampString(status.timestamp),
  };
}

function templateEvent(value: JsonObject, ctx: ChangeContext): WebhookEvent {
  const result = templateStatusValueSchema.safeParse(value);
  if (!result.success)
    return unknownEvent(ctx, 'invalid_item', ctx.path, value, toIssues(result.error.issues));
  const template = result.data;
  return {
    kind: 'template_status',
    field: 'message_template_status_update',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: `template:${template.message_template_id}:${template.event}:${contentHash(ctx.time, value)}`,
    template,
  };
}

function accountEvent(value: JsonObject, ctx: ChangeContext): WebhookEvent {
  const result = accountUpdateValueSchema.safeParse(value);
  if (!result.success)
    return unknownEvent(ctx, 'invalid_item', ctx.path, value, toIssues(result.error.issues));
  const account = result.data;
  // The phone number and ban date are part of the hashed content, not spelled out: keys end up in shared stores.
  return {
    kind: 'account_update',
    field: 'account_update',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: `account:${account.event}:${contentHash(ctx.time, value)}`,
    account,
  };
}

function unknownEvent(
  ctx: ChangeContext,
  reason: UnknownEvent['reason'],
  path: Path,
  raw: unknown,
  issues: WebhookIssue[],
  key?: string,
): UnknownEvent {
  return {
    kind: 'unknown',
    field: ctx.field,
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: key ?? `unknown:${ctx.field}:${contentHash(ctx.time, raw, path)}`,
    reason,
    path,
    raw,
    issues,
  };
}

function issue(path: Path, code: string, message: string): WebhookIssue {
  return { path, code, message };
}

interface ZodIssueLike {
  readonly path: readonly PropertyKey[];
  readonly code: string;
  readonly message: string;
}

function toIssues(issues: readonly ZodIssueLike[]): WebhookIssue[] {
  // Zod's default messages name expected and received types only; its issues carry no input unless asked to.
  return issues.map((i) => ({
    path: i.path.filter((p): p is string | number => typeof p === 'string' || typeof p === 'number'),
    code: i.code,
    message: i.message,
  }));
}

const NUMERIC = /^\s*-?\d+(?:\.\d+)?\s*$/;

/**
 * Unix seconds from a wire timestamp. `undefined` when absent or not a plain decimal number: `NaN` would make
 * every comparison false and silently break sorting, `undefined` makes the caller decide.
 */
export function parseTimestamp(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string' || !NUMERIC.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

function rawTimestampString(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') return String(raw);
  return undefined;
}

/**
 * A 53-bit hash (cyrb53) of the JSON of the given parts, in base 36. Not cryptographic: it only has to map the same
 * redelivered content to the same key, with collisions far rarer than 24 hours of events.
 */
function contentHash(time: unknown, raw: unknown, fallbackPath?: Path): string {
  let text: string;
  try {
    text = JSON.stringify([time ?? null, raw]) ?? '';
  } catch {
    // A cycle or BigInt in an object handed in by the caller: fall back to the location, still deterministic.
    text = `path:${fallbackPath ? formatPath(fallbackPath) : ''}`;
  }
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
