/**
 * The campaign queue's ledger: one entry per message, in the campaign's slot, and the one script every change of
 * an entry goes through. A change is a compare-and-set of the entry together with what it moves: the queue's
 * counters, the recipient's order of messages, the list of messages in doubt and, for a result, the campaign
 * report's own counters (`RedisCampaignStore`'s campaign side) in the same step, so a result is counted exactly
 * once however often a worker retries it.
 *
 * An entry is one short string, `<state>|<position>|<to>|<token>|<started at>|<detail>|<key>`:
 *
 * | state | meaning | detail |
 * |---|---|---|
 * | `q` | queued: not sent (yet, or again) | |
 * | `s` | its request may be out: written before the request, by the attempt holding `token` | |
 * | `a` | accepted | the wamid |
 * | `n` | not sent, final | the refusal's code (`SUPPRESSED`, `CANCELLED`, `GW_001`, ...) |
 * | `d` | in doubt: its worker died or its request was cut in flight; never sent again without a status or a person | why (`died`, `cut`) |
 */
import type { CampaignRecordBatch } from '../campaigns/store.js';
import {
  LOCK_LUA,
  type LockAnswer,
  lockAnswer,
  RELEASE_LUA,
  type Recipients,
} from './campaign-recipients.js';
import { RECORD_CAMPAIGN, RECORD_POINTERS } from './campaign-store.js';
import type { RedisClient } from './client.js';
import type { KeySpace } from './keys.js';
import { expectNumber, pipelineAnswers, unexpectedReply } from './replies.js';
import { NOW_MS, Script, type ScriptKey, writes } from './script.js';

export type LedgerState = 'q' | 's' | 'a' | 'n' | 'd';

export interface LedgerEntry {
  readonly state: LedgerState;
  /** The message's position in the campaign, in enqueue order (from 1). */
  readonly pos: number;
  /** The recipient, as enqueued. */
  readonly to: string;
  /** The attempt that wrote `s` (and the `d` it became); `''` when none. */
  readonly token: string;
  /** When the request was allowed (ms since the epoch); 0 when none. */
  readonly startedAt: number;
  readonly detail: string;
  /** The message's key when it is not `to`; `''` otherwise. */
  readonly key: string;
}

const STATES: ReadonlySet<string> = new Set(['q', 's', 'a', 'n', 'd']);

export function encodeEntry(e: LedgerEntry): string {
  return `${e.state}|${e.pos}|${e.to}|${e.token}|${e.startedAt || ''}|${e.detail}|${e.key}`;
}

/** An entry as stored; a value of another shape is a typed error (another program's key under the prefix). */
export function decodeEntry(operation: string, value: unknown): LedgerEntry {
  if (typeof value === 'string') {
    const parts = value.split('|');
    if (parts.length >= 7 && STATES.has(parts[0]!)) {
      return {
        state: parts[0] as LedgerState,
        pos: Number(parts[1]),
        to: parts[2]!,
        token: parts[3]!,
        startedAt: Number(parts[4] || 0),
        detail: parts[5]!,
        // A key may hold `|`: it is the last field.
        key: parts.slice(6).join('|'),
      };
    }
  }
  throw unexpectedReply(operation, 'a campaign queue ledger entry', value);
}

/** The key a message was enqueued under: its own, or its recipient. */
export function keyOf(entry: LedgerEntry): string {
  return entry.key === '' ? entry.to : entry.key;
}

/** Which queue counter a state counts in. */
export const COUNTER: Readonly<Record<LedgerState, string>> = {
  q: 'queued',
  s: 'sending',
  a: 'accepted',
  n: 'notSent',
  d: 'inDoubt',
};

