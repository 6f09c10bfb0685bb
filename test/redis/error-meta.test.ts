/** One helper names a Redis error for logs and typed errors (the stores' and the inbox's), never by its message. */
import { describe, expect, it } from 'vitest';
import { errorMeta, RedisStoreError } from '../../src/redis/errors.js';
import { toStoreError } from '../../src/redis/replies.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379 password=SECRET'), {
  code: 'ECONNREFUSED',
});
const reply = Object.assign(new Error('ERR wrong number of arguments for SET wa:SECRET'), {
  name: 'ReplyError',
});
const throwing = () => {
  throw new Error('trap');
};
const hostile = new Proxy(new Error('x'), { get: throwing, getPrototypeOf: throwing, has: throwing });

describe('errorMeta', () => {
  it('gives the name and the string code, never the message', () => {
    expect(errorMeta(refused)).toEqual({ errorName: 'Error', code: 'ECONNREFUSED' });
    expect(errorMeta(reply)).toEqual({ errorName: 'ReplyError' });
    expect(errorMeta(Object.assign(new Error('m'), { code: 42 }))).toEqual({ errorName: 'Error' });
    expect(errorMeta('a string')).toEqual({ errorName: 'string' });
    expect(JSON.stringify([errorMeta(refused), errorMeta(reply)])).not.toContain('SECRET');
  });

  it('a hostile error object (throwing traps) gives its typeof instead of throwing', () => {
    expect(errorMeta(hostile)).toEqual({ errorName: 'object' });
  });
});

describe('toStoreError, built on it', () => {
  it('an errno is an unreachable Redis, a ReplyError a refused command; neither quotes the message', () => {
    const down = toStoreError(refused, 'op');
    expect(down).toBeInstanceOf(RedisStoreError);
    expect(down).toMatchObject({ failure: 'unavailable', errno: 'ECONNREFUSED', causeName: 'Error' });
    expect(down.message).toBe('op: Redis is unreachable or the connection dropped (ECONNREFUSED).');
    const refusedCommand = toStoreError(reply, 'op');
    expect(refusedCommand).toMatchObject({ failure: 'command_failed', causeName: 'ReplyError' });
    expect(`${down.message} ${refusedCommand.message}`).not.toContain('SECRET');
    // Only errno-shaped codes are errnos.
    expect(toStoreError(Object.assign(new Error('m'), { code: 'NR_CLOSED' }), 'op').errno).toBeUndefined();
  });

  it('a hostile error object becomes a RedisStoreError instead of a throw', () => {
    const error = toStoreError(hostile, 'op');
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ failure: 'unavailable', causeName: 'object' });
  });
});

describe('toStoreError: the replies of a cluster reached the wrong way', () => {
  const replyError = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
  it('MOVED and CROSSSLOT name the fix (an ioredis Cluster); CLUSTERDOWN is unavailable; LEASE_LOST is lease_lost', () => {
    for (const reply of [
      'MOVED 3999 127.0.0.1:7001',
      "CROSSSLOT Keys in request don't hash to the same slot",
    ]) {
      const error = toStoreError(replyError(reply), 'Store.op');
      expect(error).toMatchObject({ failure: 'needs_cluster_client', operation: 'Store.op' });
      expect(error.message).toMatch(/new Cluster\(\[\{ host, port \}\]\)/);
      expect(error.message).not.toContain('127.0.0.1:7001');
    }
    expect(toStoreError(replyError('CLUSTERDOWN The cluster is down'), 'op').failure).toBe('unavailable');
    expect(toStoreError(replyError('LEASE_LOST the lease is held'), 'op').failure).toBe('lease_lost');
    expect(toStoreError(replyError('ERR something else wa:SECRET'), 'op')).toMatchObject({
      failure: 'command_failed',
      message: 'op: Redis refused the command.',
    });
  });
});
