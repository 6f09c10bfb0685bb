/**
 * `validateTemplate`: runs the rule table over a template create request. Pure, synchronous, and it never
 * throws, whatever it is given.
 *
 * The input is read exactly once into a snapshot of plain data (`SObject`/`SArray`), guided by the schema's
 * shape: only own enumerable properties are read (what `JSON.stringify` would send), every read is guarded
 * (throwing getters and Proxy traps become an "unreadable" value), recursion follows the schema only (so cyclic
 * objects cannot loop), and lists are inspected up to 1,000 items (their real length still counts). The rules
 * then see the snapshot only, so a getter that changes its answer cannot make two rules disagree.
 */
import { type TemplateIssue, TemplateValidationError } from '../core/errors.js';
import {
  type Emit,
  INTERNAL_ERROR_RULE,
  type Occurrence,
  Opaque,
  type RuleContext,
  SArray,
  type Shape,
  SObject,
  type SValue,
  TEMPLATE_RULES,
  TEMPLATE_SHAPE,
  type TemplatePath,
  type TemplateRule,
  UNREADABLE,
} from './rules.js';
import type { TemplateCategory, TemplateCreateRequest } from './schema.js';

export type { TemplateIssue };

/**
 * The result of `validateTemplate`. `valid` is `true` exactly when `issues` is empty, and then `template` is
 * the input, typed: checking `valid` narrows it, so form input can go straight to `templates.create`.
 */
export type TemplateValidationResult =
  | { valid: true; issues: []; template: TemplateCreateRequest }
  | { valid: false; issues: TemplateIssue[] };

/** Lists longer than this are counted but only their first items are inspected. */
const MAX_ITEMS = 1000;
/** Unknown keys listed per object (a hostile object may have millions); `unknown_field` reports this many. */
const MAX_EXTRA_KEYS = 20;

const EMPTY: readonly never[] = Object.freeze([]);
const isEnumerable = Object.prototype.propertyIsEnumerable;

/**
 * Reads the input once into the snapshot and indexes every value by field key. A class rather than closures,
 * so a validation allocates no function objects.
 */
class Snapshot {
  readonly index = new Map<string, Occurrence[]>();
  readonly objects: SObject[] = [];
  readonly root: SValue;

  constructor(input: unknown) {
    this.root = this.convert(input, TEMPLATE_SHAPE, [], '');
    this.record('', [], this.root);
  }

  private record(key: string, path: TemplatePath, value: SValue): void {
    let list = this.index.get(key);
    if (list === undefined) {
      list = [];
      this.index.set(key, list);
    }
    list.push({ path, value });
  }

  /** `key` is the field key of the value (`buttons`); its fields are `buttons.type`, its items `buttons[]`. */
  private convert(raw: unknown, shape: Shape, path: TemplatePath, key: string): SValue {
    switch (typeof raw) {
      case 'undefined':
      case 'string':
      case 'number':
      case 'boolean':
        return raw;
      case 'bigint':
      case 'symbol':
      case 'function':
        return new Opaque(`a ${typeof raw}`);
    }
    if (raw === null) return null;
    let isArray: boolean;
    try {
      isArray = Array.isArray(raw);
    } catch {
      return UNREADABLE; // a revoked Proxy
    }
    if (shape.kind === 'object' && !isArray)
      return this.object(raw as Record<string, unknown>, shape, path, key);
    if (shape.kind === 'array' && isArray) return this.array(raw as unknown[], shape.item, path, key);
    return new Opaque(isArray ? 'an array' : 'an object');
  }

  private object(
    source: Record<string, unknown>,
    shape: Shape & { kind: 'object' },
    path: TemplatePath,
    key: string,
  ) {
    const fields = new Map<string, SValue>();
    const extra: string[] = [];
    const node = new SObject(path, fields, extra);
    this.objects.push(node);
    // Own enumerable string keys: exactly what JSON.stringify would send. Absent fields are not recorded.
    let keys: string[] | undefined;
    try {
      keys = Object.keys(source);
    } catch {
      keys = undefined; // a Proxy whose ownKeys trap throws: fall back to probing the known fields one by one
    }
    if (keys !== undefined) {
      for (const k of keys) {
        const field = shape.fields.get(k);
        if (field !== undefined) this.field(source, k, field.shape, fields, path, key);
        else if (extra.length < MAX_EXTRA_KEYS) extra.push(k);
      }
    } else {
      for (const [k, field] of shape.fields) {
        let enumerable: boolean;
        try {
          enumerable = isEnumerable.call(source, k);
        } catch {
          fields.set(k, UNREADABLE);
          this.record(key === '' ? k : `${key}.${k}`, [...path, k], UNREADABLE);
          continue;
        }
        if (enumerable) this.field(source, k, field.shape, fields, path, key);
      }
    }
    return node;
  }

