import type {
  CampaignCommit,
  CampaignRecordBatch,
  CampaignStore,
  CampaignTotals,
} from '../campaigns/store.js';
import { call, expectNumber, hashedKey, type RedisClient, Script, unexpectedReply } from './replies.js';
import { DEFAULT_RETENTION_MS, openStore, positiveMs, type RedisStoreOptions } from './store-options.js';

/** Sets the smallest (`first…`) and largest (`last…`) time fields of a hash; used by both scripts below. */
const TIMES = `
local function times(key, kind, first, last)
  local f = redis.call('HGET', key, 'first'..kind..'At')
  if not f or first < tonumber(f) then redis.call('HSET', key, 'first'..kind..'At', first) end
  local l = redis.call('HGET', key, 'last'..kind..'At')
  if not l or last > tonumber(l) then redis.call('HSET', key, 'last'..kind..'At', last) end
end
`;

/**
 * One batch of send results, all at once: counters, first examples, refusals, the messages (each expiring after
 * the retention), the campaign's id in the index, the "sending" mark; returns and removes the statuses parked
 * for the batch's wamids. KEYS: counts, examples, refusals, ids, sending. ARGV: retention, parkMs, campaign,
 * firstAt, lastAt, (unused), then counted lists: counters (k, n), examples (k, v), refusals, messages (message
 * key, parking key, state). The message keys are hashed by the caller, so they are passed as arguments.
 */
const RECORD = new Script(`${TIMES}
local retention, park, campaign = ARGV[1], ARGV[2], ARGV[3]
times(KEYS[1], 'Send', tonumber(ARGV[4]), tonumber(ARGV[5]))
local i = 7
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('RPUSH', KEYS[3], ARGV[i]); i = i + 1 end
n = tonumber(ARGV[i]); i = i + 1
local parked = {}
for _ = 1, n do
  redis.call('SET', ARGV[i], campaign .. '\\t' .. ARGV[i + 2], 'PX', retention)
  local items = redis.call('LRANGE', ARGV[i + 1], 0, -1)
  if #items > 0 then
    redis.call('DEL', ARGV[i + 1])
    for _, v in ipairs(items) do parked[#parked + 1] = v end
  end
  i = i + 3
end
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], retention) end
redis.call('SADD', KEYS[4], campaign)
redis.call('PEXPIRE', KEYS[4], retention)
redis.call('SET', KEYS[5], '1', 'PX', park)
return parked
`);

/**
 * A message's stored value; when there is none and a campaign send is under way, parks the status (ARGV[2]) for
 * `RECORD`, at most 16 per wamid, expiring after parkMs. KEYS: message, sending, parking.
 */
const LOOKUP = new Script(`
local v = redis.call('GET', KEYS[1])
if v then return v end
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], -16, -1)
redis.call('PEXPIRE', KEYS[3], ARGV[1])
return false
`);

/**
 * Compare-and-set of a message's value with its counters, examples, event times and retry entry in the same
 * step, so concurrent instances count each change exactly once. KEYS: message, counts, examples, retries.
 * ARGV: expected, next, retention, eventAt ('' = none), retry ('' = none), wamid, counters (k, n), examples (k, v).
 */
const COMMIT = new Script(`${TIMES}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] ~= '' then times(KEYS[2], 'Event', tonumber(ARGV[4]), tonumber(ARGV[4])) end
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[4], ARGV[6], ARGV[5])
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
local i = 7
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]); i = i + 2 end
return 1
`);

export interface RedisCampaignStoreOptions extends RedisStoreOptions {
  /**
   * How long a campaign is kept after its last write: its messages, counters and lists. Default 30 days. Each
   * message's key expires `retentionMs` after its own last status; a status arriving later is in no campaign.
   */
  retentionMs?: number;
  /**
   * How long after the last write of a campaign send a status for a wamid the store does not know is parked
   * (its send result may still be on its way to the store). Default 120,000 ms.
   */
  parkMs?: number;
}

/**
 * `CampaignTracker`'s store over Redis, for many sending and receiving processes: `new CampaignTracker({ store:
 * new RedisCampaignStore({ redis }) })` in each. Every change is one Lua script (a batch of send results; a
 * message's status change with its counters, compare-and-set), so concurrent instances count exactly.
 *
 * Keys (`<prefix>` default `wa:`): `camp:m:<sha256 of the wamid>` per message (its campaign, status, billable
 * flag and recipient: about 200 bytes each, see docs/campaigns.md), `camp:c|x|r|f:<campaign>` (counters,
 * examples, refusals, retryable failures), `camp:ids`, `camp:sending`, `camp:p:<sha256 of the wamid>` (parked
 * statuses). On Redis
 * Cluster, put a hash tag in the prefix (`{wa}:`) so that all keys share a slot.
 *
 * @example
 * import Redis from 'ioredis';
 * import { CampaignTracker } from 'wa-gateway-sdk';
 * import { RedisCampaignStore } from 'wa-gateway-sdk/redis';
 * const campaigns = new CampaignTracker({ store: new RedisCampaignStore({ redis: new Redis(process.env.REDIS_URL!) }) });
 */
