import type { TemplateRecord, TemplateRecordPatch, TemplateStore } from '../templates/catalog.js';
import type { TemplateDefinition } from '../templates/define.js';
import { call, hashedKey, type RedisClient, Script, unexpectedReply } from './redis-answer.js';
import { openStore, type RedisStoreOptions } from './store-options.js';

/**
 * Merges fields into a template's hash and indexes it, in one step: ARGV = now, then field/value pairs, a value
 * of '' deleting the field. Two instances writing different fields of one template never undo each other.
 */
const MERGE = new Script(`
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[1])
for i = 2, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('SADD', KEYS[2], KEYS[1])
return redis.call('HGETALL', KEYS[1])
`);

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
 * Failures reject with `RedisStoreError`.
 *
 * @example
 * import Redis from 'ioredis';
 * import { TemplateCatalog } from 'wa-gateway-sdk';
 * import { RedisTemplateStore } from 'wa-gateway-sdk/redis';
 * const catalog = new TemplateCatalog({
 *   definitions,
 *   store: new RedisTemplateStore({ redis: new Redis(process.env.REDIS_URL!) }),
 * });
 */
export class RedisTemplateStore implements TemplateStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;

  constructor(options: RedisTemplateStoreOptions) {
    const { redis, prefix } = openStore(options, 'new RedisTemplateStore');
    this.#redis = redis;
    this.#prefix = prefix;
  }

  /** A template's record, or `undefined`. */
  async get(name: string, language: string): Promise<TemplateRecord | undefined> {
    const op = 'RedisTemplateStore.get';
    const raw = await call(op, () => this.#redis.hgetall(this.#key(name, language)));
    return Object.keys(raw).length === 0 ? undefined : decode(op, raw);
  }

  /** Merges `patch` into the record (creating it) in one step; `reason: null` clears the reason. */
  async update(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord> {
    const op = 'RedisTemplateStore.update';
    const args: string[] = [String(Date.now()), 'name', name, 'language', language];
    if (patch.status !== undefined) args.push('status', String(patch.status));
    if (patch.reason !== undefined) args.push('reason', patch.reason ?? '');
    if (patch.sourceId !== undefined) args.push('sourceId', String(patch.sourceId));
    if (patch.definition !== undefined) args.push('definition', JSON.stringify(patch.definition));
    const reply = await call(op, () =>
      MERGE.run(this.#redis, [this.#key(name, language), `${this.#prefix}templates`], args),
    );
    if (!Array.isArray(reply)) throw unexpectedReply(op, 'a hash', reply);
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
    return decode(op, fields);
  }

  /** Every record. */
  async list(): Promise<TemplateRecord[]> {
    const op = 'RedisTemplateStore.list';
    const keys = await call(op, () => this.#redis.smembers(`${this.#prefix}templates`));
    const out: TemplateRecord[] = [];
    for (const key of keys) {
      const raw = await call(op, () => this.#redis.hgetall(key));
      if (Object.keys(raw).length > 0) out.push(decode(op, raw));
    }
    return out;
  }

  #key(name: string, language: string): string {
    return hashedKey(this.#prefix, 'template', `${name}\u0000${language}`);
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
