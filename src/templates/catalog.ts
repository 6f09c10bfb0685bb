/**
 * `TemplateCatalog`: what templates exist, in which languages and in what state, so a template send can be
 * refused before any request when the gateway would refuse it. It learns from the definitions the application
 * gives it, from `templates.create` answers and from `message_template_status_update` events, and keeps what
 * it learns in a store (in memory by default, `RedisTemplateStore` to share it between instances).
 */
import { ConfigurationError, MessageValidationError } from '../core/errors.js';
import type { TemplateStatusValue } from '../webhooks/template-status.js';
import type { TemplateDefinition } from './define.js';
import { checkTemplatePatch } from './record-patch.js';
import type { TemplateCreated } from './schema.js';
import {
  languageProblem,
  parameterProblem,
  statusProblem,
  TemplateSendError,
  type TemplateSendInput,
  type TemplateSendProblem,
  unknownProblem,
} from './send-check.js';
import { assertValidTemplate } from './validate.js';

/**
 * What a store keeps per template name and language. `status` is the last status learnt (a create answer's
 * `PENDING`, an event's `APPROVED`, `REJECTED`, `PAUSED`, `FLAGGED`...), `reason` a rejection's reason.
 */
export interface TemplateRecord {
  name: string;
  language: string;
  status?: string;
  reason?: string | null;
  /** The upstream template id (`sourceId` of the create answer, `message_template_id` of its events). */
  sourceId?: string;
  /** The definition, when it was created through the catalogue (so instances without it can check sends). */
  definition?: TemplateDefinition;
  /** When the record last changed, ms since the epoch. */
  updatedAt?: number;
}

/** The fields of a record to set; `reason: null` clears a reason. */
export type TemplateRecordPatch = Omit<TemplateRecord, 'name' | 'language' | 'updatedAt'>;

/**
 * Where a catalogue keeps what it learns. `update` merges the patch into the record (creating it) in one step,
 * so two instances writing different fields of one template never undo each other.
 */
export interface TemplateStore {
  get(name: string, language: string): Promise<TemplateRecord | undefined>;
  update(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord>;
  /** Every record (the catalogue reads it only to name the languages a template has). */
  list(): Promise<TemplateRecord[]>;
}

/** The fields a patch may set: anything else in it (a `name`, a `__proto__`) is not merged. */
const PATCH_FIELDS = [
  'status',
  'reason',
  'sourceId',
  'definition',
] as const satisfies readonly (keyof TemplateRecordPatch)[];

/**
 * `previous` with `patch` merged in, as every `TemplateStore.update` merges: an absent field is kept, `reason: null`
 * clears the reason, and `updatedAt` becomes `now`. A new object; `previous` is not changed.
 *
 * @example
 * const next = mergeTemplateRecord(stored, 'order_shipped', 'en_US', { status: 'PAUSED' }, Date.now());
 */
export function mergeTemplateRecord(
  previous: TemplateRecord | undefined,
  name: string,
  language: string,
  patch: TemplateRecordPatch,
  now: number,
): TemplateRecord {
  const next: TemplateRecord = { ...previous, name, language, updatedAt: now };
  for (const field of PATCH_FIELDS) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null && field === 'reason') delete next.reason;
    else (next as unknown as Record<string, unknown>)[field] = value;
  }
  return next;
}

/**
 * The default store: a `Map` in this process. Correct for one process only; with several instances, a status
 * event reaches one of them: use `RedisTemplateStore` (`wa-gateway-sdk/redis`) so that every instance sees it.
 *
 * @example
 * const catalog = new TemplateCatalog({ definitions, store: new MemoryTemplateStore() });
 */
export class MemoryTemplateStore implements TemplateStore {
  readonly #records = new Map<string, TemplateRecord>();

  async get(name: string, language: string): Promise<TemplateRecord | undefined> {
    const record = this.#records.get(keyOf(name, language));
    return record && { ...record };
  }