  private field(
    source: Record<string, unknown>,
    k: string,
    shape: Shape,
    fields: Map<string, SValue>,
    path: TemplatePath,
    key: string,
  ): void {
    const childPath = [...path, k];
    const childKey = key === '' ? k : `${key}.${k}`;
    let value: SValue;
    try {
      value = this.convert(source[k], shape, childPath, childKey);
    } catch {
      value = UNREADABLE;
    }
    if (value === undefined) return;
    fields.set(k, value);
    this.record(childKey, childPath, value);
  }

  private array(source: unknown[], item: Shape, path: TemplatePath, key: string): SValue {
    let length = 0;
    try {
      const l: unknown = source.length;
      length = typeof l === 'number' && l > 0 ? Math.min(Math.floor(l), 2 ** 32 - 1) : 0;
    } catch {
      return UNREADABLE;
    }
    const items: SValue[] = [];
    const n = Math.min(length, MAX_ITEMS);
    for (let i = 0; i < n; i++) {
      const itemPath = [...path, i];
      let value: SValue;
      try {
        value = this.convert(source[i], item, itemPath, key);
      } catch {
        value = UNREADABLE;
      }
      items.push(value);
      this.record(`${key}[]`, itemPath, value);
    }
    return new SArray(path, items, length);
  }
}

const CATEGORIES: ReadonlySet<string> = new Set<TemplateCategory>(['UTILITY', 'MARKETING', 'AUTHENTICATION']);

/** What the rules read. Many rules ask for the same keys ('buttons[]'): each is filtered once per validation. */
class Context implements RuleContext {
  readonly root: SObject | undefined;
  readonly category: TemplateCategory | undefined;
  readonly allObjects: readonly SObject[];
  private readonly index: ReadonlyMap<string, Occurrence[]>;
  private readonly objectCache = new Map<string, readonly SObject[]>();
  private readonly arrayCache = new Map<string, readonly SArray[]>();

  constructor(snap: Snapshot) {
    this.root = snap.root instanceof SObject ? snap.root : undefined;
    const category = this.root?.get('category');
    this.category =
      typeof category === 'string' && CATEGORIES.has(category) ? (category as TemplateCategory) : undefined;
    this.allObjects = snap.objects;
    this.index = snap.index;
  }

  at(key: string): readonly Occurrence[] {
    return this.index.get(key) ?? EMPTY;
  }

  objects(key: string): readonly SObject[] {
    let out = this.objectCache.get(key);
    if (out === undefined) {
      const list: SObject[] = [];
      for (const o of this.at(key)) if (o.value instanceof SObject) list.push(o.value);
      out = list;
      this.objectCache.set(key, out);
    }
    return out;
  }

  arrays(key: string): readonly SArray[] {
    let out = this.arrayCache.get(key);
    if (out === undefined) {
      const list: SArray[] = [];
      for (const o of this.at(key)) if (o.value instanceof SArray) list.push(o.value);
      out = list;
      this.arrayCache.set(key, out);
    }
    return out;
  }
}

/** The server's `errors.fields` key of a path: string segments dot-joined, indices dropped. */
function fieldOf(path: TemplatePath): string {
  let out = '';
  for (const seg of path) if (typeof seg === 'string') out = out === '' ? seg : `${out}.${seg}`;
  return out;
}

function descend(shape: Shape | undefined, seg: string | number): Shape | undefined {
  if (shape?.kind === 'object' && typeof seg === 'string') return shape.fields.get(seg)?.shape;
  if (shape?.kind === 'array' && typeof seg === 'number') return shape.item;
  return undefined;
}

