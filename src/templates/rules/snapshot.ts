import type { TemplateCategory } from '../schema.js';
import type { TemplatePath } from './shape.js';

// ---------------------------------------------------------------------------------------------------------
// The read-once snapshot the rules see (built by validate.ts; the rules never touch the caller's object).

/** A value that is not plain data at this position: a function, symbol, bigint, mismatched container, ... */
export class Opaque {
  constructor(readonly what: string) {}
}

/** A value whose read threw (a throwing getter or Proxy trap). */
export const UNREADABLE = new Opaque('a value that could not be read (reading it threw)');

/** A template object read once: known fields only, unknown keys listed apart. */
export class SObject {
  constructor(
    readonly path: TemplatePath,
    readonly fields: ReadonlyMap<string, SValue>,
    /** Own enumerable keys the schema does not know (capped). */
    readonly extra: readonly string[],
  ) {}
  get(key: string): SValue {
    return this.fields.get(key);
  }
  /** Present means not `undefined`: what `JSON.stringify` would send. */
  has(key: string): boolean {
    return this.fields.get(key) !== undefined;
  }
  str(key: string): string | undefined {
    const v = this.fields.get(key);
    return typeof v === 'string' ? v : undefined;
  }
  int(key: string): number | undefined {
    const v = this.fields.get(key);
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
  }
  obj(key: string): SObject | undefined {
    const v = this.fields.get(key);
    return v instanceof SObject ? v : undefined;
  }
  arr(key: string): SArray | undefined {
    const v = this.fields.get(key);
    return v instanceof SArray ? v : undefined;
  }
  /** `undefined` or `''`: how required rules see a missing string. */
  missing(key: string): boolean {
    const v = this.fields.get(key);
    return v === undefined || v === '';
  }
}

/** A template list read once. `length` is the real length; only the first items are inspected. */
export class SArray {
  constructor(
    readonly path: TemplatePath,
    readonly items: readonly SValue[],
    readonly length: number,
  ) {}
}

/** A value of the snapshot. */
export type SValue = undefined | null | string | number | boolean | SObject | SArray | Opaque;

/** One place a field key occurs (`buttons.url` occurs once per button), absent values included. */
export interface Occurrence {
  readonly path: TemplatePath;
  readonly value: SValue;
}

/** What a rule's `check` reads. */
export interface RuleContext {
  /** The template, when it is an object. */
  readonly root: SObject | undefined;
  /** The category, only when it is one of the three valid ones. */
  readonly category: TemplateCategory | undefined;
  /** Every value at a field key (`'buttons.url'`; list items: `'buttons[]'`), in document order. */
  at(key: string): readonly Occurrence[];
  /** The objects at a field key. */
  objects(key: string): readonly SObject[];
  /** The lists at a field key. */
  arrays(key: string): readonly SArray[];
  /** Every object of the snapshot (for `unknown_field`). */
  readonly allObjects: readonly SObject[];
}

/** Reports one violation; the validator adds the rule's id, code and the field key. */
export type Emit = (path: TemplatePath, message: string, params?: Record<string, unknown>) => void;

/** One rule of the table. */
export interface TemplateRule {
  /** Stable id, `<section>.<field>.<what>`, e.g. `header.text.max_length`. */
  readonly id: string;
  /** The spec's code for this rule (`WA_TPL_0NN`), or `null` when the spec names none. Never guessed. */
  readonly code: string | null;
  /** The server's `errors.fields` key it reports at: dot-joined, list indices omitted (`buttons.url`). */
  readonly field: string;
  /** What the rule checks, for the docs page. */
  readonly description: string;
  readonly check: (ctx: RuleContext, emit: Emit) => void;
}

/** The documented part of a rule, without its check: what `templateRules` exposes. */
export type TemplateRuleInfo = Pick<TemplateRule, 'id' | 'code' | 'field' | 'description'>;

/**
 * A component (`carousel`, `limitedTimeOffer`, `footer`, `buttons`) is present for cross-field rules when it is
 * there with its right type; a wrong type is its type rule's business alone, so it does not cascade.
 */
export const present = (ctx: RuleContext, key: string) => {
  const v = ctx.root?.get(key);
  return v instanceof SObject || v instanceof SArray;
};
