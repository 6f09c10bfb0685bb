/**
 * A Redis that cannot be reached (a wrong URL): ioredis fails every reconnect, a few times a second. The SDK logs the
 * outage once, with host, port and the reason in words, never the password in the URL. Needs no redis-server: the
 * port is one nothing listens on.
 */
import { createServer, type Socket } from 'node:net';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { connectionReason, isConnectionError } from '../../src/redis/connection-log.js';
import { createInboxHandler } from '../../src/redis/inbox.js';
import { createInboxWorker } from '../../src/redis/inbox-worker.js';
import { RedisIdempotencyStore } from '../../src/redis/index.js';
import { messageEnvelope, textMessage } from '../../src/testing/index.js';

const PASSWORD = 'hunter2-in-the-url';

/** A port that was free a moment ago: nothing listens on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once `client` has emitted `n` 'error' events (counted by a listener of the test's own). */
function errors(client: { on(event: 'error', listener: () => void): unknown }, n: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    client.on('error', () => {
      if (++seen === n) resolve();
    });
  });
}

describe('a Redis that cannot be reached', () => {
  it('a store logs the outage once, with host, port and why, and no password', async () => {
    const port = await closedPort();
    const redis = new Redis(`redis://:${PASSWORD}@127.0.0.1:${port}`, {
      maxRetriesPerRequest: 1,
      retryStrategy: () => 10,
    });
    const warn = vi.fn();
    try {
      new RedisIdempotencyStore({ redis, logger: { warn } });
      await errors(redis, 5);
      expect(warn).toHaveBeenCalledTimes(1);
      const [message, meta] = warn.mock.calls[0]!;
      expect(message).toBe(
        `wa-gateway-sdk: RedisIdempotencyStore: cannot reach Redis at 127.0.0.1:${port}: connection refused: ` +
          'nothing listens on that port (is redis-server running? is the port right?). Commands fail until it is ' +
          'back (logged once per outage); check the URL the client was given (REDIS_URL).',
      );
      expect(meta).toEqual({ where: `127.0.0.1:${port}`, code: 'ECONNREFUSED' });
      expect(JSON.stringify(warn.mock.calls)).not.toContain(PASSWORD);
    } finally {
      redis.disconnect();
    }
  });

  it("a store's logLevel filters its logger, as the clients' does; a bad one is a ConfigurationError", async () => {
    const port = await closedPort();
    const redis = new Redis(`redis://127.0.0.1:${port}`, {
      maxRetriesPerRequest: 1,
      retryStrategy: () => 10,
    });
    const warn = vi.fn();
    try {
      expect(() => new RedisIdempotencyStore({ redis, logLevel: 'loud' as 'warn' })).toThrow(
        ConfigurationError,
      );
      new RedisIdempotencyStore({ redis, logger: { warn }, logLevel: 'error' });
      await errors(redis, 5);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      redis.disconnect();
    }
  });

  it("the inbox's own connection says the same, through the handler's logger", async () => {
    const port = await closedPort();
    const warn = vi.fn();
    const inbox = createInboxHandler({
      connection: `redis://:${PASSWORD}@127.0.0.1:${port}`,
      secret: 'whsec-connection-log-0123456789abcdefgh',
      logger: { warn, error: warn },
    });
    try {
      await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 10_000 });
      expect(warn.mock.calls[0]).toEqual([
        expect.stringMatching(
          new RegExp(
            `^createInboxHandler: cannot reach Redis at 127\\.0\\.0\\.1:${port}: connection refused`,
          ),
        ),
        { where: `127.0.0.1:${port}`, code: 'ECONNREFUSED' },
      ]);
      expect(JSON.stringify(warn.mock.calls)).not.toContain(PASSWORD);
    } finally {
      await inbox.close();
    }
  });

  it("the receiver's deliveries while Redis is away: the outage line, then one line saying events are not stored (no onEvent failure)", async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const push = (level: string) => (message: string, meta?: object) =>
      lines.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
    const secret = 'whsec-connection-log-0123456789abcdefgh';
    const inbox = createInboxHandler({
      connection: `redis://:${PASSWORD}@127.0.0.1:${port}`,
      secret,
      logger: { warn: push('warn'), error: push('error') },
    });
    const deliver = () =>
      inbox(
        new Request('http://127.0.0.1/webhooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(messageEnvelope(textMessage())),
        }),
      );
    try {
      await vi.waitFor(() => expect(lines).toHaveLength(1), { timeout: 10_000 });
      for (let i = 0; i < 3; i++) expect((await deliver()).status).toBe(500);
      const where = `127.0.0.1:${port}`;
      expect(lines).toEqual([
        expect.stringMatching(
          /^warn createInboxHandler: cannot reach Redis at .*: connection refused: nothing listens/,
        ),
        `error createInboxHandler: an event was not stored: Redis at ${where} is not connected (connection refused: ` +
          'nothing listens on that port (is redis-server running? is the port right?)). The delivery is answered ' +
          '500 and the gateway retries it; logged once until an event is stored again. ' +
          JSON.stringify({ where, reason: 'unavailable' }),
      ]);
      expect(lines.join('\n')).not.toContain('onEvent');
      expect(lines.join('\n')).not.toContain(PASSWORD);
    } finally {
      await inbox.close();
    }
  });

  it('a port that accepts but never answers as Redis: the reason in words, not "Error"', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const redis = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 1, commandTimeout: 200 });
    const warn = vi.fn();
    try {
      new RedisIdempotencyStore({ redis, logger: { warn } });
      await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 15_000 });
      const [message, meta] = warn.mock.calls[0]!;
      expect(meta).toEqual({ where: `127.0.0.1:${port}`, code: 'TIMEOUT' });
      expect(message).toContain(
        `cannot reach Redis at 127.0.0.1:${port}: Redis did not answer in time (something on that port accepts ` +
          'connections but does not answer as Redis: another service, a TLS port given a redis:// URL; or Redis ' +
          'is stalled).',
      );
    } finally {
      redis.disconnect();
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('a worker without a logger prints the outage on the console, once, and close() still resolves', async () => {
    const port = await closedPort();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const worker = createInboxWorker({ connection: `redis://:${PASSWORD}@127.0.0.1:${port}`, onEvent() {} });
    try {
      await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 10_000 });
      expect(warn.mock.calls[0]).toEqual([
        expect.stringMatching(
          new RegExp(
            `^\\[wa-gateway webhooks\\] createInboxWorker: cannot reach Redis at 127\\.0\\.0\\.1:${port}`,
          ),
        ),
        { where: `127.0.0.1:${port}`, code: 'ECONNREFUSED' },
      ]);
      // Graceful shutdown must not wait for a Redis that is not there.
      await worker.close();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(error).not.toHaveBeenCalled();
      expect(JSON.stringify([...warn.mock.calls, ...error.mock.calls])).not.toContain(PASSWORD);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});

