/**
 * The inbox's documented answers are its real ones: an enqueue that cannot happen (a closed inbox, Redis not
 * connected) fails `onEvent`, which the webhook core answers 500 `processing_failed` (the gateway retries).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createInboxHandler } from '../../src/redis/index.js';
import { messageEnvelope, textMessage } from '../../src/testing/index.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';

const SECRET = 'inbox-answers-secret-0123456789abcdef';
let server: RedisServer;

function delivery(): Request {
  return new Request('https://hook.test/', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}` },
    body: JSON.stringify(messageEnvelope(textMessage({ id: 'wamid.ANSWER' }))),
  });
}

describeRedis('inbox answers', () => {
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('a closed inbox answers 500 processing_failed, as its docs say', async () => {
    const inbox = createInboxHandler({
      connection: server.url,
      secret: SECRET,
      queueName: `inbox-answers-${process.pid}`,
      logger: false,
    });
    await inbox.ready();
    await inbox.close();
    const answer = await inbox(delivery());
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ ok: false, error: 'processing_failed' });
  });
});
