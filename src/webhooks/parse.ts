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

import type { RawIssue } from '../core/checker-runtime.js';
import { WebhookParseError } from '../core/errors.js';
import { formatPath, isRecord } from '../core/plain-data.js';
import {
  checkAccountUpdateValue,
  checkContact,
  checkEnvelope,
  checkMetadata,
  checkStatus,
  checkTemplateStatusValue,
  messageCheckers,
} from './checkers.generated.js';
import {
  type DecodedBody,
  decodeBody,
  describe,
  type JsonObject,
  mayHoldNulls,
  type Path,
  type WebhookBody,
  withoutNulls,
} from './decode-body.js';
import { contentHash, issue, parseTimestamp, rawTimestampString, toIssues } from './event-fields.js';
import type { IncomingMessage, UnknownEvent, UnknownMessage, WebhookEvent, WebhookIssue } from './events.js';
import type { WebhookContact, WebhookMetadata, WebhookStatus } from './schemas.js';

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
 *   const to = customerOf(event)?.phone;
 *   if (event.kind === 'message' && event.message.type === 'text' && to) reply(to, event.message.text.body);
 *   if (event.kind === 'status') tracker.update(event);
 * }
 */
export function parseWebhook(body: WebhookBody): WebhookEvent[] {
  try {
    return walkEnvelope(decodeBody(body));
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
 * Reads the envelope through `webhookEnvelopeSchema`, its one checker (generated from it, `checkEnvelope`): the
 * skeleton must be there (else `WebhookParseError` at the first place it breaks), and every change becomes events
 * through its field's reader.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const walkEnvelope = (function walkEnvelope(body: DecodedBody): WebhookEvent[] {
  const issues: RawIssue[] = [];
  const envelope = checkEnvelope(body.root, issues);
  if (issues.length > 0) throw skeletonError(body.root, issues[0]);
  const events: WebhookEvent[] = [];
  const entries = envelope.entry;
  for (let i = 0; i < entries.length; i++) {
    const { id, changes, time } = entries[i]!;
    const businessAccountId = typeof id === 'number' ? String(id) : id;
    for (let j = 0; j < changes.length; j++) {
      const { field, value } = changes[j]!;
      const ctx: ChangeContext = { businessAccountId, field, time, entry: i, change: j, body };
      const reader = Object.hasOwn(changeReaders, field) ? changeReaders[field as KnownChangeField] : null;
      if (reader) reader(value, ctx, events);
      else events.push(unknownEvent(ctx, 'unknown_field', valuePath(ctx), value, []));
    }
  }
  return events;
});

/** Where the skeleton broke and what was there instead (its type, never its value: payloads hold personal data). */
function skeletonError(root: JsonObject, issue: RawIssue | undefined): WebhookParseError {
  const path = (issue?.path ?? []).filter((p): p is string | number => typeof p !== 'symbol');
  let got: unknown = root;
  for (const key of path)
    got = isRecord(got) || Array.isArray(got) ? (got as Record<string, unknown>)[key] : undefined;
  const expected =
    issue?.code === 'invalid_type' && issue.expected !== undefined
      ? `${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`
      : "the envelope's structure";
  return new WebhookParseError(
    `Invalid webhook envelope at ${formatPath(path)}: expected ${expected}, got ${describe(got)}`,
    path,
  );
}

interface ChangeContext {
  businessAccountId: string | undefined;
  field: string;
  /** `entry[].time` when the envelope carries one: it tells two identical template/account updates apart. */
  time: unknown;
  /** Where the change is (`entry[entry].changes[change]`): its paths are made only for an event that carries one. */
  entry: number;
  change: number;
  /** The decoded body: `mayHoldNulls(body)` false means items need no `withoutNulls` copy. */
  body: DecodedBody;
}

/** The path of the change's `value`, or of what is under it: a new array for each event that carries one. */
function valuePath(ctx: ChangeContext, ...under: (string | number)[]): Path {
  return ['entry', ctx.entry, 'changes', ctx.change, 'value', ...under];
}

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const walkMessagesValue = (function walkMessagesValue(value: JsonObject, ctx: ChangeContext, events: WebhookEvent[]): void {
  const metadata = parseMetadata(value['metadata'], ctx);
  const contacts = value['contacts'];
  // Each contact checked once per change, by its index in `contacts`, however many messages name it.
  const contactCache: ContactCache = [];
  const keys = itemKeys(value);
  for (const key of keys) {
    const items = value[key];
    if (!Array.isArray(items)) {
      events.push(
        unknownEvent(ctx, 'invalid_item', valuePath(ctx, key), items, [
          issue([], 'invalid_type', 'Expected an array'),
        ]),
      );
      continue;
    }
    for (let k = 0; k < items.length; k++) {
      const item: unknown = items[k];
      if (!metadata.ok) {
        events.push(withoutMetadata(item, key, ctx, valuePath(ctx, key, k), metadata.issues));
      } else if (key === 'messages') {
        events.push(messageEvent(item, ctx, k, metadata.metadata, contacts, contactCache));
      } else {
        events.push(statusEvent(item, ctx, k, metadata.metadata));
      }
    }
  }
  if (keys.length === 0) events.push(unknownEvent(ctx, 'unrecognized_value', valuePath(ctx), value, []));
});