function rank(shape: Shape | undefined, key: string): number {
  return shape?.kind === 'object'
    ? (shape.order.get(key) ?? Number.MAX_SAFE_INTEGER)
    : Number.MAX_SAFE_INTEGER;
}

/** Document order: the spec's field order at each level, list items by index, a parent before its fields. */
function comparePaths(a: TemplatePath, b: TemplatePath): number {
  let shape: Shape | undefined = TEMPLATE_SHAPE;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) {
      if (typeof x === 'number' && typeof y === 'number') return x - y;
      if (typeof x === 'string' && typeof y === 'string') return rank(shape, x) - rank(shape, y);
      return typeof x === 'number' ? -1 : 1;
    }
    shape = descend(shape, x);
  }
  return a.length - b.length;
}

function run(input: unknown): TemplateIssue[] {
  const ctx = new Context(new Snapshot(input));
  const issues: TemplateIssue[] = [];
  // One emit for all rules (no closure per rule per call); `current` is the rule being run.
  let current: TemplateRule = INTERNAL_ERROR_RULE;
  const emit: Emit = (path, message, params) => {
    const issue: TemplateIssue = {
      code: current.code,
      rule: current.id,
      path: [...path],
      field: fieldOf(path),
      message,
    };
    if (params !== undefined) issue.params = params;
    issues.push(issue);
  };
  for (const rule of TEMPLATE_RULES) {
    current = rule;
    try {
      rule.check(ctx, emit);
    } catch (error) {
      issues.push(internalError(error, rule.id));
    }
  }
  // Array.prototype.sort is stable: issues at the same path keep the table's order.
  return issues.sort((p, q) => comparePaths(p.path, q.path));
}

function internalError(error: unknown, ruleId?: string): TemplateIssue {
  let detail = 'unknown error';
  try {
    detail = error instanceof Error ? error.message.slice(0, 200) : 'non-Error thrown';
  } catch {
    // An exotic error object; the generic detail will do.
  }
  return {
    code: INTERNAL_ERROR_RULE.code,
    rule: INTERNAL_ERROR_RULE.id,
    path: [],
    field: '',
    message: `The validator failed${ruleId ? ` in rule ${ruleId}` : ''} (${detail}); please report this SDK bug.`,
    params: ruleId ? { rule: ruleId } : {},
  };
}

/**
 * Checks a template create request against every rule the spec states, and reports every problem at once, in
 * document order. Pure and synchronous; it never throws, whatever `input` is.
 *
 * Each issue carries the spec's code where the spec names one (else `null`), a stable rule id, the exact path
 * (with list indices) and the server's `errors.fields` key (`field`, indices omitted), so the same code can show
 * local and server errors next to a form field.
 *
 * @example
 * const { valid, issues } = validateTemplate({
 *   name: 'order_update', language: 'en', category: 'UTILITY',
 *   body: { text: 'Your order {{1}} has shipped.', examples: ['#1234'] },
 *   buttons: [{ type: 'URL', text: 'Track', url: 'http://example.com' }],
 * });
 * // valid === false; issues[0]: { code: null, rule: 'buttons.url.https', field: 'buttons.url',
 * //   path: ['buttons', 0, 'url'], message: 'Button 1 url "http://example.com" must start with https://.' }
 */
export function validateTemplate(input: unknown): TemplateValidationResult {
  let issues: TemplateIssue[];
  try {
    issues = run(input);
  } catch (error) {
    issues = [internalError(error)];
  }
  return issues.length === 0
    ? { valid: true, issues: [], template: input as TemplateCreateRequest }
    : { valid: false, issues };
}

/**
 * Like `validateTemplate`, but throws a `TemplateValidationError` carrying every issue when the template is
 * invalid, and narrows `input` to `TemplateCreateRequest` when it is valid.
 *
 * @example
 * try {
 *   assertValidTemplate(draft);
 *   await client.templates.create(appId, draft, { validate: false });
 * } catch (error) {
 *   if (error instanceof TemplateValidationError) showInForm(error.issues);
 * }
 */
export function assertValidTemplate(input: unknown): asserts input is TemplateCreateRequest {
  const result = validateTemplate(input);
  if (!result.valid) throw new TemplateValidationError(result.issues);
}
