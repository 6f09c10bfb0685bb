/** Served by Bun's own HTTP server on 127.0.0.1; prints `{"port":N}` once listening. */
import { createReceiver } from './receiver.js';

declare const Bun: {
  serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): {
    port: number;
  };
};

const pending = new Set<Promise<unknown>>();
const receive = createReceiver('bun', (p) => {
  pending.add(p);
  void p.finally(() => pending.delete(p));
});
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => receive(request) });
console.log(JSON.stringify({ port: server.port }));