describe('a Redis Cluster that cannot be reached', () => {
  it("names each startup node, given as a URL, a port or options, by host and port, never the URL's password", async () => {
    const [a, b, c] = [await closedPort(), await closedPort(), await closedPort()];
    const cluster = new Cluster(
      [`redis://:${PASSWORD}@127.0.0.1:${a}`, b, { host: '127.0.0.1', port: c }] as never,
      { clusterRetryStrategy: () => 10 },
    );
    const warn = vi.fn();
    try {
      new RedisIdempotencyStore({ redis: cluster, logger: { warn } });
      await vi.waitFor(() => expect(warn).toHaveBeenCalled(), { timeout: 10_000 });
      const [message, meta] = warn.mock.calls[0]!;
      const where = `cluster 127.0.0.1:${a},localhost:${b},127.0.0.1:${c}`;
      expect(message).toContain(`cannot reach Redis at ${where}:`);
      expect(meta).toMatchObject({ where });
      expect(JSON.stringify(warn.mock.calls)).not.toContain(PASSWORD);
    } finally {
      cluster.disconnect();
    }
  });
});

describe('connectionReason: a connection error in words', () => {
  const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
  it.each([
    // A reset of a connection that worked for minutes is a restart or a proxy first, a TLS mismatch only at a
    // first connect.
    [
      'ECONNRESET',
      /^the connection was reset \(Redis restarted or failed over, or a proxy cut it; on a first connect/,
    ],
    [
      'EPIPE',
      /^the connection broke while writing to it \(Redis restarted or failed over, or a proxy cut it\)$/,
    ],
    ['ECONNREFUSED', /^connection refused: nothing listens on that port/],
  ])('%s', (code, words) => {
    expect(connectionReason(coded(`read ${code}`, code))).toMatch(words);
  });
});

describe('isConnectionError: what counts as an outage', () => {
  const coded = (message: string, code: string | number) => Object.assign(new Error(message), { code });
  // BullMQ's job errors carry a numeric code (its Lua scripts' answer); system errors a string one.
  it.each([
    ['a refused connection', coded('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'), true],
    ['a reset connection', coded('read ECONNRESET', 'ECONNRESET'), true],
    ['a timed-out connection', coded('connect ETIMEDOUT', 'ETIMEDOUT'), true],
    ["ioredis's closed connection", new Error('Connection is closed.'), true],
    ['a refused password', new Error('WRONGPASS invalid username-password pair'), true],
    ["BullMQ's lost lock", new Error('could not renew lock for job e123'), false],
    ["BullMQ's missing lock", coded('Missing lock for job e123. moveToFinished', -2), false],
    ['a script Redis refused', new Error('ERR Error running script'), false],
    ['not an error', 'ECONNREFUSED', false],
  ])('%s: %s', (_name, error, expected) => {
    expect(isConnectionError(error)).toBe(expected);
  });
});
