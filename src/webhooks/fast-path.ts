/**
 * Hand-written twins of the schemas on the hottest webhook path: `value.metadata`, a contact, a `text` message and
 * a status. zod builds and compiles each object parser on its first use, which a serverless function pays on the
 * first delivery after every cold start; the twins need no build, and are cheaper warm too.
 *
 * A twin answers only when it is sure, with exactly what the schema's `safeParse(input).data` would be (same
 * objects, same key order: the shape's keys in shape order, then the other keys in `for...in` order, `__proto__`
 * left out, as zod's loose objects build them). Anything else, an input zod would accept but the twin does not know
 * (an optional key present as `undefined`) included, gets `undefined`, and the caller runs the schema, which stays
 * the one source of the types, of the rules and of every issue's wording. A twin reads each property once, and
 * never throws: an accessor that throws means `undefined` too.
 *
 * The message and status twins stand in for the schema run on `withoutNulls(item)` (body.ts), but take the item as
 * received: they answer only for an item without a `null` anywhere (for which `withoutNulls` changes nothing), so a
 * delivery need not be searched for one first. The metadata and contact schemas see their input as it is, and so do
 * their twins.
 *
 * test/fuzz/webhook-fast-path.test.ts holds every twin to its schema's output, and test/webhooks/fast-path.test.ts
 * holds the key lists below to the schemas' shapes.
 */
// zod's object test (`util.isObject`): what a loose object accepts as its input.
import { isRecord as isObj } from '../core/plain-data.js';
import type { TextMessage } from './messages/text.js';
import type { WebhookContact, WebhookMetadata } from './schemas.js';
import type { WebhookStatus } from './status.js';

type Obj = Record<string, unknown>;

/** `z.union([z.string(), z.number()])`: zod's numbers are finite. */
function isTimestamp(value: unknown): boolean {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * `out` with `input`'s keys outside `shape` added, as a loose object's catchall adds them (`for...in`, the value as
 * it is, `__proto__` skipped: assigning it would set the result's prototype).
 */
function withRest(input: Obj, out: Obj, shape: ReadonlySet<string>): Obj {
  for (const key in input) {
    if (!shape.has(key) && key !== '__proto__') out[key] = input[key];
  }
  return out;
}

/** How many values `nullFree` looks at before it gives up (a cycle, or a huge unknown field) and lets zod decide. */
export const NULL_SEARCH_BOUND = 1000;

/** Whether `value` holds no `null`, at any depth; `false` too past a bound on the values looked at (a cycle). */
function nullFree(value: unknown): boolean {
  if (value === null) return false;
  if (typeof value !== 'object') return true;
  const stack: unknown[] = [value];
  // Charged before a container's values are pushed, so a wide array costs the bound, not its length.
  let budget = NULL_SEARCH_BOUND;
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null) return false;
    if (typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      budget -= next.length;
      if (budget < 0) return false;
      for (let i = 0; i < next.length; i++) stack.push(next[i]);
    } else {
      const keys = Object.keys(next);
      budget -= keys.length;
      if (budget < 0) return false;
      for (const key of keys) stack.push((next as Obj)[key]);
    }
  }
  return true;
}

/** `withRest` for the message and status twins: `undefined` when a value it would copy holds a `null`. */
function restOf(input: Obj, out: Obj, shape: ReadonlySet<string>): Obj | undefined {
  for (const key in input) {
    if (shape.has(key) || key === '__proto__') continue;
    const value = input[key];
    if (!nullFree(value)) return undefined;
    out[key] = value;
  }
  return out;
}

/**
 * Sets the optional `key` of `out` from `value` (`input[key]`, already read) as zod does: absent stays absent, a
 * value is what `copy` makes of it. `false` when the twin is not sure: `copy` refused, or the key is present as
 * `undefined` (zod keeps such a key).
 */
function optional(out: Obj, input: Obj, key: string, value: unknown, copy: (v: unknown) => unknown): boolean {
  if (value === undefined) return !(key in input);
  const copied = copy(value);
  if (copied === undefined) return false;
  out[key] = copied;
  return true;
}

