/**
 * The predicates, transforms and checks the outbound message schemas call (`message-schema.ts`, `text-schema.ts`),
 * as exported functions of a module that imports no zod: the generated checker (`checkers.generated.ts`) imports
 * and calls these same functions, so a rule written here is the schema's and the checker's at once. A rule with
 * parameters is made by a `ruleFactory`, which the generated file calls with the same arguments.
 */
import { ruleFactory } from '../core/rule-factory.js';
import { charCount } from '../core/text.js';

/** E.164's longest number, country code included. */
export const MAX_RECIPIENT_DIGITS = 15;

/** The recipient is not empty. */
export function recipientGiven(to: string): boolean {
  return to !== '';
}

/** The recipient carries none of the formatting people write numbers with (`+`, spaces, dashes, brackets, dots). */
export function recipientUnformatted(to: string): boolean {
  return !/[+\s\-().]/.test(to);
}

/** The recipient is digits only. */
export function recipientDigitsOnly(to: string): boolean {
  return !/\D/.test(to);
}

/** The recipient starts with its country code, not a 0 (a trunk or international prefix). */
export function recipientHasCountryCode(to: string): boolean {
  return !to.startsWith('0');
}

/** The recipient is no longer than E.164 allows. */
export function recipientWithinE164(to: string): boolean {
  return to.length <= MAX_RECIPIENT_DIGITS;
}

/** A text of at least `min` characters (code points, `charCount`). */
export const atLeastChars = ruleFactory((min: number) => (value: string) => charCount(value) >= min);

/** A text of at most `max` characters (code points, `charCount`). */
export const atMostChars = ruleFactory((max: number) => (value: string) => charCount(value) <= max);

/** An array of at least `min` items. */
export const atLeastItems = ruleFactory((min: number) => (value: readonly unknown[]) => value.length >= min);

/** An array of at most `max` items. */
export const atMostItems = ruleFactory((max: number) => (value: readonly unknown[]) => value.length <= max);

/** A template parameter of type `type` carries the value named after it. */
export const parameterHasValue = ruleFactory(
  (type: string) => (p: Readonly<Record<string, unknown>>) => p['type'] !== type || p[type] !== undefined,
);

/** A button component carries `key`. */
export const buttonHas = ruleFactory(
  (key: string) => (c: Readonly<Record<string, unknown>>) => c['type'] !== 'button' || c[key] !== undefined,
);

/** A component other than a button does not carry `key`. */
export const onlyButtonsHave = ruleFactory(
  (key: string) => (c: Readonly<Record<string, unknown>>) => c['type'] === 'button' || c[key] === undefined,
);

/** A template button's index as the wire wants it: a string. */
export const BUTTON_INDEX = ['0', '1', '2'] as const;

/** A button index given as a number (`0`), as the wire wants it: a string (`'0'`). */
export function buttonIndexText(index: number): (typeof BUTTON_INDEX)[number] {
  return String(index) as (typeof BUTTON_INDEX)[number];
}

/**
 * The gate (`when`) of an array's count and uniqueness checks: they run on any array, even one whose items have
 * issues of their own (every issue at once), and on nothing else (a count of a string would be wrong).
 */
export function onArrays(payload: { value: unknown }): boolean {
  return Array.isArray(payload.value);
}

/** What a check is given and may add issues to (zod's check payload; the generated checker passes its own). */
export interface CheckPayload {
  value: unknown;
  issues: unknown[];
}

/**
 * Reply button ids are unique: one issue at each repeated id (at `[i, 'reply', 'id']`). Run on any array, even
 * when its items have issues of their own (every issue at once); an item without a string id is skipped.
 */
export function uniqueReplyIds(payload: CheckPayload): void {
  const value = payload.value as readonly unknown[];
  const seen = new Set<unknown>();
  for (let i = 0; i < value.length; i++) {
    const id: unknown = (value[i] as { reply?: { id?: unknown } } | undefined)?.reply?.id;
    if (typeof id !== 'string') continue;
    if (seen.has(id)) {
      payload.issues.push({
        code: 'custom',
        input: value,
        path: [i, 'reply', 'id'],
        params: { rule: 'interactive.action.buttons.reply.id.unique' },
        message: 'reply.id must be unique among the buttons',
        continue: true,
      });
    }
    seen.add(id);
  }
}
