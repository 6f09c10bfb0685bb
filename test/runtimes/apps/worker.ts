/** Cloudflare Workers module syntax: the platform's `ctx.waitUntil` keeps the late work alive. */
import { createReceiver } from './receiver.js';

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

const receive = createReceiver('workerd');

export default {
  fetch: (request: Request, _env: unknown, ctx: ExecutionContext) =>
    receive(request, { waitUntil: (p) => ctx.waitUntil(p) }),
};
