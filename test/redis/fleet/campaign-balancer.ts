/**
 * The campaign queue fleet's load balancer, a process of its own: hands each webhook delivery to the receivers
 * (RECEIVERS, comma-separated ports) in turn and relays the answer. In the test's process it would share the
 * sandbox's event loop, and a burst of status deliveries would then delay the sandbox's answers to the workers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ports = (process.env.RECEIVERS ?? '').split(',').map(Number);
let turn = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    const port = ports[turn++ % ports.length]!;
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: {
          'content-type': req.headers['content-type'] ?? 'application/json',
          authorization: req.headers.authorization ?? '',
        },
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status).end(await answer.text());
    } catch {
      res.writeHead(502).end();
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
