/**
 * The stores' Lua scripts, with the kit's one rule: **every key a script writes has its expiry set or refreshed in
 * that script**. A script declares each key it touches as read or written (with the expiry the write gives it);
 * the helper wraps its source so that:
 *
 * - each write command the script makes (`SET`, `HSET`, `HINCRBY`, `RPUSH`, `SADD`, `ZADD`, `INCR`, ...) is
 *   checked to be on a key declared written: a write on a key declared read-only, or on a key not passed in
 *   `KEYS` (which a cluster could not route), fails before it is made;
 * - each write is followed at once by `PEXPIRE <its expiry>` on its key, unless the run already gave the key its
 *   expiry and nothing since could have taken it away: a counter recreated after it expired gets an expiry again,
 *   a record's retention runs from its last write, and a script that fails half-way (Redis keeps the writes it
 *   made) leaves no key without one; the script's own `PEXPIRE` of a key it writes sets the declared expiry;
 * - keys it only removed from, deleted or read keep their expiry untouched, so a fenced script that finds another
 *   holder's lease never extends it;
 * - a command refused with `WRONGTYPE` (another program's key of another type) is refused naming its key
 *   (`WRONGTYPE key <name> ...`), which Redis does not: the store's `RedisStoreError` says which key it was.
 *
 * Optionally the script is *fenced* by a lease (lease.ts): it runs only while the lease key still holds the
 * holder's value, else Redis answers `LEASE_LOST` and nothing is written.
 *
 * On a Redis Cluster all of a script's keys must share a slot: the helper checks it before sending (the stores
 * choose their hash tags for it, see keys.ts), so a key built wrong is a typed error, not a `CROSSSLOT`.
 */
import { createHash } from 'node:crypto';
import { isCluster, type RedisClient } from './client.js';
import { RedisStoreError } from './errors.js';
import { slotText } from './keys.js';

/** A key a script touches: read only, or written with the expiry that write sets. */
export interface ScriptKey {
  readonly key: string;
  /** The expiry every write of the script gives the key, ms; `0`: read only (the script must not write it). */
  readonly ttlMs: number;
}

/** A key the script only reads (or deletes, or removes members from). */
/**
 * Lua: `now_ms()`, Redis's own clock in ms (`TIME`), for scripts whose deadlines every process must read alike.
 * Put it before a script's source: `${NOW_MS}...`.
 */
export const NOW_MS = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

export function reads(key: string): ScriptKey {
  return { key, ttlMs: 0 };
}

/** A key the script may write; each run that writes it sets its expiry to `ttlMs` from then. */
export function writes(key: string, ttlMs: number): ScriptKey {
  return { key, ttlMs: Math.max(1, Math.ceil(ttlMs)) };
}

/**
 * The commands that write into a key (their first argument) and never take its expiry away or remove it: once a run
 * has set a key's expiry, later ones of these on it need no `PEXPIRE` of their own.
 */
const ADDING_COMMANDS =
  'HSET HSETNX HMSET HINCRBY HINCRBYFLOAT SADD ZADD ZINCRBY RPUSH LPUSH RPUSHX LPUSHX LINSERT LSET INCR INCRBY ' +
  'INCRBYFLOAT DECR DECRBY APPEND SETRANGE XADD';

/** The other commands that write their first argument, and may reset its expiry. */
const RESETTING_COMMANDS = 'SET SETNX SETEX PSETEX GETSET GETEX PERSIST RESTORE';

/** Commands that neither write nor remove: a key's expiry set earlier in the run still stands after them. */
const READ_COMMANDS =
  'GET MGET HGET HMGET HGETALL HEXISTS HLEN HKEYS HVALS EXISTS TYPE TTL PTTL STRLEN LRANGE LLEN LINDEX ZSCORE ' +
  'ZRANK ZRANGE ZRANGEBYSCORE ZREVRANGE ZREVRANGEBYSCORE ZCARD ZCOUNT SCARD SISMEMBER SMISMEMBER SMEMBERS XLEN ' +
  'XRANGE TIME';

/** Commands that only take away, and may remove a key: after one, the run sets every key's expiry again. */
const REMOVING_COMMANDS =
  'DEL UNLINK HDEL LTRIM LREM LPOP RPOP SREM SPOP ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX ZPOPMIN ' +
  'ZPOPMAX GETDEL XDEL XTRIM';

