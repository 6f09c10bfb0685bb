import type {
  CampaignCommit,
  CampaignRecordBatch,
  CampaignStore,
  CampaignTotals,
} from '../campaigns/store.js';
import { durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import type { RedisClient } from './client.js';
import { hashId, type KeySpace } from './keys.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { Script, type ScriptKey, writes } from './script.js';
import { DEFAULT_RETENTION_MS, openStore, type RedisStoreOptions } from './store-options.js';

/*
 * Where a campaign lives. A status names only its wamid, so each accepted message has a *pointer* found by its
 * wamid alone: `camp:m:<sha256 of the wamid>`, holding `<campaign>\t<state when sent>`. The campaign's counters,
 * examples, refusals and retry entries sit together (`camp:c|x|r|f:<campaign>`), and so does each message's
 * current state once a status moved it, so that a status moves a message and its campaign's counters in one
 * step. On one Redis (or with a prefix that holds a hash tag) everything shares a slot and the current state is
 * the pointer itself, as in the previous versions. On a Redis Cluster the pointer and the statuses parked for it
 * share the wamid's hash tag (`camp:m:{<sha256>}`, `camp:p:{<sha256>}`), and the campaign's keys share the
 * campaign's (`camp:c:{<campaign>}`, `camp:s:{<campaign>}:<sha256>` for the current state): campaigns and
 * messages spread over every slot.
 */

/** Sets the smallest (`first…`) and largest (`last…`) time fields of a hash. */
const TIMES = `
local function times(key, kind, first, last)
  local f = redis.call('HGET', key, 'first'..kind..'At')
  if not f or first < tonumber(f) then redis.call('HSET', key, 'first'..kind..'At', first) end
  local l = redis.call('HGET', key, 'last'..kind..'At')
  if not l or last > tonumber(l) then redis.call('HSET', key, 'last'..kind..'At', last) end
end
`;

/**
 * Every key of a campaign expires `retention` after its last write, whichever of them that write touched: they
 * expire together, and never before a message whose status moves them.
 */
const REFRESH_CAMPAIGN = `
local function refresh_campaign(K, first, retention)
  for k = first, first + 3 do redis.call('PEXPIRE', K[k], retention) end
end
`;

/**
 * A batch's campaign side: counters, first examples, refusals, and every campaign key's expiry. KEYS: counts,
 * examples, refusals, failures. ARGV: retention, firstAt, lastAt, then counted lists: counters (k, n), examples
 * (k, v), refusals. Answers the index after them. Internal: also run inside the campaign queue's ledger scripts
 * (redis/campaign-ledger.ts), so that a send's result is counted in the same step as its ledger entry.
 */
export const RECORD_CAMPAIGN = `${TIMES}${REFRESH_CAMPAIGN}
local function record_campaign(K, A)
  times(K[1], 'Send', tonumber(A[2]), tonumber(A[3]))
  local i = 4
  local n = tonumber(A[i]); i = i + 1
  for _ = 1, n do redis.call('HINCRBY', K[1], A[i], A[i + 1]); i = i + 2 end
  n = tonumber(A[i]); i = i + 1
  for _ = 1, n do redis.call('HSETNX', K[2], A[i], A[i + 1]); i = i + 2 end
  n = tonumber(A[i]); i = i + 1
  for _ = 1, n do redis.call('RPUSH', K[3], A[i]); i = i + 1 end
  refresh_campaign(K, 1, A[1])
  return i
end
`;

/**
 * A batch's message side: each pointer (written once: a wamid is sent once) and the statuses parked for it, taken
 * out (or, with `keep`, read and left in place: a cluster's campaign queue notes them before it deletes them). With
 * `found`, each parking key that held statuses is listed with them. KEYS from `first`: pointer, parking, pointer,
 * parking, ... ARGV from `at`: the pointers' values. Internal: also run inside the campaign queue's ledger scripts
 * on one Redis.
 */
export const RECORD_POINTERS = `
local function record_pointers(K, first, A, at, parked, keep, found)
  local k = first
  for i = at, #A do
    redis.call('SET', K[k], A[i], 'NX')
    local items = redis.call('LRANGE', K[k + 1], 0, -1)
    if #items > 0 then
      if not keep then redis.call('DEL', K[k + 1]) end
      if found then found[#found + 1] = {K[k + 1], items} end
      for _, v in ipairs(items) do parked[#parked + 1] = v end
    end
    k = k + 2
  end
  return parked
end
`;

/** The whole batch in one step, when all its keys share a slot (one Redis, or a prefix with a hash tag). */
const RECORD = new Script(`${RECORD_CAMPAIGN}${RECORD_POINTERS}
local at = record_campaign(KEYS, ARGV)
return record_pointers(KEYS, 5, ARGV, at, {})
`);

/** The campaign side alone (a cluster: its keys are in the campaign's slot). */
const RECORD_ON_CAMPAIGN = new Script(`${RECORD_CAMPAIGN}
record_campaign(KEYS, ARGV)
return 1
`);

/** One message's side alone (a cluster: its keys are in the wamid's slot). */
const RECORD_POINTER = new Script(`${RECORD_POINTERS}
return record_pointers(KEYS, 1, ARGV, 1, {})
`);

/** The same, its parked statuses left in place until applied (the campaign queue). */
const RECORD_POINTER_KEPT = new Script(`${RECORD_POINTERS}
return record_pointers(KEYS, 1, ARGV, 1, {}, true)
`);

/**
 * Parks a status (ARGV[1]) for a wamid the store does not know yet, at most 16, unless its pointer appeared
 * meanwhile (then answers it). KEYS: pointer, parking.
 */
const PARK = new Script(`
local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('LTRIM', KEYS[2], -16, -1)
return false
`);

/**
 * Compare-and-set of a message's current state with its counters, examples, event times and retry entry in the
 * same step, so concurrent instances count each change exactly once; every key of the campaign expires
 * `retention` after it. A message whose counters are gone, or too low for the change (its campaign expired or was
 * deleted, perhaps recorded again since), belongs to no campaign: its state is removed and nothing is counted.
 * KEYS: state, counts, examples, retries, refusals. ARGV: expected, next, eventAt ('' = none), retry ('' = none),
 * wamid, retention, counters (k, n), examples (k, v). A state not written yet is the one its pointer holds, which
 * the caller read as `expected`.
 */
const COMMIT = new Script(`${TIMES}${REFRESH_CAMPAIGN}
if (redis.call('GET', KEYS[1]) or ARGV[1]) ~= ARGV[1] then return 0 end
local i = 7
local n = tonumber(ARGV[i]); i = i + 1
local orphan = redis.call('EXISTS', KEYS[2]) == 0
for j = i, i + 2 * n - 1, 2 do
  local d = tonumber(ARGV[j + 1])
  if d < 0 and (tonumber(redis.call('HGET', KEYS[2], ARGV[j])) or 0) + d < 0 then orphan = true end
end
if orphan then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then times(KEYS[2], 'Event', tonumber(ARGV[3]), tonumber(ARGV[3])) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[4], ARGV[5], ARGV[4]) end
for _ = 1, n do redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1]); i = i + 2 end
n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]); i = i + 2 end
refresh_campaign(KEYS, 2, ARGV[6])
return 1
`);

/** Lists a campaign among those the store holds; the list expires with the retention after its last write. */
const LIST = new Script(`
redis.call('SADD', KEYS[1], ARGV[1])
return 1
`);

/** How many times the message side of a batch is tried again before `record` gives up (it is idempotent). */
const POINTER_ATTEMPTS = 3;

export interface RedisCampaignStoreOptions extends RedisStoreOptions {
  /**
   * How long a campaign is kept after its last write: its messages, counters and lists. Default 30 days. Each
   * message's key expires `retentionMs` after its own last status; a status arriving later is in no campaign.
   */
  retentionMs?: number | undefined;
  /**
   * How long after the last write of a campaign send a status for a wamid the store does not know is parked
   * (its send result may still be on its way to the store). Default 120,000 ms.
   */
  parkMs?: number | undefined;
}

/**
 * `CampaignTracker`'s store over Redis, for many sending and receiving processes: `new CampaignTracker({ store:
 * new RedisCampaignStore({ redis }) })` in each. Every change is a Lua script (a batch of send results; a
 * message's status change with its counters, compare-and-set), so concurrent instances count exactly, and every
 * key a script writes expires `retentionMs` after that write (parked statuses after `parkMs`).
 *
 * Keys (`<prefix>` default `wa:`): `camp:m:<sha256 of the wamid>` per message (its campaign and its state: about
 * 200 bytes each, see docs/campaigns.md), `camp:c|x|r|f:<campaign>` (counters, examples, refusals,
 * failures), `camp:ids`, `camp:sending`, `camp:p:<sha256 of the wamid>` (parked statuses). On a Redis Cluster
 * they are hash-tagged by wamid and by campaign (`camp:m:{<sha256>}`, `camp:c:{<campaign>}`), and a message's
 * state, once a status moved it, is kept beside its campaign (`camp:s:{<campaign>}:<sha256>`): a batch of send
 * results is then written in two steps, the campaign's side and then each message's (tried again up to three
 * times), and a status is looked up in two reads (its pointer, then its state).
 *
 * @example
 * import Redis from 'ioredis';
 * import { CampaignTracker } from 'wa-gateway-sdk';
 * import { RedisCampaignStore } from 'wa-gateway-sdk/redis';
 * const campaigns = new CampaignTracker({ store: new RedisCampaignStore({ redis: new Redis(process.env.REDIS_URL!) }) });
 */
export class RedisCampaignStore implements CampaignStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;
  readonly #retentionMs: number;
  readonly #parkMs: number;

  /** How long a status for an unknown wamid is parked (`CampaignStore.parkMs`). */
  get parkMs(): number {
    return this.#parkMs;
  }

  constructor(options: RedisCampaignStoreOptions) {
    const op = 'new RedisCampaignStore';
    const { redis, keys } = openStore(options, op);
    this.#redis = redis;
    this.#keys = keys;
    this.#retentionMs = durationMs(options.retentionMs, `${op}: \`retentionMs\``, DEFAULT_RETENTION_MS);
    this.#parkMs = durationMs(options.parkMs, `${op}: \`parkMs\``, 120_000);
    SIDES.set(this, {
      keys,
      campaignKeys: (campaign) => this.#campaignKeys(campaign),
      side: (batch) => this.#side(batch),
      message: (campaign, wamid, state) => this.#message(campaign, wamid, state),
      pointersEach: (messages) => this.#pointersEach('CampaignQueue.ledger', messages, RECORD_POINTER_KEPT),
      parkingKey: (wamid) => this.#pointer(hashId(wamid))[1].key,
      list: (campaign) => call('RedisCampaignStore.record', () => this.#list(campaign)),
      pointerKey: (wamid) => this.#pointer(hashId(wamid))[0].key,
    });
  }

  async sending(_campaign: string): Promise<void> {
    const op = 'RedisCampaignStore.sending';
    await call(op, () => this.#redis.set(this.#sendingKey(), '1', 'PX', this.#parkMs));
  }

  async record(campaign: string, batch: CampaignRecordBatch): Promise<readonly string[]> {
    const op = 'RedisCampaignStore.record';
    const side = this.#side(batch);
    const messages = batch.accepted.map(({ wamid, state }) => this.#message(campaign, wamid, state));
    const campaignKeys = this.#campaignKeys(campaign);
    // The campaign is listed first and the sending mark refreshed: both marks, apart from the batch's slots.
    await call(op, () => Promise.all([this.#list(campaign), this.sending(campaign)]));
    if (!this.#keys.spread) {
      const keys = [...campaignKeys, ...messages.flatMap((m) => m.keys)];
      const values = messages.map((m) => m.value);
      return parkedList(op, await call(op, () => RECORD.run(this.#redis, keys, [...side, ...values])));
    }
    // A cluster: the campaign's side, then each message's. A status looked up between the two finds no pointer
    // and is parked, and the message's step takes it out.
    await call(op, () => RECORD_ON_CAMPAIGN.run(this.#redis, campaignKeys, side));
    return this.#pointers(op, messages, RECORD_POINTER);
  }

  /** The message side of a batch on a cluster: each pointer, tried again up to three times (it is idempotent). */
  async #pointers(op: string, messages: readonly StoredMessage[], script: Script): Promise<string[]> {
    return (await this.#pointersEach(op, messages, script)).flat();
  }

  /** `#pointers`, with the statuses found parked for each message apart. */
  async #pointersEach(op: string, messages: readonly StoredMessage[], script: Script): Promise<string[][]> {
    return Promise.all(
      messages.map(async (m) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return parkedList(op, await call(op, () => script.run(this.#redis, m.keys, [m.value])));
          } catch (error) {
            if (attempt >= POINTER_ATTEMPTS) throw error;
          }
        }
      }),
    );
  }

  /** The ARGV of `RECORD_CAMPAIGN` for a batch. */
  #side(batch: CampaignRecordBatch): (string | number)[] {
    return [
      this.#retentionMs,
      batch.firstAt,
      batch.lastAt,
      ...pairs(batch.counts),
      ...pairs(batch.examples),
      batch.refused.length,
      ...batch.refused,
    ];
  }

  /** An accepted message's pointer keys and value. */
  #message(campaign: string, wamid: string, state: string): StoredMessage {
    return { keys: this.#pointer(hashId(wamid)), value: `${campaign}\t${state}` };
  }

  #list(campaign: string): Promise<unknown> {
    return LIST.run(this.#redis, [writes(this.#keys.name('camp', 'ids'), this.#retentionMs)], [campaign]);
  }

  async lookup(wamid: string, park: () => string): Promise<{ campaign: string; state: string } | undefined> {
    const op = 'RedisCampaignStore.lookup';
    const hash = hashId(wamid);
    const [pointer, parking] = this.#pointer(hash);
    const [found, sending] = await call(op, () =>
      Promise.all([this.#redis.get(pointer.key), this.#redis.exists(this.#sendingKey())]),
    );
    let value: unknown = found;
    if (value === null) {
      // Unknown: while a campaign send is under way its send result may still be on its way: park the status.
      if (expectNumber(op, sending) === 0) return undefined;
      value = await call(op, () => PARK.run(this.#redis, [pointer, parking], [park()]));
      if (value === null || value === undefined) return undefined;
    }
    return this.#current(op, hash, pointer.key, split(op, value));
  }

  /**
   * A message's stored state and campaign, reading only (nothing parked): what `tracker.message` reads.
   * `undefined` for a wamid in no campaign (or expired).
   *
   * @example
   * const found = await store.get('wamid.HBgM...');
   */
  async get(wamid: string): Promise<{ campaign: string; state: string } | undefined> {
    const op = 'RedisCampaignStore.get';
    if (typeof wamid !== 'string' || wamid === '') {
      throw new ConfigurationError(`${op} needs the message's wamid: a non-empty string.`);
    }
    const hash = hashId(wamid);
    const [pointer] = this.#pointer(hash);
    const found = await call(op, () => this.#redis.get(pointer.key));
    return found === null ? undefined : this.#current(op, hash, pointer.key, split(op, found));
  }

  /** The message's current state: its pointer's on one slot, its state key's on a cluster (the pointer's until then). */
  async #current(
    op: string,
    hash: string,
    pointerKey: string,
    message: { campaign: string; state: string },
  ): Promise<{ campaign: string; state: string }> {
    const stateKey = this.#stateKey(message.campaign, hash);
    if (stateKey === pointerKey) return message;
    const current = await call(op, () => this.#redis.get(stateKey));
    return current === null ? message : split(op, current);
  }

  async commit(change: CampaignCommit): Promise<boolean> {
    const op = 'RedisCampaignStore.commit';
    const [counts, examples, refusals, retries] = this.#campaignKeys(change.campaign);
    const keys = [
      writes(this.#stateKey(change.campaign, hashId(change.wamid)), this.#retentionMs),
      counts,
      examples,
      retries,
      refusals,
    ];
    const args: (string | number)[] = [
      `${change.campaign}\t${change.expected}`,
      `${change.campaign}\t${change.next}`,
      change.eventAt ?? '',
      change.retry ?? '',
      change.wamid,
      this.#retentionMs,
      ...pairs(change.counts),
      ...pairs(change.examples),
    ];
    return expectNumber(op, await call(op, () => COMMIT.run(this.#redis, keys, args))) === 1;
  }

  async totals(campaign: string): Promise<CampaignTotals | undefined> {
    const op = 'RedisCampaignStore.totals';
    const [counts, examples] = this.#campaignKeys(campaign);
    const [numbersRaw, examplesRaw] = await call(op, () =>
      Promise.all([this.#redis.hgetall(counts.key), this.#redis.hgetall(examples.key)]),
    );
    if (Object.keys(numbersRaw).length === 0) return undefined;
    const numbers: Record<string, number> = {};
    for (const [k, v] of Object.entries(numbersRaw)) numbers[k] = expectNumber(op, v);
    return { counts: numbers, examples: examplesRaw };
  }

  async *refusals(campaign: string): AsyncIterable<readonly string[]> {
    const op = 'RedisCampaignStore.refusals';
    const key = this.#campaignKeys(campaign)[2].key;
    for (let start = 0; ; start += PAGE) {
      const page = await call(op, () => this.#redis.lrange(key, start, start + PAGE - 1));
      if (page.length > 0) yield page;
      if (page.length < PAGE) return;
    }
  }

  async *failedRetries(campaign: string): AsyncIterable<readonly string[]> {
    const op = 'RedisCampaignStore.failedRetries';
    const key = this.#campaignKeys(campaign)[3].key;
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
    return (await call(op, () => this.#redis.smembers(this.#keys.name('camp', 'ids')))).sort();
  }

  /**
   * Forgets a campaign's counters and lists now (its messages expire with the retention). Resolves `true` when
   * it was known.
   *
   * @example
   * await store.delete('spring-sale');
   */
  async delete(campaign: string): Promise<boolean> {
    const op = 'RedisCampaignStore.delete';
    const keys = this.#campaignKeys(campaign).map((k) => k.key);
    // The campaign's keys share a slot; the list of campaigns is apart.
    await call(op, () => this.#redis.del(...keys));
    return (
      expectNumber(op, await call(op, () => this.#redis.srem(this.#keys.name('camp', 'ids'), campaign))) === 1
    );
  }

  /** A message's pointer and its parked statuses: found by the wamid alone (hashed: it encodes a number). */
  #pointer(hash: string): [ScriptKey, ScriptKey] {
    const tag = this.#keys.tag(hash);
    return [
      writes(this.#keys.name('camp', 'm', tag), this.#retentionMs),
      writes(this.#keys.name('camp', 'p', tag), this.#parkMs),
    ];
  }

  /** A message's current state: its pointer on one slot, beside its campaign's counters on a cluster. */
  #stateKey(campaign: string, hash: string): string {
    return this.#keys.spread
      ? this.#keys.name('camp', 's', this.#keys.tag(campaign), hash)
      : this.#keys.name('camp', 'm', hash);
  }

  /** Counters, examples, refusals, retry entries: one campaign's keys, in its slot. */
  #campaignKeys(campaign: string): [ScriptKey, ScriptKey, ScriptKey, ScriptKey] {
    const tag = this.#keys.tag(campaign);
    const key = (kind: string) => writes(this.#keys.name('camp', kind, tag), this.#retentionMs);
    return [key('c'), key('x'), key('r'), key('f')];
  }

  #sendingKey(): string {
    return this.#keys.name('camp', 'sending');
  }
}

/** An accepted message's pointer (and its parking), with the value the pointer holds. */
interface StoredMessage {
  readonly keys: [ScriptKey, ScriptKey];
  readonly value: string;
}

const SIDES = new WeakMap<RedisCampaignStore, CampaignSide>();

/**
 * Internal: how the campaign queue records a send's result in the same step as its ledger entry: the campaign's
 * keys and `RECORD_CAMPAIGN`'s arguments for a batch, and each accepted message's pointer (in that step on one
 * Redis, after it on a cluster, where the pointer lives in the wamid's slot).
 */
export interface CampaignSide {
  readonly keys: KeySpace;
  campaignKeys(campaign: string): [ScriptKey, ScriptKey, ScriptKey, ScriptKey];
  side(batch: CampaignRecordBatch): (string | number)[];
  message(campaign: string, wamid: string, state: string): StoredMessage;
  /**
   * Writes pointers apart (a cluster); answers the statuses parked for each message, left in place: the queue notes
   * them, applies them, then deletes them.
   */
  pointersEach(messages: readonly StoredMessage[]): Promise<string[][]>;
  /** Where the statuses for `wamid` are parked until its send is recorded (and, for the queue, applied). */
  parkingKey(wamid: string): string;
  /** Lists the campaign among the store's campaigns. */
  list(campaign: string): Promise<unknown>;
  /** The key that exists once `wamid` was recorded in some campaign: "a send the SDK recorded". */
  pointerKey(wamid: string): string;
}

/** Internal: the queue's access to a store's campaign side. */
export function campaignSideOf(store: RedisCampaignStore): CampaignSide {
  return SIDES.get(store) as CampaignSide;
}

/** A stored `<campaign>\t<state>`. */
function split(operation: string, value: unknown): { campaign: string; state: string } {
  if (typeof value !== 'string') throw unexpectedReply(operation, 'a stored message', typeof value);
  const tab = value.indexOf('\t');
  if (tab < 1) throw unexpectedReply(operation, 'a stored message', 'a value without its campaign');
  return { campaign: value.slice(0, tab), state: value.slice(tab + 1) };
}

function parkedList(operation: string, parked: unknown): string[] {
  if (!Array.isArray(parked) || !parked.every((p) => typeof p === 'string')) {
    throw unexpectedReply(operation, 'a list of parked statuses', typeof parked);
  }
  return parked as string[];
}

const PAGE = 1000;

function pairs(record: Readonly<Record<string, string | number>>): (string | number)[] {
  const out: (string | number)[] = [];
  for (const [k, v] of Object.entries(record)) out.push(k, v);
  return [out.length / 2, ...out];
}
