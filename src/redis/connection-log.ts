/**
 * The one `'error'` listener the SDK puts on a Redis client (a store's, or a connection the inbox opened). ioredis
 * emits `'error'` on every failed reconnect, a few times a second while Redis is away: logging each would bury the
 * one line that matters under dozens of `Error`s. So an outage is logged once, when it starts, with where the client
 * connects (host and port, never a password: ioredis keeps it apart) and why it cannot (the system error code, in
 * words); then once more when the connection is back, at the same level: an outage's end matters as much as its start.
 */
import { type Logger, log } from '../core/logger.js';
import { errorMeta, messageOf } from './errors.js';

/** What a client listener needs of an ioredis client or cluster (or of a copy from another ioredis version). */
interface WatchedClient {
  on(event: string, listener: (arg: unknown) => void): unknown;
  options?: object;
}

/** Per client: whether an outage is running, since when, and its reason in words (for the inbox's lines). */
const watched = new WeakMap<object, { down: boolean; since: number; reason?: string }>();

/** A refused password: Redis answers, but every command fails as though it were away. */
const AUTH_REASONS: Readonly<Record<string, string>> = {
  NOAUTH: 'Redis wants a password and none was given',
  WRONGPASS: 'Redis refused the user name or password',
};

/** The usual causes, in words: a wrong URL shows up as the first two. */
const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED:
    'connection refused: nothing listens on that port (is redis-server running? is the port right?)',
  ENOTFOUND: 'the host name does not resolve (a typo in REDIS_URL, or a name only another network knows)',
  EAI_AGAIN: 'the host name could not be resolved right now (DNS)',
  ETIMEDOUT: 'the connection timed out (a firewall, or the wrong host)',
  ECONNRESET:
    'the connection was reset (Redis restarted or failed over, or a proxy cut it; on a first connect, a TLS/plain ' +
    'mismatch: rediss:// against a plain port, or the reverse?)',
  EPIPE: 'the connection broke while writing to it (Redis restarted or failed over, or a proxy cut it)',
  EHOSTUNREACH: 'the host is unreachable',
  ...AUTH_REASONS,
};

/** @internal Why an ioredis `Cluster` given one Redis (not a cluster node) reached no node. */
export const NOT_CLUSTER_REASON =
  'it is not a node of a Redis Cluster (cluster support disabled): connect with a client for one Redis, not a Cluster';

/**
 * Said by ioredis as it connects to a database number the server lacks (`redis://host/99`); it then goes on in
 * database 0, where every command would read and write another database's keys.
 */
const MISSING_DATABASE = /^ERR DB index is out of range/;

/** @internal Whether `error` is ioredis's refused `SELECT` of a database the server lacks. */
export function isMissingDatabase(error: unknown): boolean {
  return MISSING_DATABASE.test(messageOf(error));
}

/**
 * What ioredis says, with no system code, of a connection that gives no answer or was closed: a code for the log
 * line's meta (where a system error has its `ECONNREFUSED`) and the reason in words. A port where something else
 * listens (another service, a TLS port given a `redis://` URL) accepts the connection and never answers the ready
 * check: ioredis says only "Command timed out".
 */
const IOREDIS_REASONS: readonly { message: RegExp; code: string; reason: string }[] = [
  {
    message: /^Command timed out/,
    code: 'TIMEOUT',
    reason:
      'Redis did not answer in time (something on that port accepts connections but does not answer as Redis: ' +
      'another service, a TLS port given a redis:// URL; or Redis is stalled)',
  },
  { message: /^Connection is closed\./, code: 'CLOSED', reason: 'the connection was closed' },
  {
    message: MISSING_DATABASE,
    code: 'DB_RANGE',
    reason: "the Redis has no database of the URL's number (its /<db>): check the URL",
  },
  {
    message: /^Reached the max retries per request limit/,
    code: 'MAX_RETRIES',
    reason: 'a command failed on every retry its client allows (maxRetriesPerRequest)',
  },
];

/** @internal Where the client connects, as `host:port` (or the socket path; a cluster's startup nodes, comma-separated). */
export function whereOf(client: WatchedClient): string {
  // An ioredis `Cluster` (its startup nodes are private to its types, not to JavaScript).
  const startupNodes: unknown = (client as { startupNodes?: unknown }).startupNodes;
  if (Array.isArray(startupNodes)) {
    return `cluster ${startupNodes.map((node: unknown) => nodeWhere(client, node)).join(',')}`;
  }
  const options: { host?: unknown; port?: unknown; path?: unknown } = client.options ?? {};
  if (typeof options.path === 'string' && options.path !== '') return options.path;
  const host = typeof options.host === 'string' ? options.host : 'localhost';
  const port = typeof options.port === 'number' || typeof options.port === 'string' ? options.port : 6379;
  return `${host}:${port}`;
}

/**
 * A cluster's startup node as ioredis takes it: options, a port on localhost, or a URL (`redis://:password@host`),
 * of which only the host and port are said, never the credentials.
 */
function nodeWhere(client: WatchedClient, node: unknown): string {
  if (typeof node === 'object' && node !== null)
    return whereOf({ on: client.on, options: node as WatchedClient['options'] });
  if (typeof node === 'number') return `localhost:${node}`;
  if (typeof node !== 'string') return '?';
  try {
    const url = new URL(node.includes('//') ? node : `redis://${node}`);
    return `${url.hostname || 'localhost'}:${url.port || 6379}`;
  } catch {
    return '?';
  }
}