/**
 * What each command the wrapper knows does to the keys it names: `a` adds (the expiry stands), `w` writes and may
 * reset the expiry, `e` is the script's own `PEXPIRE key ms`, `r` reads, `x` removes. A command outside these (one
 * that writes a key other than its first argument, as `RENAME`, `SMOVE` or `ZUNIONSTORE` do, or an expiry other than
 * `PEXPIRE`) is refused when the script is built: the wrapper could not vouch for the expiry of what it writes.
 */
const KINDS = new Map<string, 'a' | 'w' | 'e' | 'r' | 'x'>([
  ...ADDING_COMMANDS.split(' ').map((c) => [c, 'a'] as const),
  ...RESETTING_COMMANDS.split(' ').map((c) => [c, 'w'] as const),
  ['PEXPIRE', 'e'],
  ...READ_COMMANDS.split(' ').map((c) => [c, 'r'] as const),
  ...REMOVING_COMMANDS.split(' ').map((c) => [c, 'x'] as const),
]);

function refused(why: string): RedisStoreError {
  return new RedisStoreError(`wa-gateway-sdk: ${why}; this is a bug in the store, please report it.`, {
    failure: 'command_failed',
    operation: 'Script',
  });
}

/**
 * Each command a script calls, with its kind. Every call must name its command literally
 * (`redis.call('HSET', ...)`, not through a local alias of `redis.call`): the wrapper decides each command's kind
 * when the script is built, not on every call in Redis.
 */
