/** The Worker module of `durable-bot.ts`: its fetch handler, and the Durable Object class its binding names. */
import { createApp, type Env, type ExecutionContext, state } from './durable-bot.js';

export { WaGatewayDurableObject } from '../../../src/durable-objects/index.js';

let app: ReturnType<typeof createApp> | undefined;
const json = (value: unknown, status = 200) => Response.json(value, { status });

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    app ??= createApp(env);
    const url = new URL(request.url);
    if (url.pathname === '/webhook') return app.handler(request, ctx);
    if (url.pathname === '/state') return json(state);
    if (url.pathname === '/session') {
      return json({ session: (await app.router.session(url.searchParams.get('customer') ?? '')) ?? null });
    }
    if (url.pathname === '/send') {
      try {
        const { messageId } = await app.gw.messages.send(await request.json());
        return json({ messageId });
      } catch (error) {
        const e = error as { name?: string; rule?: string; code?: string };
        return json({ error: { name: e.name, rule: e.rule, code: e.code } });
      }
    }
    return json({ error: 'not_found' }, 404);
  },
};
