/**
 * One receiver of the inbox fleet tests: a real node:http server on 127.0.0.1 running `createNodeInboxHandler`.
 * Prints `READY <port>` once Redis is connected and the port is open; exits cleanly on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeInboxHandler } from '../../../src/redis/index.js';
import { inboxConnection } from '../../helpers/redis-target.js';

// The handler's lines go to the test over IPC, which asserts them, instead of to the inherited stderr.
const send = (level: string) => (message: string) => void process.send?.({ log: `${level} ${message}` });
const handler = createNodeInboxHandler({
  logger: { warn: send('warn'), error: send('error') },
  // A cluster is given as an ioredis Cluster (the inbox duplicates it); one node by its URL.
  connection: inboxConnection(process.env.REDIS_URL ?? ''),
  secret: process.env.WEBHOOK_SECRET ?? '',
  queueName: process.env.QUEUE_NAME,
});
await handler.ready();
const server = createServer((req, res) => void handler(req, res));
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void handler.close().then(() => process.exit(0));
});
