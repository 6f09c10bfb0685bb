import { requireText } from '../core/errors.js';
import type { TemplateRecord, TemplateRecordPatch, TemplateStore } from '../templates/catalog.js';
import type { TemplateDefinition } from '../templates/define.js';
import { checkTemplatePatch } from '../templates/record-patch.js';
import type { RedisClient } from './client.js';
import { hashId, type KeySpace } from './keys.js';
import { call, pipelineAnswers, unexpectedReply } from './replies.js';
import { openStore, type RedisStoreOptions } from './store-options.js';

/** The fields of the catalogue's record, as stored (strings; the definition as JSON). */
const FIELDS = ['name', 'language', 'status', 'reason', 'sourceId', 'definition'] as const;

export interface RedisTemplateStoreOptions extends RedisStoreOptions {}

/**
 * `TemplateCatalog`'s store in Redis, so that every instance sees the same statuses: a
 * `message_template_status_update` event applied by the instance the webhook reached is what every other
 * instance's sends are checked against.
 *
 * Keys: `<prefix>template:<sha256 of name and language>` (a hash: status, reason, sourceId, the definition when
 * the template was created through the catalogue, updatedAt) and `<prefix>templates` (the set of those keys).
 * They are the catalogue itself, not a cache of it, so they have no expiry: the one kind of key of the Redis
 * stores that does not (a few hundred templates, not one key per event). Failures reject with `RedisStoreError`.
 *
 * @example
 * import Redis from 'ioredis';
 * import { TemplateCatalog } from 'wa-gateway-sdk';
 * import { RedisTemplateStore } from 'wa-gateway-sdk/redis';
 * const catalog = new TemplateCatalog({
 *   definitions,
 *   store: new RedisTemplateStore({ redis: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 }) }),
 * });
 */
export class RedisTemplateStore implements TemplateStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;

  constructor(options: RedisTemplateStoreOptions) {
    const { redis, keys } = openStore(options, 'new RedisTemplateStore');
    this.#redis = redis;
    this.#keys = keys;
  }

  /** A template's record, or `undefined`. */
  async get(name: string, language: string): Promise<TemplateRecord | undefined> {
    const op = 'RedisTemplateStore.get';
    const key = this.#key(op, name, language);
    const raw = await call(op, () => this.#redis.hgetall(key));
    return Object.keys(raw).length === 0 ? undefined : decode(op, raw);
  }

  /**
   * Merges `patch` into the record (creating it) in one transaction; `reason: null` clears the reason. Two
   * instances writing different fields of one template never undo each other. The record is indexed first, so
   * `list` never misses a record that exists.
   */
  async update(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord> {
    const op = 'RedisTemplateStore.update';
    const key = this.#key(op, name, language);
    checkTemplatePatch(op, patch);
    const set: Record<string, string> = { updatedAt: String(Date.now()), name, language };
    const cleared: string[] = [];
    if (patch.status !== undefined) set['status'] = String(patch.status);
    if (patch.reason === null) cleared.push('reason');
    else if (patch.reason !== undefined) set['reason'] = patch.reason;
    if (patch.sourceId !== undefined) set['sourceId'] = String(patch.sourceId);
    if (patch.definition !== undefined) set['definition'] = JSON.stringify(patch.definition);
    // The index and the record are apart (two slots on a cluster): indexing first means at worst an index entry
    // without a record, which `list` skips.
    await call(op, () => this.#redis.sadd(this.#index(), key));
    const replies = await call(op, () => {
      const tx = this.#redis.multi().hset(key, set);
      if (cleared.length > 0) tx.hdel(key, ...cleared);
      return tx.hgetall(key).exec();
    });
    const count = cleared.length > 0 ? 3 : 2;
    const fields = pipelineAnswers(op, replies, count, Array(count).fill(key)).at(-1);
    if (typeof fields !== 'object' || fields === null) throw unexpectedReply(op, 'a hash', fields);
    return decode(op, fields as Record<string, string>);
  }

  /** Every record. */
  async list(): Promise<TemplateRecord[]> {
    const op = 'RedisTemplateStore.list';
    const keys = await call(op, () => this.#redis.smembers(this.#index()));
    const out: TemplateRecord[] = [];
    for (const key of keys) {
      const raw = await call(op, () => this.#redis.hgetall(key));
      if (Object.keys(raw).length > 0) out.push(decode(op, raw));
    }
    return out;
  }

  /** A template's key; a name or language that is not text is the caller's argument error. */
  #key(op: string, name: string, language: string): string {
    requireText(op, 'name', name, 'the template name');
    requireText(op, 'language', language, 'the template language (en_US, ...)');
    return this.#keys.name('template', hashId(`${name}\u0000${language}`));
  }

  #index(): string {
    return this.#keys.name('templates');
  }
}

function decode(operation: string, raw: Record<string, string>): TemplateRecord {
  if (typeof raw['name'] !== 'string' || typeof raw['language'] !== 'string')
    throw unexpectedReply(operation, 'a stored template', 'a hash without name and language');
  const record: TemplateRecord = { name: raw['name'], language: raw['language'] };
  for (const field of FIELDS.slice(2)) {
    const value = raw[field];
    if (value === undefined) continue;
    if (field === 'definition') {
      try {
        record.definition = JSON.parse(value) as TemplateDefinition;
      } catch {
        throw unexpectedReply(operation, 'a stored definition', 'unparsable text');
      }
    } else record[field] = value;
  }
  const updatedAt = Number(raw['updatedAt']);
  if (Number.isFinite(updatedAt)) record.updatedAt = updatedAt;
  return record;
}
