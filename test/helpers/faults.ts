/**
 * Server behaviours for fault-injection tests over real sockets (see http-server.ts), and `failure()` to time a
 * call that must fail. Bodies are parameters: each suite writes what its own server would have started to send.
 */
import type { Handler } from './http-server.js';

/** The connection is dropped before any answer. */
export const resetBeforeAnswer: Handler = (req) => void req.socket.destroy();

/** A 200 whose body (announced longer than it is) stops after `prefix`, then the socket is cut. */
export const resetMidBody =
  (prefix: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(prefix.length + 400) });
    res.write(prefix);
    setTimeout(() => res.socket?.destroy(), 20);
  };

/** Never answers. */
export const neverAnswers: Handler = () => {};

/** An HTML error page from a proxy, titled `<status> <title>`. */
export const html =
  (status: number, title: string): Handler =>
  (_req, res) =>
    void res
      .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!DOCTYPE html><html><body><h1>${status} ${title}</h1><hr>nginx/1.25</body></html>`);

/** A 200 whose JSON body ends after `prefix`, cleanly (no socket fault). */
export const truncatedJson =
  (prefix: string): Handler =>
  (_req, res) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(prefix);

/** A complete, valid answer written one character every 40 ms: far slower than any test timeout in total. */
export const trickle =
  (body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const text = JSON.stringify(body);
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed || i >= text.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(text[i++]);
    }, 40);
  };

/** Runs a call that must fail; resolves with its error and how long it took. */
export async function failure(run: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const t0 = performance.now();
  try {
    await run();
  } catch (error) {
    return { error, ms: performance.now() - t0 };
  }
  throw new Error('expected the call to fail');
}
