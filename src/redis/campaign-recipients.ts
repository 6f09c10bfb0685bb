/**
 * A recipient's side of the campaign queue, in the recipient's own slot (its hash is the keys' hash tag on a
 * cluster):
 *
 * - its **lock** (`cq:r:<hash>`): one message to a recipient in flight at a time, whichever campaign it belongs
 *   to. A lease: it expires when its worker dies, and is renewed while the request is out;
 * - its **attempt** (`cq:a:<hash>`): which message's request may be out (`o`, open) or is in doubt (`d`), since
 *   when, by which attempt, and the statuses seen meanwhile for that recipient whose wamid no recorded send
 *   explains: the evidence a message in doubt is resolved from. While a message to the recipient is in doubt no
 *   other one starts (its lock is refused), so an unexplained status for the recipient timed after the attempt is
 *   that message's, unless something else sent to the recipient without the SDK recording it (see the docs).
 */
import type { RedisClient } from './client.js';
import type { KeySpace } from './keys.js';
import { unexpectedReply } from './replies.js';
import { Script, type ScriptKey, writes } from './script.js';

/** Statuses kept per unexplained wamid: a message has a handful (sent, delivered, read, each maybe twice). */
const KEPT_PER_WAMID = 8;

/**
 * Takes the recipient for one attempt: `lock_recipient(lock, attempt, token, lease ms, campaign, key hash, now)`
 * answers `nil` when taken, `{'busy'}` when another attempt holds the lock, or the attempt standing in the way when
 * its lock is gone: `{'open' | 'doubt', campaign, key hash, token}` (an open one's holder died: reconcile it).
 * Internal: also run inside the ledger's gate on one Redis (campaign-ledger.ts).
 */
export const LOCK_LUA = `
local function lock_recipient(KL, KA, token, lease, c, kh, now)
  if redis.call('EXISTS', KL) == 1 then return {'busy'} end
  local a = redis.call('HMGET', KA, 's', 'c', 'k', 'tok')
  if a[1] == 'o' then return {'open', a[2], a[3], a[4]} end
  if a[1] == 'd' then return {'doubt', a[2], a[3], a[4]} end
  redis.call('DEL', KA)
  redis.call('SET', KL, token, 'PX', lease)
  redis.call('HSET', KA, 's', 'o', 'c', c, 'k', kh, 'tok', token, 't', now)
  return nil
end
`;

/**
 * Ends an attempt: `release_recipient(lock, attempt, token, 'done' | 'doubt')` lets the lock go; a `done` attempt
 * is forgotten with its evidence, a `doubt` kept. Only the attempt's own token does anything (a later attempt's
 * record is never touched). Answers `{'ok'}` or `{'other'}`. Internal: also run inside the ledger's result.
 */
export const RELEASE_LUA = `
local function release_recipient(KL, KA, token, mode)
  if redis.call('GET', KL) == token then redis.call('DEL', KL) end
  if redis.call('HGET', KA, 'tok') ~= token then return {'other'} end
  if mode == 'doubt' then redis.call('HSET', KA, 's', 'd')
  else redis.call('DEL', KA) end
  return {'ok'}
end
`;

/** KEYS: lock, attempt. ARGV: token, lease ms, campaign, key hash, now. Answers `{'ok'}` or a refusal. */
const LOCK = new Script(`${LOCK_LUA}
return lock_recipient(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]) or {'ok'}
`);

/** KEYS: lock, attempt. ARGV: token, mode. */
const RELEASE = new Script(`${RELEASE_LUA}
return release_recipient(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
`);

/**
 * A status for the recipient (KEYS: lock, attempt; ARGV: wamid, its time in s, the raw status, explained '1'/'0').
 * Nothing is written when no attempt stands, when the status is older than it, or when its wamid is explained
 * (then any evidence kept for it goes). For an attempt in doubt with no other evidence: `{'resolve', campaign,
 * key hash, token}`. Otherwise the status is kept as evidence (at most 8 per wamid): `{'kept'}` for an open
 * attempt, `{'ambiguous'}` for one in doubt that has evidence of another wamid too.
 */
const WITNESS = new Script(`
local a = redis.call('HMGET', KEYS[2], 's', 'c', 'k', 'tok', 't')
if not a[1] then return {} end
local field = 'w:' .. ARGV[1]
if ARGV[4] == '1' then
  redis.call('HDEL', KEYS[2], field)
  return {}
end
if tonumber(ARGV[2]) < math.floor(tonumber(a[5]) / 1000) then return {} end
if a[1] == 'd' then
  local others = false
  for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
    if string.sub(f, 1, 2) == 'w:' and f ~= field then others = true end
  end
  if not others then return {'resolve', a[2], a[3], a[4]} end
end
local kept = redis.call('HGET', KEYS[2], field)
local n = 0
if kept then n = select(2, string.gsub(kept, '\\n', '')) + 1 end
if n < ${KEPT_PER_WAMID} then redis.call('HSET', KEYS[2], field, kept and (kept .. '\\n' .. ARGV[3]) or ARGV[3]) end
return {a[1] == 'd' and 'ambiguous' or 'kept'}
`);