function kindsOf(source: string): Map<string, string> {
  const uses = source.match(/redis\.p?call\b/g) ?? [];
  const named = [...source.matchAll(/redis\.p?call\s*\(\s*'([A-Za-z]+)'/g)].map((m) => m[1] as string);
  if (named.length !== uses.length) throw refused('a script calls a command not named literally');
  const kinds = new Map<string, string>();
  for (const command of named) {
    const kind = KINDS.get(command.toUpperCase());
    if (kind === undefined) throw refused(`a script calls ${command}, which the script helper does not know`);
    kinds.set(command, kind);
  }
  return kinds;
}

/**
 * The wrapper. ABI: KEYS = [fence key?, ...the script's keys]; ARGV = [fence value ('' = not fenced), the expiry
 * of each of the script's keys (0 = read only), ...the script's own arguments]. The script's code sees its own
 * KEYS and ARGV only, and a `redis` whose `call`/`pcall` check and record writes.
 *
 * A run sets a key's expiry at its first write and again only when something since could have taken it away: a
 * write that resets expiries (`SET`), or any command that may remove a key (`DEL`, `HDEL`, `LTRIM`, ...), which
 * forgets every expiry the run set. A counter bumped seven times in one step costs one `PEXPIRE`, not seven (each
 * is a command to run, and to replicate and append to the AOF).
 */
function wrap(source: string): string {
  const kinds = [...kindsOf(source)].map(([c, kind]) => `${c}='${kind}'`).join(', ');
  return `
local __kinds = { ${kinds} }
local __real, __keys, __ttl, __args, __set = redis, {}, {}, {}, {}
local __first = 0
if ARGV[1] ~= '' then
  if __real.call('GET', KEYS[1]) ~= ARGV[1] then
    return __real.error_reply('LEASE_LOST the lease is held by another holder or has expired')
  end
  __first = 1
end
local __n = #KEYS - __first
for n = 1, __n do
  __keys[n] = KEYS[__first + n]
  __ttl[n] = tonumber(ARGV[1 + n])
end
for i = 2 + __n, #ARGV do __args[i - 1 - __n] = ARGV[i] end
-- A command's kind ('a', 'w', 'e', 'r', 'x': see KINDS) was decided when the script was built.
local function __kind(command)
  local k = __kinds[command]
  if not k then error('wa-gateway-sdk: a script called a command not named literally') end
  return k
end
local function __check(kind, key)
  if kind ~= 'a' and kind ~= 'w' and kind ~= 'e' then return nil end
  for n = 1, __n do
    if __keys[n] == key then
      if __ttl[n] <= 0 then error('wa-gateway-sdk: a script wrote a key declared read-only') end
      return n
    end
  end
  error('wa-gateway-sdk: a script wrote a key it was not given in KEYS')
end
local function __expire(kind, n, key)
  if kind == 'x' then __set = {} return end
  if not n or (kind == 'a' and __set[n]) then return end
  -- Set only when the key exists: a write that created nothing (RPUSHX on no list) leaves none to keep.
  __set[n] = __real.call('PEXPIRE', key, __ttl[n]) == 1
end
local function __run(via, command, ...)
  local kind = __kind(command)
  local n = __check(kind, (...))
  -- A refresh of a key the run already gave its expiry changes nothing; else it is the declared expiry, set once.
  if kind == 'e' then
    if select('#', ...) ~= 2 or (tonumber((select(2, ...))) or 0) <= 0 then
      error('wa-gateway-sdk: a script may only refresh a key it writes (PEXPIRE key ms), nothing else')
    end
    if not __set[n] then __set[n] = __real.call('PEXPIRE', (...), __ttl[n]) == 1 end
    return __set[n] and 1 or 0
  end
  local r = __real.pcall(command, ...)
  if type(r) == 'table' and r.err then
    -- Redis does not say which key a WRONGTYPE is about: the wrapper does, for the store's typed error to name it.
    if string.sub(r.err, 1, 10) == 'WRONGTYPE ' then
      r = __real.error_reply('WRONGTYPE key ' .. tostring((...)) .. ' holds another type of value')
    end
    if via == __real.call then error(r) end
  end
  __expire(kind, n, (...))
  return r
end
local __redis = setmetatable({
  call = function(command, ...) return __run(__real.call, command, ...) end,
  pcall = function(command, ...) return __run(__real.pcall, command, ...) end,
}, { __index = __real })
local function __body(KEYS, ARGV, redis)
${source}
end
return __body(__keys, __args, __redis)
`;
}

/**
 * A Lua script, run by its SHA (`EVALSHA`), loaded with `EVAL` the first time a server does not know it. Its code
 * is written as an ordinary Redis script (`KEYS`, `ARGV`, `redis.call`); the keys it is run with say which it
 * writes and with what expiry (`reads`, `writes`).
 *
 * @example
 * const KEEP_LATEST = new Script(`
 *   if (tonumber(redis.call('GET', KEYS[1])) or 0) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
 * `);
 * await KEEP_LATEST.run(redis, [writes(key, retentionMs)], [atMs]);
 */
export class Script {
  readonly sha: string;
  readonly source: string;

  constructor(body: string) {
    this.source = wrap(body);
    this.sha = createHash('sha1').update(this.source).digest('hex');
  }

  /** Runs the script over `keys` with `args`. */
  run(redis: RedisClient, keys: readonly ScriptKey[], args: readonly (string | number)[]): Promise<unknown> {
    return this.#send(redis, keys, ['', ...keys.map((k) => k.ttlMs), ...args], undefined);
  }

  /**
   * Runs the script only while `fence.key` holds `fence.value` (a lease, see lease.ts); otherwise Redis refuses
   * with `LEASE_LOST` and the script does nothing. The fence key must share the slot of `keys`.
   */
  runFenced(
    redis: RedisClient,
    fence: { readonly key: string; readonly value: string },
    keys: readonly ScriptKey[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    return this.#send(redis, keys, [fence.value, ...keys.map((k) => k.ttlMs), ...args], fence.key);
  }

  async #send(
    redis: RedisClient,
    keys: readonly ScriptKey[],
    argv: (string | number)[],
    fenceKey: string | undefined,
  ): Promise<unknown> {
    const names = keys.map((k) => k.key);
    if (fenceKey !== undefined) names.unshift(fenceKey);
    if (names.length === 0 || (isCluster(redis) && !oneSlot(names))) {
      throw new RedisStoreError(
        'wa-gateway-sdk: a script was given no key, or keys of different hash slots; this is a bug in the store, please report it.',
        { failure: 'command_failed', operation: 'Script.run' },
      );
    }
    try {
      return await redis.evalsha(this.sha, names.length, ...names, ...argv);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, names.length, ...names, ...argv);
    }
  }
}

/** On a cluster, one script's keys must share a slot: checked here, so a key built wrong never reaches Redis. */
function oneSlot(names: readonly string[]): boolean {
  const first = slotText(names[0] as string);
  return names.every((n) => slotText(n) === first);
}