/**
 * The reason for a connection error: its system code, else ioredis's own words for a connection without one, else
 * the first word of a Redis error reply (`NOAUTH`, `WRONGPASS`: a code, not the rest of the reply), else the
 * error's class name.
 */
function reasonOf(error: unknown): { code: string; reason: string } {
  const { errorName, code } = errorMeta(error);
  if (code !== undefined) return { code, reason: REASONS[code] ?? code };
  const message = messageOf(error);
  const known = IOREDIS_REASONS.find((r) => r.message.test(message));
  if (known) return { code: known.code, reason: known.reason };
  // An ioredis Cluster that reached no node says only its class: the last node's own error says why.
  const lastNodeError: unknown = (error as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (errorName === 'ClusterAllFailedError' && lastNodeError !== undefined && lastNodeError !== error) {
    if (/cluster support disabled/i.test(messageOf(lastNodeError)))
      return { code: 'NOT_CLUSTER', reason: NOT_CLUSTER_REASON };
    return reasonOf(lastNodeError);
  }
  const key = /^([A-Z]{4,20})\b/.exec(message)?.[1] ?? errorName;
  return { code: key, reason: REASONS[key] ?? key };
}

/** @internal A connection error's reason in words (`connection refused: nothing listens on that port ...`). */
export function connectionReason(error: unknown): string {
  return reasonOf(error).reason;
}

/**
 * @internal Adds the SDK's one `'error'` and `'ready'` listener pair to `client`, once per client however many
 * stores share it: a client without an `'error'` listener prints every failure (or crashes the process). `role`
 * names who reports (`RedisIdempotencyStore`, `createInboxHandler`).
 */
export function watchConnection(client: WatchedClient, logger: Logger | undefined, role: string): void {
  if (watched.has(client)) return;
  const state = { down: false, since: 0 };
  watched.set(client, state);
  client.on('error', (error: unknown) => {
    if (isMissingDatabase(error)) refuseMissingDatabase(client, logger, role, error);
    else noteConnectionError(client, logger, role, error);
  });
  client.on('ready', () => {
    if (!state.down) return;
    state.down = false;
    const seconds = Math.round((Date.now() - state.since) / 1000);
    log(logger, 'warn', `${role}: Redis at ${whereOf(client)} is reachable again, after ${seconds} s`);
  });
}

/**
 * @internal Whether `error` says the connection to Redis is down: a system error code (`ECONNREFUSED`,
 * `ECONNRESET`, `ETIMEDOUT`, ...), a refused password (`NOAUTH`, `WRONGPASS`), or ioredis's own words for a
 * closed connection. A Redis that answered (a refused script, a job's lock missing) is not an outage: an emitter that
 * relays every error (a BullMQ worker) must sort them with this before `noteConnectionError`.
 */
export function isConnectionError(error: unknown): boolean {
  const { errorName, code } = errorMeta(error);
  if (code !== undefined && /^E[A-Z0-9_]+$/.test(code)) return true;
  if (errorName === 'MaxRetriesPerRequestError' || errorName === 'ConnectionClosedError') return true;
  const message = messageOf(error);
  return IOREDIS_REASONS.some((r) => r.message.test(message)) || reasonOf(error).code in AUTH_REASONS;
}

/**
 * @internal Logs `error` as an outage of `client`, by the rule above (once, until its next `'ready'`): for errors
 * reported on the client's behalf by another emitter (a BullMQ worker relays those of the connections it made
 * from the client), so that they follow the same rule as the client's own. It takes whatever it is given as an
 * outage: an emitter that also relays other errors filters them with `isConnectionError` first.
 */
export function noteConnectionError(
  client: WatchedClient,
  logger: Logger | undefined,
  role: string,
  error: unknown,
): void {
  watchConnection(client, logger, role);
  const state = watched.get(client);
  if (state === undefined || state.down) return;
  const where = whereOf(client);
  const { code, reason } = reasonOf(error);
  state.down = true;
  state.since = Date.now();
  state.reason = reason;
  log(
    logger,
    'warn',
    `${role}: cannot reach Redis at ${where}: ${reason}. Commands fail until it is back (logged once per ` +
      'outage); check the URL the client was given (REDIS_URL).',
    { where, code },
  );
}

/**
 * A client connected to a database number the server lacks: ioredis would go on in database 0, so the client is
 * closed (its commands fail, as with Redis away, never on another database's keys), and the log says why, as an
 * error: an outage would end, this lasts until the URL is fixed.
 */
function refuseMissingDatabase(
  client: WatchedClient,
  logger: Logger | undefined,
  role: string,
  error: unknown,
): void {
  (client as { disconnect?: () => void }).disconnect?.();
  const state = watched.get(client);
  if (state === undefined || state.down) return;
  const { code, reason } = reasonOf(error);
  state.down = true;
  state.since = Date.now();
  state.reason = reason;
  const where = whereOf(client);
  log(
    logger,
    'error',
    `${role}: the Redis at ${where} has no database of the URL's number (its /<db>): ioredis would go on in ` +
      "database 0, on another database's keys, so this client is closed and its commands fail. Fix the URL " +
      '(REDIS_URL).',
    { where, code },
  );
}

/** @internal Whether the client's last news was an error (its outage already logged). */
export function connectionDown(client: object): boolean {
  return watched.get(client)?.down === true;
}

/** @internal Why the client's connection is down, in words, while an outage runs (`undefined` when none is known). */
export function outageReason(client: object): string | undefined {
  const state = watched.get(client);
  return state?.down ? state.reason : undefined;
}
