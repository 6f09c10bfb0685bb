import { isRecord } from '../core/plain-data.js';
import type { TemplateRecord, TemplateRecordPatch, TemplateStore } from '../templates/catalog.js';
import { checkTemplatePatch } from '../templates/record-patch.js';
import {
  type Binding,
  callObject,
  type DurableObjectStoreOptions,
  openBinding,
  unexpectedAnswer,
} from './binding.js';

/**
 * `TemplateCatalog`'s store on Durable Objects: one object holds the whole catalogue (`<prefix>templates`), so a
 * `message_template_status_update` applied in the request the webhook reached is what the next request's send is
 * checked against, in every isolate. `update` merges its patch in one event of the object, so two requests writing
 * different fields of one template never undo each other.
 *
 * Each call is one request to that one object: a template send checked by the catalogue costs one (two for a
 * template the catalogue does not know). One object serves on the order of a thousand such requests a second;
 * give busy applications a catalogue per sending number with `prefix`.
 *
 * @example
 * import { TemplateCatalog } from 'wa-gateway-sdk';
 * import { DurableObjectTemplateStore } from 'wa-gateway-sdk/durable-objects';
 * const catalog = new TemplateCatalog({ definitions, store: new DurableObjectTemplateStore({ namespace: env.WA_STATE }) });
 */
export class DurableObjectTemplateStore implements TemplateStore {
  readonly #binding: Binding;

  constructor(options: DurableObjectStoreOptions) {
    this.#binding = openBinding(options, 'new DurableObjectTemplateStore');
  }

  /**
   * A template's record, or `undefined`.
   *
   * @example
   * const record = await store.get('order_shipped', 'en_US'); // { status: 'APPROVED', ... }
   */
  async get(name: string, language: string): Promise<TemplateRecord | undefined> {
    const op = 'DurableObjectTemplateStore.get';
    const answer = await callObject(this.#binding, 'templates', 'template.get', { name, language }, op);
    return answer === null ? undefined : record(op, answer);
  }

  /**
   * Merges `patch` into the record (creating it) in one step; `reason: null` clears the reason.
   *
   * @example
   * await store.update('order_shipped', 'en_US', { status: 'PAUSED' });
   */
  async update(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord> {
    const op = 'DurableObjectTemplateStore.update';
    checkTemplatePatch(op, patch);
    const answer = await callObject(
      this.#binding,
      'templates',
      'template.update',
      { name, language, patch: { ...patch } },
      op,
    );
    return record(op, answer);
  }

  /**
   * Every record.
   *
   * @example
   * const languages = (await store.list()).filter((r) => r.name === 'order_shipped').map((r) => r.language);
   */
  async list(): Promise<TemplateRecord[]> {
    const op = 'DurableObjectTemplateStore.list';
    const answer = await callObject(this.#binding, 'templates', 'template.list', {}, op);
    if (!Array.isArray(answer)) throw unexpectedAnswer(op, 'a list that is not an array');
    return answer.map((r: unknown) => record(op, r));
  }
}

function record(op: string, value: unknown): TemplateRecord {
  if (!isRecord(value) || typeof value['name'] !== 'string' || typeof value['language'] !== 'string')
    throw unexpectedAnswer(op, 'a template record without name and language');
  return value as unknown as TemplateRecord;
}