/** An attempt as stored. */
export interface Attempt {
  readonly open: boolean;
  readonly campaign: string;
  readonly kh: string;
  readonly token: string;
  readonly startedAt: number;
  /** Statuses kept per unexplained wamid, raw JSON. */
  readonly evidence: ReadonlyMap<string, string[]>;
}

/** The attempt standing in a lock's way: its campaign, message key hash and token. */
export interface StandingAttempt {
  campaign: string;
  kh: string;
  token: string;
}

export type LockAnswer =
  | { outcome: 'ok' }
  | { outcome: 'busy' }
  | ({ outcome: 'open' } & StandingAttempt)
  | ({ outcome: 'doubt' } & StandingAttempt);

export type WitnessAnswer =
  | { outcome: 'none' | 'kept' | 'ambiguous' }
  | { outcome: 'resolve'; campaign: string; kh: string; token: string };

/** A lock's answer, from `LOCK` or from the ledger's gate that runs it. */
export function lockAnswer(answer: unknown): LockAnswer {
  const op = 'CampaignQueue.lock';
  if (!Array.isArray(answer)) throw unexpectedReply(op, 'a list', answer);
  const [outcome, c, k, t] = answer as string[];
  if (outcome === 'ok') return { outcome };
  if (outcome === 'busy') return { outcome };
  if ((outcome === 'open' || outcome === 'doubt') && c && k && t !== undefined) {
    return { outcome, campaign: c, kh: k, token: t };
  }
  throw unexpectedReply(op, 'a lock outcome', outcome);
}

/** The recipients' locks and attempts of one queue. */
export class Recipients {
  constructor(
    readonly redis: RedisClient,
    readonly keys: KeySpace,
    readonly retentionMs: number,
  ) {}

  /** The recipient's lock and attempt keys, as scripts declare them (the lock expires with `leaseMs`). */
  scriptKeys(rh: string, leaseMs = 1): [ScriptKey, ScriptKey] {
    const tag = this.keys.tag(rh);
    return [
      writes(this.keys.name('cq', 'r', tag), leaseMs),
      writes(this.keys.name('cq', 'a', tag), this.retentionMs),
    ];
  }

  #keys(rh: string, leaseMs = 1): [ScriptKey, ScriptKey] {
    return this.scriptKeys(rh, leaseMs);
  }

  async lock(rh: string, token: string, leaseMs: number, campaign: string, kh: string): Promise<LockAnswer> {
    const answer = await LOCK.run(this.redis, this.#keys(rh, leaseMs), [
      token,
      leaseMs,
      campaign,
      kh,
      Date.now(),
    ]);
    return lockAnswer(answer);
  }

  /**
   * The recipient's message in doubt, if one is: it holds the recipient in every campaign of the queue (no other
   * message to them starts) until it is resolved, resent or dropped.
   */
  async doubtOf(rh: string): Promise<{ campaign: string; kh: string } | undefined> {
    const [state, campaign, kh] = await this.redis.hmget(this.#keys(rh)[1]!.key, 's', 'c', 'k');
    return state === 'd' && campaign && kh ? { campaign, kh } : undefined;
  }

  /** The recipient's lock key (a `RedisLease` while an attempt holds it). */
  lockKey(rh: string): string {
    return this.#keys(rh)[0]!.key;
  }

  async release(rh: string, token: string, mode: 'done' | 'doubt'): Promise<boolean> {
    const answer = await RELEASE.run(this.redis, this.#keys(rh), [token, mode]);
    if (!Array.isArray(answer)) throw unexpectedReply('CampaignQueue.release', 'a list', answer);
    return answer[0] === 'ok';
  }

  async witness(
    rh: string,
    wamid: string,
    seconds: number,
    raw: string,
    explained: boolean,
  ): Promise<WitnessAnswer> {
    const op = 'CampaignQueue.apply';
    const answer = await WITNESS.run(this.redis, this.#keys(rh), [
      wamid,
      seconds,
      raw,
      explained ? '1' : '0',
    ]);
    if (!Array.isArray(answer)) throw unexpectedReply(op, 'a list', answer);
    if (answer.length === 0) return { outcome: 'none' };
    const [outcome, c, k, t] = answer as string[];
    if (outcome === 'kept' || outcome === 'ambiguous') return { outcome };
    if (outcome === 'resolve' && c && k && t !== undefined) return { outcome, campaign: c, kh: k, token: t };
    throw unexpectedReply(op, 'a witness outcome', outcome);
  }

  /** The recipient's attempt, or `undefined`; one read. */
  async attempt(rh: string): Promise<Attempt | undefined> {
    const fields = await this.redis.hgetall(this.#keys(rh)[1]!.key);
    if (fields['s'] !== 'o' && fields['s'] !== 'd') return undefined;
    const evidence = new Map<string, string[]>();
    for (const [field, value] of Object.entries(fields)) {
      if (field.startsWith('w:')) evidence.set(field.slice(2), value.split('\n'));
    }
    return {
      open: fields['s'] === 'o',
      campaign: fields['c'] ?? '',
      kh: fields['k'] ?? '',
      token: fields['tok'] ?? '',
      startedAt: Number(fields['t'] ?? 0),
      evidence,
    };
  }

  /** Whether the recipient has an attempt standing (one read, no script: the common case of a status). */
  async standing(rh: string): Promise<boolean> {
    return (await this.redis.exists(this.#keys(rh)[1]!.key)) === 1;
  }
}