function string(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// The shape keys of each schema, in shape order (test/webhooks/fast-path.test.ts compares them to the schemas).
export const FAST_PATH_SHAPES = {
  metadata: new Set(['phone_number_id', 'display_phone_number']),
  contact: new Set(['wa_id', 'profile']),
  profile: new Set(['name']),
  text: new Set(['id', 'from', 'timestamp', 'context', 'type', 'text']),
  context: new Set(['from', 'id']),
  textBody: new Set(['body']),
  status: new Set(['id', 'status', 'timestamp', 'recipient_id', 'conversation', 'pricing', 'errors']),
  conversation: new Set(['id', 'origin']),
  origin: new Set(['type']),
  pricing: new Set(['billable', 'pricing_model', 'category']),
  statusError: new Set(['code', 'title', 'message', 'error_data']),
  errorData: new Set(['details']),
} as const;
const S = FAST_PATH_SHAPES;

// Each copier below returns its schema's output, or `undefined` when the twin is not sure of it.

function metadata(m: Obj): Obj | undefined {
  const phoneNumberId = m['phone_number_id'];
  const display = m['display_phone_number'];
  if (typeof phoneNumberId !== 'string' || typeof display !== 'string') return undefined;
  return withRest(m, { phone_number_id: phoneNumberId, display_phone_number: display }, S.metadata);
}

function contact(c: Obj): Obj | undefined {
  const waId = c['wa_id'];
  const profile = c['profile'];
  if (typeof waId !== 'string' || !isObj(profile)) return undefined;
  const name = profile['name'];
  if (typeof name !== 'string') return undefined;
  return withRest(c, { wa_id: waId, profile: withRest(profile, { name }, S.profile) }, S.contact);
}

function context(c: unknown): Obj | undefined {
  if (!isObj(c)) return undefined;
  const from = c['from'];
  const id = c['id'];
  const out: Obj = {};
  if (!optional(out, c, 'from', from, string) || !optional(out, c, 'id', id, string)) return undefined;
  return restOf(c, out, S.context);
}

function textMessage(m: Obj): Obj | undefined {
  const id = m['id'];
  const from = m['from'];
  const timestamp = m['timestamp'];
  const rawContext = m['context'];
  const type = m['type'];
  const text = m['text'];
  if (typeof id !== 'string' || id === '' || typeof from !== 'string') return undefined;
  if (!isTimestamp(timestamp) || type !== 'text' || !isObj(text)) return undefined;
  const body = text['body'];
  if (typeof body !== 'string') return undefined;
  const out: Obj = { id, from, timestamp };
  if (!optional(out, m, 'context', rawContext, context)) return undefined;
  const textOut = restOf(text, { body }, S.textBody);
  if (textOut === undefined) return undefined;
  out['type'] = type;
  out['text'] = textOut;
  return restOf(m, out, S.text);
}

function origin(o: unknown): Obj | undefined {
  if (!isObj(o)) return undefined;
  const type = o['type'];
  return typeof type === 'string' ? restOf(o, { type }, S.origin) : undefined;
}

function conversation(c: unknown): Obj | undefined {
  if (!isObj(c)) return undefined;
  const id = c['id'];
  const rawOrigin = c['origin'];
  if (typeof id !== 'string') return undefined;
  const out: Obj = { id };
  return optional(out, c, 'origin', rawOrigin, origin) ? restOf(c, out, S.conversation) : undefined;
}

function pricing(p: unknown): Obj | undefined {
  if (!isObj(p)) return undefined;
  const billable = p['billable'];
  const model = p['pricing_model'];
  const category = p['category'];
  if (typeof billable !== 'boolean' || typeof model !== 'string' || typeof category !== 'string')
    return undefined;
  return restOf(p, { billable, pricing_model: model, category }, S.pricing);
}

function statusError(e: unknown): Obj | undefined {
  if (!isObj(e)) return undefined;
  const code = e['code'];
  const title = e['title'];
  const message = e['message'];
  const data = e['error_data'];
  // `z.int()`: a number, an integer, and a safe one.
  if (!Number.isSafeInteger(code) || typeof title !== 'string' || typeof message !== 'string')
    return undefined;
  if (!isObj(data)) return undefined;
  const details = data['details'];
  if (typeof details !== 'string') return undefined;
  const errorData = restOf(data, { details }, S.errorData);
  if (errorData === undefined) return undefined;
  return restOf(e, { code, title, message, error_data: errorData }, S.statusError);
}

function statusErrors(list: unknown): Obj[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const length = list.length;
  const out: Obj[] = [];
  for (let i = 0; i < length; i++) {
    const copy = statusError(list[i]);
    if (copy === undefined) return undefined;
    out.push(copy);
  }
  return out;
}

function status(s: Obj): Obj | undefined {
  const id = s['id'];
  const value = s['status'];
  const timestamp = s['timestamp'];
  const recipient = s['recipient_id'];
  const rawConversation = s['conversation'];
  const rawPricing = s['pricing'];
  const rawErrors = s['errors'];
  if (typeof id !== 'string' || id === '' || typeof value !== 'string' || value === '') return undefined;
  if (!isTimestamp(timestamp) || typeof recipient !== 'string') return undefined;
  const out: Obj = { id, status: value, timestamp, recipient_id: recipient };
  if (
    !optional(out, s, 'conversation', rawConversation, conversation) ||
    !optional(out, s, 'pricing', rawPricing, pricing) ||
    !optional(out, s, 'errors', rawErrors, statusErrors)
  ) {
    return undefined;
  }
  return restOf(s, out, S.status);
}

/**
 * A twin that takes anything and never throws: a non-object or an accessor that throws gives `undefined`. Typed as
 * the schema's output, which the property tests hold it to.
 */
function guarded<T>(copy: (input: Obj) => Obj | undefined): (input: unknown) => T | undefined {
  return (input: unknown): T | undefined => {
    try {
      return (isObj(input) ? copy(input) : undefined) as T | undefined;
    } catch {
      return undefined;
    }
  };
}

/** `metadataSchema`'s output for `input`, or `undefined`: run the schema. */
export const fastMetadata = guarded<WebhookMetadata>(metadata);
/** `contactSchema`'s output for `input`, or `undefined`: run the schema. */
export const fastContact = guarded<WebhookContact>(contact);
/** `textMessageSchema`'s output for `input`, or `undefined`: run the schema. */
export const fastTextMessage = guarded<TextMessage>(textMessage);
/** `statusSchema`'s output for `input`, or `undefined`: run the schema. */
export const fastStatus = guarded<WebhookStatus>(status);
