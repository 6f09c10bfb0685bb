/** Served by `Deno.serve` on 127.0.0.1; prints `{"port":N}` once listening. */
import { createReceiver } from './receiver.js';

declare const Deno: {
  serve(
    options: { hostname: string; port: number; onListen: (addr: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

const pending = new Set<Promise<unknown>>();
const receive = createReceiver('deno', (p) => {
  pending.add(p);
  void p.finally(() => pending.delete(p));
});
Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(JSON.stringify({ port })) },
  (request) => receive(request),
);
