import { isRecord as isObject } from '../core/plain-data.js';
import { charCount } from '../core/text.js';
import type { ValidatedMessage } from './message-schema.js';

/**
 * The two messages sent most (a text, and a template whose parameters are texts) checked and copied in one pass,
 * for `validateMessage`. On plain data, what it accepts is what `outboundMessageSchema` accepts, with the same
 * output, key order included (`test/fuzz/message-fast-path.test.ts` holds it to that on generated, mutated and
 * hostile inputs). Anything else, valid or not, is `undefined` and goes to the schema, which stays the only source
 * of the rules' wording and of every other shape.
 *
 * It reads each field once and checks its own copy, so what it returns passes every rule it applies even when the
 * input answers differently on each read (a getter with state, a Proxy); the schema, which reads some fields twice,
 * may judge such an input otherwise. When it declines, the schema reads the input again.
 *
 * Why it exists: on a loopback send, zod's walk of a template was the largest cost the SDK adds to a bare fetch
 * (docs/benchmarks.md).
 */
export function fastValidMessage(message: unknown): ValidatedMessage | undefined {
  if (!isObject(message)) return undefined;
  const { to, type } = message;
  if (typeof to !== 'string' || !RECIPIENT.test(to)) return undefined;
  if (type === 'text') {
    if (!onlyKeys(message, TEXT_MESSAGE_KEYS)) return undefined;
    const text = textPart(message['text']);
    return text && { to, type, text };
  }
  if (type === 'template') {
    if (!onlyKeys(message, TEMPLATE_MESSAGE_KEYS)) return undefined;
    const template = templatePart(message['template']);
    return template && { to, type, template };
  }
  return undefined;
}

/** `recipientSchema`'s rules at once: digits only, country code first (no leading 0), at most 15 of them. */
const RECIPIENT = /^[1-9][0-9]{0,14}$/;
const TEXT_BODY_MAX = 4096;
const TEXT_MESSAGE_KEYS = ['to', 'type', 'text'];
const TEMPLATE_MESSAGE_KEYS = ['to', 'type', 'template'];
const TEXT_KEYS = ['body', 'preview_url'];
const TEMPLATE_KEYS = ['name', 'language', 'components'];
const LANGUAGE_KEYS = ['code'];
const COMPONENT_KEYS = ['type', 'parameters'];
const BUTTON_KEYS = ['type', 'sub_type', 'index', 'parameters'];
const BUTTON_ONLY_KEYS = ['sub_type', 'index'];
const PARAMETER_KEYS = ['type', 'text'];
/** The parameter schema's other fields: present even as non-enumerable or inherited, the schema would read them. */
const OTHER_PARAMETER_KEYS = ['image', 'document', 'video', 'currency', 'date_time'];
const BUTTON_INDEX: Readonly<Record<string, '0' | '1' | '2'>> = { 0: '0', 1: '1', 2: '2' };

type Fields = Record<string, unknown>;
type Message<T extends ValidatedMessage['type']> = Extract<ValidatedMessage, { type: T }>;

/** Whether every key `for...in` yields is one of `keys`: a closed object's unknown-key rule. */
function onlyKeys(value: Fields, keys: readonly string[]): boolean {
  for (const key in value) if (!keys.includes(key)) return false;
  return true;
}

/**
 * Whether none of `keys` is `in` the value. The schema reads a field of its shape whenever `key in value`, even one
 * `for...in` does not list (non-enumerable, or inherited so): such a field must not be there unread.
 */
function noneOf(value: Fields, keys: readonly string[]): boolean {
  for (const key of keys) if (key in value) return false;
  return true;
}

const filled = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/**
 * An array of `length` slots, as the schema allocates it before reading any item: a length no array can have (a
 * Proxy's) throws here at once, instead of reading items until memory runs out.
 */
const sized = <T>(length: number): T[] => new Array<T>(length);

function textPart(value: unknown): Message<'text'>['text'] | undefined {
  if (!isObject(value) || !onlyKeys(value, TEXT_KEYS)) return undefined;
  const { body } = value;
  // Code points, as the schema counts (`charCount`); `.length` first, so the common short body counts nothing.
  if (!filled(body) || (body.length > TEXT_BODY_MAX && charCount(body) > TEXT_BODY_MAX)) return undefined;
  if (!('preview_url' in value)) return { body };
  const preview = value['preview_url'];
  return typeof preview === 'boolean' ? { body, preview_url: preview } : undefined;
}

function templatePart(value: unknown): Message<'template'>['template'] | undefined {
  if (!isObject(value) || !onlyKeys(value, TEMPLATE_KEYS)) return undefined;
  const { name, language } = value;
  if (!filled(name) || !isObject(language) || !onlyKeys(language, LANGUAGE_KEYS)) return undefined;
  const { code } = language;
  if (!filled(code)) return undefined;
  if (!('components' in value)) return { name, language: { code } };
  const source = value['components'];
  if (!Array.isArray(source)) return undefined;
  const components: NonNullable<Message<'template'>['template']['components']> = sized(source.length);
  for (let i = 0; i < source.length; i++) {
    const component = componentPart(source[i]);
    if (!component) return undefined;
    components[i] = component;
  }
  return { name, language: { code }, components };
}

type Component = NonNullable<Message<'template'>['template']['components']>[number];

/** A component whose parameters are all texts: a header or body without button fields, or a full button. */
function componentPart(value: unknown): Component | undefined {
  if (!isObject(value)) return undefined;
  const { type } = value;
  if (type === 'header' || type === 'body') {
    if (!onlyKeys(value, COMPONENT_KEYS) || !noneOf(value, BUTTON_ONLY_KEYS)) return undefined;
    const parameters = textParameters(value['parameters']);
    return parameters && { type, parameters };
  }
  if (type !== 'button' || !onlyKeys(value, BUTTON_KEYS)) return undefined;
  const subType = value['sub_type'];
  const index = value['index'];
  if (subType !== 'url' && subType !== 'quick_reply') return undefined;
  // '0'-'2', or 0-2 as the schema turns them into strings. Own keys only: not `toString` from the prototype.
  const wire =
    (typeof index === 'string' || typeof index === 'number') && Object.hasOwn(BUTTON_INDEX, index)
      ? BUTTON_INDEX[index]
      : undefined;
  if (wire === undefined) return undefined;
  const parameters = textParameters(value['parameters']);
  return parameters && { type, sub_type: subType, index: wire, parameters };
}

function textParameters(value: unknown): Component['parameters'] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Component['parameters'] = sized(value.length);
  for (let i = 0; i < value.length; i++) {
    const parameter: unknown = value[i];
    if (
      !isObject(parameter) ||
      !onlyKeys(parameter, PARAMETER_KEYS) ||
      !noneOf(parameter, OTHER_PARAMETER_KEYS)
    ) {
      return undefined;
    }
    const { type, text } = parameter;
    if (type !== 'text' || typeof text !== 'string') return undefined;
    out[i] = { type, text };
  }
  return out;
}