/** A change `field` the SDK types: the `field` of every event but `unknown`. */
type KnownChangeField = Exclude<WebhookEvent, UnknownEvent>['field'];

/** Turns one change's `value` into its events, appended to `events` in document order. */
type ChangeReader = (value: JsonObject, ctx: ChangeContext, events: WebhookEvent[]) => void;

/**
 * The reader of each change field the SDK types, keyed by field: an event kind added to `WebhookEvent` does not
 * compile until its field has a reader here. A field not in the table becomes an `unknown_field` event.
 */
const changeReaders: { readonly [F in KnownChangeField]: ChangeReader } = {
  messages: walkMessagesValue,
  message_template_status_update: (value, ctx, events) => events.push(templateEvent(value, ctx)),
  account_update: (value, ctx, events) => events.push(accountEvent(value, ctx)),
};

type ItemKey = 'messages' | 'statuses';
const MESSAGES: readonly ItemKey[] = ['messages'];
const STATUSES: readonly ItemKey[] = ['statuses'];
const NEITHER: readonly ItemKey[] = [];

/**
 * The item arrays a change's value holds, in document order (its keys' order) in the odd change that carries
 * both; a change with one, every real one, is answered without listing the value's keys.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const itemKeys = (function itemKeys(value: JsonObject): readonly ItemKey[] {
  const messages = Object.hasOwn(value, 'messages');
  const statuses = Object.hasOwn(value, 'statuses');
  if (messages && statuses)
    return Object.keys(value).filter((k): k is ItemKey => k === 'messages' || k === 'statuses');
  return messages ? MESSAGES : statuses ? STATUSES : NEITHER;
});

type MetadataResult = { ok: true; metadata: WebhookMetadata } | { ok: false; issues: WebhookIssue[] };

/** The change's `value.metadata`, which the spec gives on every `messages` change (both fields required). */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const parseMetadata = (function parseMetadata(raw: unknown, ctx: ChangeContext): MetadataResult {
  const found: RawIssue[] = [];
  const metadata = checkMetadata(mayHoldNulls(ctx.body) ? withoutNulls(raw) : raw, found);
  if (found.length === 0) return { ok: true, metadata };
  return {
    ok: false,
    issues: toIssues(found).map((i) => ({
      ...i,
      path: ['metadata', ...i.path],
      message: `the change's value.metadata: ${i.message}`,
    })),
  };
});

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
  return unknownEvent(ctx, 'invalid_item', path, item, issues, unknownItemKey(item, key));
}

/**
 * The key of a message or status delivered as `unknown`: not the key a valid one has, so a handler that skips
 * `unknown` events does not make a later, well-formed redelivery of the same item look like a duplicate (it would
 * be lost). `undefined` (a content hash) when the item lacks what the key is made of.
 */
function unknownItemKey(item: unknown, key: 'messages' | 'statuses'): string | undefined {
  const id = isRecord(item) ? item['id'] : undefined;
  if (typeof id !== 'string' || id === '') return undefined;
  if (key === 'messages') return `unknown:${id}`;
  const status = isRecord(item) ? item['status'] : undefined;
  return typeof status === 'string' ? `unknown:${id}:${status}` : undefined;
}

