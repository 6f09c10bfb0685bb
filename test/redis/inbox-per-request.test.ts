/**
 * An inbox handler made per request (a common mistake: `createInboxHandler` inside the route) holds one Redis
 * connection each until `close()`, and nothing said so. More than eight open on one Redis are warned about, once
 * per process, naming where (never a password) and how many. Its own file: the warning is once per process.
 */
import { expect, it } from 'vitest';
import { createInboxHandler } from '../../src/redis/inbox.js';
import { describeRedis, type RedisServer, useRedis } from '../helpers/redis-server.js';

const SECRET = 'inbox-per-request-secret-0123456789abcdef';

describeRedis('inbox handlers made per request', () => {
  let server: RedisServer;
  useRedis((s) => {
    server = s;
  });

  it('warns once when more than eight are open on one Redis, with where and how many', async () => {
    const lines: string[] = [];
    const logger = { warn: (message: string) => void lines.push(message), error: () => {} };
    const handlers = [];
    try {
      for (let i = 0; i < 8; i++)
        handlers.push(createInboxHandler({ connection: server.url, secret: SECRET, logger }));
      expect(lines.filter((l) => l.includes('inbox handlers are open'))).toEqual([]);
      for (let i = 0; i < 3; i++)
        handlers.push(createInboxHandler({ connection: server.url, secret: SECRET, logger }));
      const warned = lines.filter((l) => l.includes('inbox handlers are open'));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(
        `9 inbox handlers are open in this process for Redis at 127.0.0.1:${server.port}`,
      );
      expect(warned[0]).toContain('create one handler at start-up');
    } finally {
      await Promise.all(handlers.map((h) => h.close()));
    }
  });
});