  async update(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord> {
    checkTemplatePatch('MemoryTemplateStore.update', patch);
    const key = keyOf(name, language);
    const next = mergeTemplateRecord(this.#records.get(key), name, language, patch, Date.now());
    this.#records.set(key, next);
    return { ...next };
  }

  async list(): Promise<TemplateRecord[]> {
    return [...this.#records.values()].map((r) => ({ ...r }));
  }
}

export interface TemplateCatalogOptions {
  /** The templates the application sends, from `defineTemplate` (or JSON create requests). Validated here. */
  definitions?: Iterable<TemplateDefinition> | undefined;
  /** Where statuses are kept. Default: a `MemoryTemplateStore` (this process only). */
  store?: TemplateStore | undefined;
}

/** A template as the catalogue knows it: its definition (from code or the store) and its stored state. */
export interface CatalogEntry extends TemplateRecord {
  definition?: TemplateDefinition;
}

/** One row of `push`: what happened to one definition. */
export interface TemplatePushResult {
  name: string;
  language: string;
  /**
   * `created` now; `exists` (a 409 `UPSTREAM_017`); `skipped` (created before); `failed` (see `error`). A `failed`
   * row with a `sourceId` was created upstream, but the store could not record it: do not create it again.
   */
  result: 'created' | 'exists' | 'skipped' | 'failed';
  status?: string | undefined;
  sourceId?: string | undefined;
  error?: string;
}

/** One template for `record`: the state a list call (or any other source) reports. */
export interface TemplateStateInput {
  name: string;
  language: string;
  status: string;
  sourceId?: string | number | undefined;
  reason?: string | null | undefined;
}

/**
 * What templates exist, in which languages and states: the catalogue a `GatewayClient` checks template sends
 * against (`new GatewayClient({ …, templates: catalog })`). A send of a template it does not know, in a language
 * it does not have, not `APPROVED`, or with parameters that do not match its definition is refused with a
 * `TemplateSendError` before any request.
 *
 * Filling it: the spec shows no list or detail operation, so a catalogue learns from what the application sees:
 * - its definitions (`definitions`), from code; they carry no status;
 * - `recordCreated(definition, created)` with each `templates.create` answer (`wa-gateway templates push` and
 *   `push()` do it), and `record({ name, language, status })` for templates created elsewhere (the dashboard),
 *   or from a list call made with `PublicApiClient.request` (`refresh(load)`);
 * - `apply(event)` with every webhook event: `message_template_status_update` events set the status.
 *
 * @example
 * const catalog = new TemplateCatalog({ definitions: [orderShipped] });
 * const gw = new GatewayClient({ apiKey, baseUrl, templates: catalog });
 * const handler = createWebhookHandler({ secret, onEvent: (event) => catalog.apply(event) });
 */
export class TemplateCatalog {
  readonly store: TemplateStore;
  /**
   * @internal Whether the store is this process's memory (it answers at once and cannot hang). Asked here, so a
   * module that only holds a catalogue imports none of this file's values (its bundle chunks stay apart).
   */
  get storeIsLocal(): boolean {
    return this.store instanceof MemoryTemplateStore;
  }
  readonly #definitions = new Map<string, TemplateDefinition>();

  constructor(options: TemplateCatalogOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new ConfigurationError('new TemplateCatalog(options) takes { definitions?, store? }.');
    const store = options.store ?? new MemoryTemplateStore();
    if (
      typeof store.get !== 'function' ||
      typeof store.update !== 'function' ||
      typeof store.list !== 'function'
    )
      throw new ConfigurationError(
        'TemplateCatalog store must have get, update and list (see TemplateStore).',
      );
    this.store = store;
    for (const definition of options.definitions ?? []) this.define(definition);
  }

  /**
   * Adds a definition (validated: an invalid one throws `TemplateValidationError`). Returns it.
   *
   * @example
   * catalog.define(orderShipped);
   */
  define<D extends TemplateDefinition>(definition: D): D {
    assertValidTemplate(definition);
    this.#definitions.set(keyOf(definition.name, definition.language), definition);
    return definition;
  }

  /** The definitions given in code, in the order given. */
  definitions(): TemplateDefinition[] {
    return [...this.#definitions.values()];
  }

  /**
   * What the catalogue knows of a template: the definition (from code, else from the store) and its state.
   *
   * @example
   * const entry = await catalog.get('order_shipped', 'en_US'); // { status: 'APPROVED', sourceId, definition, ... }
   */
  async get(name: string, language: string): Promise<CatalogEntry | undefined> {
    const definition = this.#definitions.get(keyOf(name, language));
    const stored = await this.store.get(name, language);
    if (!stored && !definition) return undefined;
    const entry: CatalogEntry = { ...stored, name, language };
    const known = definition ?? stored?.definition;
    if (known) entry.definition = known;
    return entry;
  }

  /** The languages the catalogue knows template `name` in (definitions and store), sorted. */
  async languages(name: string): Promise<string[]> {
    const found = new Set<string>();
    for (const d of this.#definitions.values()) if (d.name === name) found.add(d.language);
    for (const r of await this.store.list()) if (r.name === name) found.add(r.language);
    return [...found].sort();
  }

  /**
   * Records a `templates.create` answer: its `sourceId` and status (usually `PENDING`), with the definition.
   *
   * @example
   * catalog.recordCreated(orderShipped, await api.templates.create(appId, orderShipped));
   */
  recordCreated(definition: TemplateDefinition, created: TemplateCreated): Promise<TemplateRecord> {
    return this.store.update(definition.name, definition.language, {
      status: created.status,
      sourceId: created.sourceId,
      definition,
      reason: null,
    });
  }

  /**
   * Records the state of a template learnt elsewhere: created in the dashboard, or read with a list call.
   *
   * @example
   * await catalog.record({ name: 'order_shipped', language: 'en_US', status: 'APPROVED' });
   */
  record(state: TemplateStateInput): Promise<TemplateRecord> {
    if (
      typeof state?.name !== 'string' ||
      typeof state.language !== 'string' ||
      typeof state.status !== 'string'
    )
      throw new ConfigurationError('catalog.record takes { name, language, status } strings.');
    return this.store.update(state.name, state.language, {
      status: state.status,
      ...(state.sourceId !== undefined ? { sourceId: String(state.sourceId) } : {}),
      reason: state.status === 'REJECTED' ? (state.reason ?? null) : null,
    });
  }

  /**
   * The hook for a list call the spec does not show: `load` returns the templates' states (for instance from
   * `api.request('GET', …)` with the path your platform documents), and each is recorded. Resolves to how many.
   *
   * @example
   * await catalog.refresh(async () => toStates(await api.request('GET', listPath)));
   */
  async refresh(load: () => Promise<Iterable<TemplateStateInput>>): Promise<number> {
    let n = 0;
    for (const state of await load()) {
      await this.record(state);
      n++;
    }
    return n;
  }

  /**
   * Creates every definition the catalogue has not seen created (no `sourceId` stored), idempotent by name and
   * language: a `409 UPSTREAM_017` means it exists already, which is recorded, not failed. Returns one row per
   * definition; a failure (an invalid definition, a refused key, a store that fails) is a row too, never a throw,
   * so one bad template does not hide the others. A template created upstream that the store could not record is
   * a `failed` row that keeps its `sourceId`.
   *
   * @example
   * for (const row of await catalog.push(api, 'app_123')) console.log(row.name, row.language, row.result);
   */
  async push(
    api: { templates: { create(appId: string, template: TemplateDefinition): PromiseLike<TemplateCreated> } },
    appId: string,
  ): Promise<TemplatePushResult[]> {
    const rows: TemplatePushResult[] = [];
    for (const definition of this.#definitions.values())
      rows.push(await this.#pushOne(api, appId, definition));
    return rows;
  }

  /** `push`'s row for one definition: every step's failure (the store's included) is the row's `error`. */
  async #pushOne(
    api: { templates: { create(appId: string, template: TemplateDefinition): PromiseLike<TemplateCreated> } },
    appId: string,
    definition: TemplateDefinition,
  ): Promise<TemplatePushResult> {
    const { name, language } = definition;
    const failed = (error: unknown, what = ''): TemplatePushResult => ({
      name,
      language,
      result: 'failed',
      error: `${what}${error instanceof Error ? error.message : String(error)}`,
    });
    let stored: TemplateRecord | undefined;
    try {
      stored = await this.store.get(name, language);
    } catch (error) {
      return failed(error, 'the store could not be read, so nothing was created: ');
    }
    if (stored?.sourceId !== undefined)
      return { name, language, result: 'skipped', status: stored.status, sourceId: stored.sourceId };
    let created: TemplateCreated;
    try {
      created = await api.templates.create(appId, definition);
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== 'UPSTREAM_017') return failed(error);
      try {
        const record = await this.store.update(name, language, { definition });
        return { name, language, result: 'exists', status: record.status, sourceId: record.sourceId };
      } catch (error) {
        return failed(error, 'it exists upstream (409 UPSTREAM_017), but the store could not record it: ');
      }
    }
    try {
      const record = await this.recordCreated(definition, created);
      return { name, language, result: 'created', status: record.status, sourceId: record.sourceId };
    } catch (error) {
      // Created upstream: the row keeps what the create answered, so nobody takes it for a template to create.
      return {
        ...failed(
          error,
          `created upstream (sourceId ${created.sourceId}), but not recorded in the store (a later push meets ` +
            '409 UPSTREAM_017 and records it as existing): ',
        ),
        status: created.status,
        sourceId: created.sourceId,
      };
    }
  }

  /**
   * The template a status value is about. Real deliveries may omit the name and language (docs/webhooks.md, "What
   * is required"); the id the create answered (`sourceId`) still names it. `undefined` when neither is known here.
   */
  async #templateOf(value: TemplateStatusValue): Promise<{ name: string; language: string } | undefined> {
    const { message_template_name: name, message_template_language: language } = value;
    if (name !== undefined && language !== undefined) return { name, language };
    const id = String(value.message_template_id);
    return (await this.store.list()).find(
      (r) =>
        r.sourceId === id &&
        (name === undefined || r.name === name) &&
        (language === undefined || r.language === language),
    );
  }

  /**
   * Applies a webhook event: a `template_status` event (from `parseWebhook` or `onEvent`) or the raw `value` of a
   * `message_template_status_update` change sets that template's status and reason. Other events are ignored,
   * so it can take every event. An event without the template's name and language is matched by its id (the
   * `sourceId` a create answered or a `record`/`refresh` gave). Resolves to the updated record, or `undefined`
   * when the event was not one or names no template the catalogue knows.
   *
   * @example
   * createWebhookHandler({ secret, onEvent: async (event) => { await catalog.apply(event); } });
   */
  async apply(event: { kind: string } | TemplateStatusValue): Promise<TemplateRecord | undefined> {
    const value = templateValueOf(event);
    if (!value) return undefined;
    const target = await this.#templateOf(value);
    if (!target) return undefined;
    return this.store.update(target.name, target.language, {
      status: value.event,
      sourceId: String(value.message_template_id),
      reason: value.event === 'REJECTED' ? (value.reason ?? null) : null,
    });
  }

  /**
   * Checks a template send (the `template` object of a template message) against the catalogue: the template
   * must be known in that language, `APPROVED`, and its parameters must match its definition. Throws
   * `TemplateSendError` naming the rule, the template, what was expected and what was given.
   *
   * @example
   * await catalog.check({ name: 'order_shipped', language: { code: 'en_US' }, components });
   */
  async check(template: TemplateSendInput): Promise<void> {
    const problem = await this.problem(template);
    if (problem) throw new TemplateSendError(sendKeyOf(template), problem);
  }

  /**
   * What `check` would throw for, or `undefined`. A send that does not name its template and language as strings
   * (a message sent with `validate: false`) is a `MessageValidationError`: the catalogue cannot check it.
   */
  async problem(template: TemplateSendInput): Promise<TemplateSendProblem | undefined> {
    const { name, language } = sendKeyOf(template);
    return catalogProblem(await this.lookup(name, language), template);
  }

  /**
   * @internal The store reads `problem` makes, apart from its check (`catalogProblem`), so that a send can tell
   * its store's failure (`NotSentError`) from a value it could not read.
   */
  async lookup(name: string, language: string): Promise<CatalogLookup> {
    const entry = await this.get(name, language);
    return { name, language, entry, languages: entry ? [] : await this.languages(name) };
  }

  /**
   * @internal `catalogProblem`, asked of the catalogue: a send's value import of this file would put the template
   * rules in the chunk the Durable Objects entry takes its errors from (its bundle went from 24 to 60 KB).
   */
  problemOf(found: CatalogLookup, template: TemplateSendInput): TemplateSendProblem | undefined {
    return catalogProblem(found, template);
  }
}

/** What the catalogue knows of one template send: its entry, or (without one) the languages its name has. */
export interface CatalogLookup {
  name: string;
  language: string;
  entry: CatalogEntry | undefined;
  languages: readonly string[];
}

/** `TemplateCatalog.problem`'s verdict on `template` from what the store answered (`lookup`); no I/O. */
export function catalogProblem(
  { name, language, entry, languages }: CatalogLookup,
  template: TemplateSendInput,
): TemplateSendProblem | undefined {
  if (!entry) return languages.length > 0 ? languageProblem(languages, language) : unknownProblem(name);
  return (
    statusProblem(entry.status, entry.reason) ??
    (entry.definition ? parameterProblem(entry.definition, template.components) : undefined)
  );
}

/**
 * The name and language a template send names (`template` of a template message), read without trusting its
 * shape: a message sent with `validate: false` skips the message's rules, not the catalogue's check, which needs
 * both. A `MessageValidationError` naming the missing part, never a bare `TypeError`.
 */
function sendKeyOf(template: unknown): { name: string; language: string } {
  const t = template as { name?: unknown; language?: { code?: unknown } } | null | undefined;
  const missing: [path: string[], rule: string] | undefined =
    typeof t !== 'object' || t === null
      ? [['template'], 'template.required']
      : typeof t.name !== 'string'
        ? [['template', 'name'], 'template.name.required']
        : typeof t.language?.code !== 'string'
          ? [['template', 'language', 'code'], 'template.language.code.required']
          : undefined;
  if (missing === undefined) return { name: t!.name as string, language: t!.language!.code as string };
  const [path, rule] = missing;
  throw new MessageValidationError([
    {
      path,
      code: 'invalid_type',
      rule,
      message:
        `${path.length === 1 ? 'must be an object with name and language' : 'must be a string'}: the template ` +
        'catalogue checks a template send by its name and language (`validate: false` skips the message rules, ' +
        'not the catalogue)',
    },
  ]);
}

function templateValueOf(event: unknown): TemplateStatusValue | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const e = event as { kind?: unknown; template?: unknown };
  const value = e.kind === 'template_status' ? e.template : 'kind' in e ? undefined : event;
  const v = value as Partial<TemplateStatusValue> | undefined;
  if (typeof v?.event !== 'string' || typeof v.message_template_id !== 'number') return undefined;
  return v as TemplateStatusValue;
}

function keyOf(name: string, language: string): string {
  return `${name}\u0000${language}`;
}