/** One campaign's keys, in its slot (its name is their hash tag on a cluster). */
export interface LedgerKeys {
  /** Hash: message key's hash → entry. */
  readonly ledger: string;
  /** Hash: the queue's counters, the campaign's state (`state`, `reason`) and times. */
  readonly counts: string;
  /** Hash: recipient's hash → the positions of its messages not decided yet, in order. */
  readonly order: string;
  /** Sorted set: message key's hash → when it went in doubt. */
  readonly doubts: string;
  /**
   * Hash: parking key → `<ms>\n<status>\n<status>...`, the statuses the step that recorded a send found parked for
   * it, and when. Kept with the campaign's retention (a parking list lasts `parkMs`): applied right after, then the
   * field goes; one left behind (its worker died) is applied by the job's next run or a worker's poll.
   */
  readonly parked: string;
}

export function ledgerKeys(keys: KeySpace, campaign: string): LedgerKeys {
  const tag = keys.tag(campaign);
  return {
    ledger: keys.name('cq', 'l', tag),
    counts: keys.name('cq', 'n', tag),
    order: keys.name('cq', 'o', tag),
    doubts: keys.name('cq', 'd', tag),
    parked: keys.name('cq', 'pk', tag),
  };
}

/**
 * Adds messages not in the ledger yet, each queued at the next position and appended to its recipient's order;
 * a message whose key is there already is left as it is, and its entry answered (so an interrupted enqueue can
 * add the job it may lack). KEYS: ledger, counts, order. ARGV: now, startAt ('' = none), then per message: key
 * hash, recipient hash, to, key ('' = to). Answers the campaign's start time ('' = none: the first enqueue's
 * `startAt` is kept for the later ones) then, per message, its new position or its entry; or `{'cancelled'}`, or
 * `{'startAt', stored}` (nothing written) for a campaign enqueued already with another start time.
 */
const ENQUEUE = new Script(`
if redis.call('HGET', KEYS[2], 'state') == 'cancelled' then return {'cancelled'} end
local created = redis.call('HGET', KEYS[2], 'createdAt')
local startAt = redis.call('HGET', KEYS[2], 'startAt')
if ARGV[2] ~= '' and (startAt or '') ~= ARGV[2] then
  if created then return {'startAt', startAt or ''} end
  redis.call('HSET', KEYS[2], 'startAt', ARGV[2])
  startAt = ARGV[2]
end
if not created then redis.call('HSET', KEYS[2], 'createdAt', ARGV[1]) end
local out = {'ok', startAt or ''}
for i = 3, #ARGV, 4 do
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  if cur then
    out[#out + 1] = cur
  else
    local pos = redis.call('HINCRBY', KEYS[2], 'total', 1)
    redis.call('HSET', KEYS[1], ARGV[i], 'q|' .. pos .. '|' .. ARGV[i + 2] .. '||||' .. ARGV[i + 3])
    local list = redis.call('HGET', KEYS[3], ARGV[i + 1])
    redis.call('HSET', KEYS[3], ARGV[i + 1], list and (list .. ' ' .. pos) or tostring(pos))
    redis.call('HINCRBY', KEYS[2], 'queued', 1)
    out[#out + 1] = pos
  end
end
return out
`);

/**
 * One change of one entry (see the file's comment): `change_entry(K, A)`. K: ledger, counts, order, doubts, then
 * (for a result) the campaign report's four keys, then (one Redis) each pointer and its parking. A: key hash,
 * expected entry, next entry, gate ('1': only while the campaign runs and this message is its recipient's next;
 * 'c': only while it is not cancelled),
 * recipient hash, position, done ('1': the message leaves its recipient's order), doubt ('+<ms>' listed, '-'
 * unlisted, ''), counters (n, then k, delta), record ('1' then `RECORD_CAMPAIGN`'s arguments and the pointers'
 * values), and last the campaign. Answers `{'ok', parked statuses...}`, `{'gone', current entry}`, `{'paused'}`, `{'cancelled'}`,
 * `{'held', ms}` (a `RATE_001` holds the campaign) or `{'wait'}`.
 */