/**
 * The sender's contact: the one whose `wa_id` is the message's `from` or whose `user_id` is its `from_user_id`, else
 * the first (per the spec they match; a message identified by neither names no one, and its change's contact is
 * its sender).
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const findContact = (function findContact(contacts: unknown, item: JsonObject, cache: ContactCache, ctx: ChangeContext): WebhookContact | undefined {
  if (!Array.isArray(contacts) || contacts.length === 0) return undefined;
  const from = item['from'];
  const userId = item['from_user_id'];
  let at = 0;
  if (typeof from === 'string' || typeof userId === 'string') {
    for (let i = 0; i < contacts.length; i++) {
      const candidate: unknown = contacts[i];
      if (!isRecord(candidate)) continue;
      const byPhone = typeof from === 'string' && candidate['wa_id'] === from;
      if (byPhone || (typeof userId === 'string' && candidate['user_id'] === userId)) {
        at = i;
        break;
      }
    }
  }
  const cached = cache[at];
  if (cached !== undefined) return cached === null ? undefined : cached;
  const found: RawIssue[] = [];
  const checked = checkContact(mayHoldNulls(ctx.body) ? withoutNulls(contacts[at]) : contacts[at], found);
  const contact = found.length === 0 ? checked : undefined;
  cache[at] = contact ?? null;
  return contact;
});

/** A change's contacts as checked, by index (`null`: it did not fit its schema). */
type ContactCache = (WebhookContact | null | undefined)[];

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const messageEvent = (function messageEvent(
  item: unknown,
  ctx: ChangeContext,
  k: number,
  metadata: WebhookMetadata,
  contacts: unknown,
  contactCache: ContactCache,
): WebhookEvent {
  if (!isRecord(item)) {
    return unknownEvent(ctx, 'invalid_item', valuePath(ctx, 'messages', k), item, [
      issue([], 'invalid_type', 'Expected an object'),
    ]);
  }
  const id = item['id'];
  const type = item['type'];
  if (typeof id !== 'string' || id === '' || typeof type !== 'string' || type === '') {
    const missing = (['id', 'type'] as const).filter((f) => typeof item[f] !== 'string' || item[f] === '');
    const issues = missing.map((f) => issue([f], 'invalid_type', 'Expected a non-empty string'));
    return unknownEvent(ctx, 'invalid_item', valuePath(ctx, 'messages', k), item, issues);
  }
  let message: IncomingMessage;
  const check = Object.hasOwn(messageCheckers, type) ? messageCheckers[type] : null;
  if (check) {
    const found: RawIssue[] = [];
    const checked = check(mayHoldNulls(ctx.body) ? withoutNulls(item) : item, found) as IncomingMessage;
    message =
      found.length === 0 ? withReceivedRaw(checked, item) : unknownMessage(item, id, type, toIssues(found));
  } else {
    message = unknownMessage(item, id, type, []);
  }
  const rawTimestamp = item['timestamp'];
  return {
    kind: 'message',
    field: 'messages',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: id,
    metadata,
    contact: findContact(contacts, item, contactCache, ctx),
    message,
    timestamp: parseTimestamp(rawTimestamp),
    timestampRaw: rawTimestampString(rawTimestamp),
  };
});

/**
 * The schema saw the null-stripped copy; an unknown interactive kind's `raw` is the `interactive` object as
 * received (an `amount: null` is part of what the gateway said), like an unknown message's `raw`.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const withReceivedRaw = (function withReceivedRaw(message: IncomingMessage, item: JsonObject): IncomingMessage {
  if (message.type === 'interactive' && message.interactive.type === 'unknown') {
    message.interactive.raw = item['interactive'] as JsonObject;
  }
  return message;
});

function unknownMessage(item: JsonObject, id: string, type: string, issues: WebhookIssue[]): UnknownMessage {
  const from = item['from'];
  const fromUserId = item['from_user_id'];
  const timestamp = item['timestamp'];
  return {
    type: 'unknown',
    originalType: type,
    id,
    from: typeof from === 'string' ? from : undefined,
    from_user_id: typeof fromUserId === 'string' ? fromUserId : undefined,
    timestamp: typeof timestamp === 'string' || typeof timestamp === 'number' ? timestamp : undefined,
    raw: item,
    issues,
  };
}

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const statusEvent = (function statusEvent(item: unknown, ctx: ChangeContext, k: number, metadata: WebhookMetadata): WebhookEvent {
  const found: RawIssue[] = [];
  const status = checkStatus(mayHoldNulls(ctx.body) ? withoutNulls(item) : item, found);
  if (found.length > 0) {
    return unknownEvent(
      ctx,
      'invalid_item',
      valuePath(ctx, 'statuses', k),
      item,
      toIssues(found),
      unknownItemKey(item, 'statuses'),
    );
  }
  return statusEventOf(status, ctx, metadata);
});

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const statusEventOf = (function statusEventOf(status: WebhookStatus, ctx: ChangeContext, metadata: WebhookMetadata): WebhookEvent {
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
});

/**
 * The event of a change whose `value` is one object of one schema (template status, account update), read by that
 * schema's generated checker, or an `unknown` event with the issues when it does not fit. `hash` covers the entry's
 * `time` and the value.
 */
function valueEvent<T>(
  check: (input: unknown, issues: RawIssue[]) => T,
  value: JsonObject,
  ctx: ChangeContext,
  build: (data: T, hash: string) => WebhookEvent,
): WebhookEvent {
  const found: RawIssue[] = [];
  const data = check(value, found);
  if (found.length > 0) return unknownEvent(ctx, 'invalid_item', valuePath(ctx), value, toIssues(found));
  return build(data, contentHash(ctx.time, value));
}

function templateEvent(value: JsonObject, ctx: ChangeContext): WebhookEvent {
  return valueEvent(checkTemplateStatusValue, value, ctx, (template, hash) => ({
    kind: 'template_status',
    field: 'message_template_status_update',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: `template:${template.message_template_id}:${template.event}:${hash}`,
    template,
  }));
}

function accountEvent(value: JsonObject, ctx: ChangeContext): WebhookEvent {
  // The phone number and ban date are part of the hashed content, not spelled out: keys end up in shared stores.
  return valueEvent(checkAccountUpdateValue, value, ctx, (account, hash) => ({
    kind: 'account_update',
    field: 'account_update',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: `account:${account.event}:${hash}`,
    account,
  }));
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
