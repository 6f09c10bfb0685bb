/**
 * How the stores name their keys, and how those keys are placed on a Redis Cluster.
 *
 * Key names hold only the prefix, a kind, hashes and the labels a user chose: never a payload, a phone number or
 * a credential. On a cluster every key lives in one of 16,384 hash slots, and one script or `MULTI` may only
 * touch keys of one slot; a key's slot comes from its *hash tag*, the part between the first `{` and the next `}`
 * when there is one, else from the whole name. So:
 *
 * - with an ioredis `Cluster` and a prefix without a hash tag of its own, the keys an operation touches together
 *   share the tag of what that operation is about (one customer, one campaign, one limiter, one message's
 *   bucket), and the keys of different customers, campaigns and messages spread over every slot;
 * - otherwise (one node, or a prefix such as `{wa}:` that puts every key in one slot) no tag is added, and the
 *   names are those of the previous versions: an upgrade finds everything where it was.
 */
import { createHash } from 'node:crypto';
import { ConfigurationError } from '../core/errors.js';
import { isCluster, type RedisClient } from './client.js';

/** How many slots a store's keys spread over when one counter must sit beside each record (see `bucketOf`). */
const BUCKETS = 256;

/** The hash tag of a key (what its slot is computed from), or `undefined` when the whole name is used. */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open < 0) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/** The text a key's slot is computed from: its hash tag, else the whole name. */
export function slotText(key: string): string {
  return hashTag(key) ?? key;
}

/** SHA-256 of a caller-given id, base64url: neither a payload fragment nor an odd string becomes a key name. */
export function hashId(id: string): string {
  if (typeof id !== 'string') {
    throw new ConfigurationError(
      `A Redis store was given ${id === null ? 'null' : typeof id} where an id (a string: a wamid, a customer, an event key) was expected.`,
    );
  }
  return createHash('sha256').update(id).digest('base64url');
}

/**
 * Where a store's keys live: its prefix, and whether keys spread over a cluster's slots by hash tags.
 *
 * @example
 * const keys = KeySpace.for(redis, 'wa:');
 * const slots = keys.name('limit', keys.tag('gateway'), 'slots'); // wa:limit:{gateway}:slots on a cluster
 */
export class KeySpace {
  /**
   * `true`: an ioredis `Cluster` and a prefix without a hash tag: each operation's keys share the tag of what it
   * touches, and keys spread over every slot. `false`: no tag is added (the previous versions' names).
   */
  readonly spread: boolean;

  constructor(
    readonly prefix: string,
    spread: boolean,
  ) {
    this.spread = spread && hashTag(prefix) === undefined;
  }

  /** The key space of a store: it spreads on an ioredis `Cluster` unless `prefix` holds a hash tag. */
  static for(client: RedisClient, prefix: string): KeySpace {
    return new KeySpace(prefix, isCluster(client));
  }

  /** `<prefix><part>:<part>...`; empty parts (a bucket of a key space that does not spread) are left out. */
  name(...parts: string[]): string {
    return `${this.prefix}${parts.filter((p) => p !== '').join(':')}`;
  }

  /**
   * `id` as the hash tag of the keys it groups, `{id}`, when keys spread; `id` itself otherwise. An id with a `}`
   * still gives every key of its group the same tag (the part before it); an empty one would give none, so it is
   * refused by the stores' option checks before it gets here.
   */
  tag(id: string): string {
    return this.spread ? `{${id}}` : id;
  }

  /**
   * The bucket of a hashed id, for records that must sit beside a counter of their own (a message and the
   * billable counter it moves): one of 256 tags when keys spread, `''` (one bucket: no tag) otherwise.
   */
  bucketOf(hash: string): string {
    if (!this.spread) return '';
    const byte = Buffer.from(hash.slice(0, 2), 'base64url')[0] ?? 0;
    return this.tag(`b${byte.toString(16).padStart(2, '0')}`);
  }

  /** Every bucket `bucketOf` can answer, for summing their counters. */
  buckets(): string[] {
    if (!this.spread) return [''];
    return Array.from({ length: BUCKETS }, (_, i) => this.tag(`b${i.toString(16).padStart(2, '0')}`));
  }
}