const CHANGE_LUA = `${NOW_MS}${RECORD_CAMPAIGN}${RECORD_POINTERS}
local function change_entry(K, A)
  local cur = redis.call('HGET', K[1], A[1])
  if (cur or '') ~= A[2] then return {'gone', cur or ''} end
  if A[4] ~= '' then
    local state = redis.call('HGET', K[2], 'state')
    if state == 'cancelled' or (A[4] == '1' and state == 'paused') then return {state} end
  end
  if A[4] == '1' then
    local held = tonumber(redis.call('HGET', K[2], 'heldUntil') or '0')
    if held > 0 then
      local now = now_ms()
      if held > now then return {'held', held - now} end
    end
    local list = redis.call('HGET', K[3], A[5])
    if not list or string.match(list, '^%d+') ~= A[6] then return {'wait'} end
  end
  if A[3] ~= A[2] then redis.call('HSET', K[1], A[1], A[3]) end
  if A[7] == '1' then
    local list = redis.call('HGET', K[3], A[5])
    if list then
      local rest = {}
      for p in string.gmatch(list, '%d+') do
        if p ~= A[6] then rest[#rest + 1] = p end
      end
      if #rest == 0 then redis.call('HDEL', K[3], A[5])
      else redis.call('HSET', K[3], A[5], table.concat(rest, ' ')) end
    end
  end
  if string.sub(A[8], 1, 1) == '+' then redis.call('ZADD', K[4], string.sub(A[8], 2), A[1])
  elseif A[8] == '-' then redis.call('ZREM', K[4], A[1]) end
  local i = 9
  local n = tonumber(A[i]); i = i + 1
  for _ = 1, n do redis.call('HINCRBY', K[2], A[i], A[i + 1]); i = i + 2 end
  local out = {'ok'}
  if A[i] == '1' then
    local R = {}
    for j = i + 1, #A - 1 do R[#R + 1] = A[j] end
    local at = record_campaign({K[5], K[6], K[7], K[8]}, R)
    if #K > 8 then
      -- The last two keys are the campaign's parked statuses and the registry; the pointers' keys come before them.
      local found = {}
      local parked = record_pointers(K, 9, R, at, {}, false, found)
      if #found > 0 then
        local now = now_ms()
        for _, f in ipairs(found) do redis.call('HSET', K[#K - 1], f[1], now .. '\\n' .. table.concat(f[2], '\\n')) end
        -- Registered again, so that a worker's poll looks at the campaign even if it took it for idle.
        local cur = tonumber(redis.call('ZSCORE', K[#K], A[#A]) or '0')
        redis.call('ZADD', K[#K], math.max(now, cur + 1), A[#A])
      end
      for _, v in ipairs(parked) do out[#out + 1] = v end
    end
  end
  return out
end

local function tail(t, from)
  local out = {}
  for i = from, #t do out[#out + 1] = t[i] end
  return out
end
`;

/** One change (see `CHANGE_LUA`): KEYS and ARGV are `change_entry`'s. */
const CHANGE = new Script(`${CHANGE_LUA}
return change_entry(KEYS, ARGV)
`);

/**
 * On one Redis, the gate of a message's first attempt with its recipient's lock in one step. KEYS: lock, attempt,
 * then `change_entry`'s. ARGV: token, lease ms, campaign, key hash, now, then `change_entry`'s. A lock refused is
 * answered as `lock_recipient` answers it; a change refused lets the lock go again.
 */
const GATE_LOCKED = new Script(`${LOCK_LUA}${RELEASE_LUA}${CHANGE_LUA}
local refused = lock_recipient(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
if refused then return refused end
local out = change_entry(tail(KEYS, 3), tail(ARGV, 6))
if out[1] ~= 'ok' then release_recipient(KEYS[1], KEYS[2], ARGV[1], 'done') end
return out
`);

/**
 * On one Redis, a result with its recipient's release in one step (only when the change is made). KEYS: lock,
 * attempt, then `change_entry`'s. ARGV: token, `done` | `doubt`, then `change_entry`'s.
 */