export class RedisCampaignStore implements CampaignStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #parkMs: number;

  constructor(options: RedisCampaignStoreOptions) {
    const op = 'new RedisCampaignStore';
    const { redis, prefix } = openStore(options, op);
    this.#redis = redis;
    this.#prefix = prefix;
    this.#retentionMs = positiveMs(options.retentionMs, DEFAULT_RETENTION_MS, 'retentionMs', op);
    this.#parkMs = positiveMs(options.parkMs, 120_000, 'parkMs', op);
  }

  async sending(_campaign: string): Promise<void> {
    const op = 'RedisCampaignStore.sending';
    await call(op, () => this.#redis.set(this.#key('sending'), '1', 'PX', this.#parkMs));
  }

  async record(campaign: string, batch: CampaignRecordBatch): Promise<readonly string[]> {
    const op = 'RedisCampaignStore.record';
    const args: (string | number)[] = [
      this.#retentionMs,
      this.#parkMs,
      campaign,
      batch.firstAt,
      batch.lastAt,
      '',
      ...pairs(batch.counts),
      ...pairs(batch.examples),
      batch.refused.length,
      ...batch.refused,
      batch.accepted.length,
    ];
    for (const { wamid, state } of batch.accepted)
      args.push(this.#key('m', wamid), this.#key('p', wamid), state);
    const keys = [
      this.#key('c', campaign),
      this.#key('x', campaign),
      this.#key('r', campaign),
      this.#key('ids'),
      this.#key('sending'),
    ];
    const parked = await call(op, () => RECORD.run(this.#redis, keys, args));
    if (!Array.isArray(parked) || !parked.every((p) => typeof p === 'string')) {
      throw unexpectedReply(op, 'a list of parked statuses', typeof parked);
    }
    return parked as string[];
  }

  async lookup(wamid: string, park: () => string): Promise<{ campaign: string; state: string } | undefined> {
    const op = 'RedisCampaignStore.lookup';
    const keys = [this.#key('m', wamid), this.#key('sending'), this.#key('p', wamid)];
    // `park()` is cheap to build and needed only when nothing is stored: one round trip either way.
    const value = await call(op, () => LOOKUP.run(this.#redis, keys, [this.#parkMs, park()]));
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'string') throw unexpectedReply(op, 'a stored message', typeof value);
    const tab = value.indexOf('\t');
    if (tab < 1) throw unexpectedReply(op, 'a stored message', 'a value without its campaign');
    return { campaign: value.slice(0, tab), state: value.slice(tab + 1) };
  }

  async commit(change: CampaignCommit): Promise<boolean> {
    const op = 'RedisCampaignStore.commit';
    const keys = [
      this.#key('m', change.wamid),
      this.#key('c', change.campaign),
      this.#key('x', change.campaign),
      this.#key('f', change.campaign),
    ];
    const args: (string | number)[] = [
      `${change.campaign}\t${change.expected}`,
      `${change.campaign}\t${change.next}`,
      this.#retentionMs,
      change.eventAt ?? '',
      change.retry ?? '',
      change.wamid,
      ...pairs(change.counts),
      ...pairs(change.examples),
    ];
    return expectNumber(op, await call(op, () => COMMIT.run(this.#redis, keys, args))) === 1;
  }

  async totals(campaign: string): Promise<CampaignTotals | undefined> {
    const op = 'RedisCampaignStore.totals';
    const [counts, examples] = await call(op, () =>
      Promise.all([
        this.#redis.hgetall(this.#key('c', campaign)),
        this.#redis.hgetall(this.#key('x', campaign)),
      ]),
    );
    if (Object.keys(counts).length === 0) return undefined;
    const numbers: Record<string, number> = {};
    for (const [k, v] of Object.entries(counts)) numbers[k] = expectNumber(op, v);
    return { counts: numbers, examples };
  }

  async *refusals(campaign: string): AsyncIterable<readonly string[]> {
    const op = 'RedisCampaignStore.refusals';
    const key = this.#key('r', campaign);
    for (let start = 0; ; start += PAGE) {
      const page = await call(op, () => this.#redis.lrange(key, start, start + PAGE - 1));
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  }

  async *failedRetries(campaign: string): AsyncIterable<readonly string[]> {
    const op = 'RedisCampaignStore.failedRetries';
    const key = this.#key('f', campaign);
    let cursor = '0';
    do {
      const [next, flat] = await call(op, () => this.#redis.hscan(key, cursor, 'COUNT', PAGE));
      cursor = next;
      const values = flat.filter((_, i) => i % 2 === 1);
      if (values.length > 0) yield values;
    } while (cursor !== '0');
  }

  async campaigns(): Promise<string[]> {
    const op = 'RedisCampaignStore.campaigns';
    return (await call(op, () => this.#redis.smembers(this.#key('ids')))).sort();
  }

  /**
   * Forgets a campaign's counters and lists now (its message keys expire with the retention). Resolves `true`
   * when it was known.
   *
   * @example
   * await store.delete('spring-sale');
   */
  async delete(campaign: string): Promise<boolean> {
    const op = 'RedisCampaignStore.delete';
    const removed = await call(op, () =>
      this.#redis
        .multi()
        .del(...['c', 'x', 'r', 'f'].map((k) => this.#key(k, campaign)))
        .srem(this.#key('ids'), campaign)
        .exec(),
    );
    return expectNumber(op, removed?.[1]?.[1] ?? 0) === 1;
  }

  /** A wamid (which encodes the recipient's number) is hashed into its key; a campaign id is a label you chose. */
  #key(kind: string, id?: string): string {
    if (id === undefined) return `${this.#prefix}camp:${kind}`;
    return kind === 'm' || kind === 'p'
      ? hashedKey(this.#prefix, `camp:${kind}`, id)
      : `${this.#prefix}camp:${kind}:${id}`;
  }
}

const PAGE = 1000;

function pairs(record: Readonly<Record<string, string | number>>): (string | number)[] {
  const out: (string | number)[] = [];
  for (const [k, v] of Object.entries(record)) out.push(k, v);
  return [out.length / 2, ...out];
}