const CHANGE_RELEASED = new Script(`${RELEASE_LUA}${CHANGE_LUA}
local out = change_entry(tail(KEYS, 3), tail(ARGV, 3))
if out[1] == 'ok' then release_recipient(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) end
return out
`);

/**
 * The campaign's state: `pause` (kept with the first reason while paused), `resume`, `cancel` (final). KEYS:
 * counts. ARGV: action, reason (JSON), now. Answers the state before, or `unknown` (nothing written) for a campaign
 * never enqueued or expired.
 */
const STATE = new Script(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
local before = redis.call('HGET', KEYS[1], 'state') or 'running'
if before == 'cancelled' then return before end
if ARGV[1] == 'pause' then
  if before ~= 'paused' then redis.call('HSET', KEYS[1], 'state', 'paused', 'reason', ARGV[2], 'pausedAt', ARGV[3]) end
elseif ARGV[1] == 'resume' then
  if before == 'paused' then
    redis.call('HDEL', KEYS[1], 'state', 'reason', 'pausedAt')
    redis.call('HSET', KEYS[1], 'resumedAt', ARGV[3])
  end
else
  redis.call('HSET', KEYS[1], 'state', 'cancelled', 'reason', ARGV[2], 'cancelledAt', ARGV[3])
end
return before
`);

/**
 * Sets a campaign's deadline field to `ms` from now (Redis's clock: every process reads it alike), or leaves it if
 * it is later already: `heldUntil` (a `RATE_001` holds every send; the gate reads it), `replicasUntil` (too few
 * replicas held a mark; `status()` says so). KEYS: counts. ARGV: ms, field.
 */
const HOLD = new Script(`${NOW_MS}
local untilMs = now_ms() + tonumber(ARGV[1])
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0')
if untilMs > cur then redis.call('HSET', KEYS[1], ARGV[2], untilMs) end
return 1
`);

/** Notes statuses found parked (a cluster's pointer step), with their expiry in the same step. KEYS: notes. ARGV: pairs. */
const NOTE = new Script(`
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
return 1
`);

/** What a change moves besides the entry. */
export interface ChangeEffects {
  /**
   * `true`: only while the campaign runs and this message is its recipient's next (the gate before a request).
   * `'live'`: only while the campaign is not cancelled (a message queued again by a person).
   */
  gate?: boolean | 'live';
  /** The message leaves its recipient's order (decided: accepted, not sent, dropped). */
  done?: boolean;
  /** Listed in doubt since this time, or no longer listed. */
  doubt?: { since: number } | 'remove';
  /** Counter deltas. */
  counts?: Readonly<Record<string, number>>;
  /** The result, recorded in the campaign report in the same step (one `CampaignRecordBatch` of one result). */
  record?: CampaignRecordBatch;
  /**
   * The recipient's side: `lock` takes its lock for the attempt `token` before the change (a gate's first step),
   * `release` lets it go after the change is made. In the same step on one Redis; right before or after on a
   * cluster, where the recipient's keys live in its own slot.
   */
  recipient?: { token: string; lock?: { leaseMs: number; campaign: string }; release?: 'done' | 'doubt' };
}

export type ChangeAnswer =
  | { outcome: 'ok'; parked: string[] }
  | { outcome: 'gone'; current: LedgerEntry | undefined }
  | { outcome: 'paused' | 'cancelled' | 'wait' }
  /** The campaign is held (`RATE_001`) for `ms` more. */
  | { outcome: 'held'; ms: number }
  /** The recipient's lock was refused (`effects.recipient.lock`): nothing changed. */
  | { outcome: 'locked'; lock: Exclude<LockAnswer, { outcome: 'ok' }> };

/** The campaign report's side of the store, as the ledger's scripts write it. */
export interface RecordSide {
  campaignKeys(campaign: string): readonly ScriptKey[];
  side(batch: CampaignRecordBatch): (string | number)[];
  message(campaign: string, wamid: string, state: string): { keys: readonly ScriptKey[]; value: string };
}

/** The ledger of the campaigns of one queue: its scripts over its keys. */
export class Ledger {
  constructor(
    readonly redis: RedisClient,
    readonly keys: KeySpace,
    readonly retentionMs: number,
    readonly report: RecordSide,
    readonly recipients: Recipients,
  ) {}

  keysOf(campaign: string): LedgerKeys {
    return ledgerKeys(this.keys, campaign);
  }

  #writes(campaign: string): ScriptKey[] {
    const k = this.keysOf(campaign);
    return [k.ledger, k.counts, k.order, k.doubts].map((key) => writes(key, this.retentionMs));
  }

  /** Runs ENQUEUE; answers per message its new position (a number) or its entry as stored. */
  async enqueue(
    campaign: string,
    now: number,
    startAt: number | undefined,
    messages: readonly { kh: string; rh: string; to: string; key: string }[],
  ): Promise<
    | 'cancelled'
    | { startAtDiffers: number | undefined }
    | { startAt: number | undefined; answers: (number | LedgerEntry)[] }
  > {
    const op = 'CampaignQueue.enqueue';
    const [ledger, counts, order] = this.#writes(campaign);
    const args: (string | number)[] = [now, startAt ?? ''];
    for (const m of messages) args.push(m.kh, m.rh, m.to, m.key);
    const answer = await ENQUEUE.run(this.redis, [ledger!, counts!, order!], args);
    if (!Array.isArray(answer) || answer.length === 0) throw unexpectedReply(op, 'a list', answer);
    if (answer[0] === 'cancelled') return 'cancelled';
    const stored = answer[1] === '' ? undefined : expectNumber(op, answer[1]);
    if (answer[0] === 'startAt') return { startAtDiffers: stored };
    return {
      startAt: stored,
      answers: answer.slice(2).map((a: unknown) => (typeof a === 'number' ? a : decodeEntry(op, a))),
    };
  }

  /**
   * Changes one entry from `expected` to `next`, with `effects`: in one step (`change_entry`), with the recipient's
   * lock or release in the same step on one Redis, and in its own step before or after on a cluster.
   */
  async change(
    campaign: string,
    kh: string,
    rh: string,
    expected: LedgerEntry,
    next: LedgerEntry,
    effects: ChangeEffects = {},
  ): Promise<ChangeAnswer> {
    const keys: ScriptKey[] = this.#writes(campaign);
    const counts = Object.entries(effects.counts ?? {}).filter(([, n]) => n !== 0);
    const doubt =
      effects.doubt === undefined ? '' : effects.doubt === 'remove' ? '-' : `+${effects.doubt.since}`;
    const args: (string | number)[] = [
      kh,
      encodeEntry(expected),
      encodeEntry(next),
      effects.gate === 'live' ? 'c' : effects.gate ? '1' : '',
      rh,
      expected.pos,
      effects.done ? '1' : '',
      doubt,
      counts.length,
      ...counts.flat(),
    ];
    if (effects.record) {
      keys.push(...this.report.campaignKeys(campaign));
      args.push('1', ...this.report.side(effects.record));
      // On one Redis the pointers share the step; on a cluster they are the caller's next step.
      if (!this.keys.spread) {
        for (const { wamid, state } of effects.record.accepted) {
          const m = this.report.message(campaign, wamid, state);
          keys.push(...m.keys);
          args.push(m.value);
        }
        if (effects.record.accepted.length > 0) {
          keys.push(
            writes(this.keysOf(campaign).parked, this.retentionMs),
            writes(this.keys.name('cq', 'ids'), this.retentionMs),
          );
        }
      }
    } else args.push('0');
    args.push(campaign);
    const step = effects.recipient;
    const lock = step?.lock;
    const recipientKeys = this.recipients.scriptKeys(rh, lock?.leaseMs ?? 1);
    let answer: unknown;
    if (step === undefined) {
      answer = await CHANGE.run(this.redis, keys, args);
    } else if (!this.keys.spread) {
      answer = lock
        ? await GATE_LOCKED.run(
            this.redis,
            [...recipientKeys, ...keys],
            [step.token, lock.leaseMs, lock.campaign, kh, Date.now(), ...args],
          )
        : await CHANGE_RELEASED.run(
            this.redis,
            [...recipientKeys, ...keys],
            [step.token, step.release ?? 'done', ...args],
          );
    } else {
      if (lock) {
        const locked = await this.recipients.lock(rh, step.token, lock.leaseMs, lock.campaign, kh);
        if (locked.outcome !== 'ok') return { outcome: 'locked', lock: locked };
      }
      answer = await CHANGE.run(this.redis, keys, args);
      const made = Array.isArray(answer) && answer[0] === 'ok';
      if (lock && !made) await this.recipients.release(rh, step.token, 'done');
      if (step.release && made) await this.recipients.release(rh, step.token, step.release);
    }
    return this.#answer(answer);
  }

  #answer(answer: unknown): ChangeAnswer {
    const op = 'CampaignQueue.ledger';
    if (!Array.isArray(answer) || typeof answer[0] !== 'string') throw unexpectedReply(op, 'a list', answer);
    const [outcome, ...rest] = answer as [string, ...unknown[]];
    if (outcome === 'ok') return { outcome, parked: rest.filter((r): r is string => typeof r === 'string') };
    if (outcome === 'gone') {
      const current = rest[0];
      return { outcome, current: current === '' ? undefined : decodeEntry(op, current) };
    }
    if (outcome === 'paused' || outcome === 'cancelled' || outcome === 'wait') return { outcome };
    if (outcome === 'held') return { outcome, ms: expectNumber(op, rest[0]) };
    const lock = lockAnswer(answer);
    if (lock.outcome !== 'ok') return { outcome: 'locked', lock };
    throw unexpectedReply(op, 'a ledger outcome', outcome);
  }

  /** Notes statuses found parked by a step apart from the ledger's (a cluster's pointers), before they are applied. */
  async noteParked(campaign: string, found: ReadonlyMap<string, readonly string[]>): Promise<void> {
    if (found.size === 0) return;
    const now = Date.now();
    await NOTE.run(
      this.redis,
      [writes(this.keysOf(campaign).parked, this.retentionMs)],
      [...found].flatMap(([k, items]) => [k, [now, ...items].join('\n')]),
    );
  }

  /** The statuses noted and not applied yet, by parking key, with when each was noted (ms). */
  async parkedNoted(
    campaign: string,
    parkingKey?: string,
  ): Promise<Map<string, { at: number; items: string[] }>> {
    const key = this.keysOf(campaign).parked;
    const fields: [string, string | null][] =
      parkingKey === undefined
        ? Object.entries(await this.redis.hgetall(key))
        : [[parkingKey, await this.redis.hget(key, parkingKey)]];
    const out = new Map<string, { at: number; items: string[] }>();
    for (const [k, value] of fields) {
      if (typeof value !== 'string') continue;
      const [at, ...items] = value.split('\n');
      out.set(k, { at: Number(at), items });
    }
    return out;
  }

  /**
   * Statuses applied: their notes go, and on a cluster their parking lists (the step there leaves them until now;
   * on one Redis the ledger's step took them out).
   */
  async parkedApplied(campaign: string, parkingKeys: readonly string[]): Promise<void> {
    if (parkingKeys.length === 0) return;
    await this.redis.hdel(this.keysOf(campaign).parked, ...parkingKeys);
    // One key per command: each parking list is in its wamid's slot.
    if (this.keys.spread) await Promise.all(parkingKeys.map((k) => this.redis.del(k)));
  }

  /** Holds the campaign's sends for `ms` (a `RATE_001`'s `retry_after`): every worker's gate refuses meanwhile. */
  async hold(campaign: string, ms: number): Promise<void> {
    await this.#until(campaign, 'heldUntil', ms);
  }

  /** Notes that a gate found too few replicas: `status()` reports the wait for `ms` (refusals renew it). */
  async replicasShort(campaign: string, ms: number): Promise<void> {
    await this.#until(campaign, 'replicasUntil', ms);
  }

  async #until(campaign: string, field: 'heldUntil' | 'replicasUntil', ms: number): Promise<void> {
    await HOLD.run(
      this.redis,
      [writes(this.keysOf(campaign).counts, this.retentionMs)],
      [Math.ceil(ms), field],
    );
  }

  /** The campaign's state as stored. */
  async stateOf(campaign: string): Promise<'running' | 'paused' | 'cancelled'> {
    const state = await this.redis.hget(this.keysOf(campaign).counts, 'state');
    return state === 'paused' || state === 'cancelled' ? state : 'running';
  }

  /** Pauses, resumes or cancels a campaign; answers its state before. */
  async state(
    campaign: string,
    action: 'pause' | 'resume' | 'cancel',
    reason: string,
    now: number,
  ): Promise<'running' | 'paused' | 'cancelled' | 'unknown'> {
    const op = `CampaignQueue.${action}`;
    const answer = await STATE.run(
      this.redis,
      [writes(this.keysOf(campaign).counts, this.retentionMs)],
      [action, reason, now],
    );
    if (answer === 'running' || answer === 'paused' || answer === 'cancelled' || answer === 'unknown') {
      return answer;
    }
    throw unexpectedReply(op, 'a campaign state', answer);
  }

  /** One entry, or `undefined`. */
  async entry(campaign: string, kh: string): Promise<LedgerEntry | undefined> {
    const value = await this.redis.hget(this.keysOf(campaign).ledger, kh);
    return value === null ? undefined : decodeEntry('CampaignQueue.ledger', value);
  }

  /** The counters and state hash. */
  async counts(campaign: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keysOf(campaign).counts);
  }

  /**
   * The counters and state hash, and Redis's clock in ms read with it (its deadlines are on that clock). On a
   * cluster the pipeline goes to the campaign's node: `TIME` has no key of its own.
   */
  async countsAndNow(campaign: string): Promise<{ counts: Record<string, string>; now: number }> {
    const op = 'CampaignQueue.status';
    const counted = this.keysOf(campaign).counts;
    const [counts, time] = pipelineAnswers(
      op,
      await this.redis.pipeline().hgetall(counted).time().exec(),
      2,
      [counted],
    );
    if (typeof counts !== 'object' || counts === null) throw unexpectedReply(op, 'a hash', counts);
    if (!Array.isArray(time) || time.length !== 2) throw unexpectedReply(op, 'TIME', time);
    return {
      counts: counts as Record<string, string>,
      now: Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000),
    };
  }

  /** Entries in doubt since before `until`, oldest first: their key hashes and times. */
  async doubts(campaign: string, until: number, limit: number): Promise<{ kh: string; since: number }[]> {
    const flat = await this.redis.zrangebyscore(
      this.keysOf(campaign).doubts,
      '-inf',
      until,
      'WITHSCORES',
      'LIMIT',
      0,
      limit,
    );
    const out: { kh: string; since: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) {
      out.push({ kh: flat[i]!, since: expectNumber('CampaignQueue.inDoubt', flat[i + 1]) });
    }
    return out;
  }

  /** The ledger a page at a time (`HSCAN`), for cancelling and re-adding jobs. */
  async *scan(campaign: string): AsyncIterable<[string, LedgerEntry][]> {
    const key = this.keysOf(campaign).ledger;
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(key, cursor, 'COUNT', 500);
      cursor = next;
      const page: [string, LedgerEntry][] = [];
      for (let i = 0; i < flat.length; i += 2) {
        page.push([flat[i]!, decodeEntry('CampaignQueue.ledger', flat[i + 1])]);
      }
      if (page.length > 0) yield page;
    } while (cursor !== '0');
  }
}
