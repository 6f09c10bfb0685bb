/**
 * A booking bot: greet, offer slots as buttons, confirm, hand over to a person on request. On Redis, so any
 * number of instances can receive the webhooks. Talk to it in the sandbox's web inbox:
 *
 *   redis-server --daemonize yes && npm run demo:booking    # REDIS_URL defaults to redis://127.0.0.1:6379
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { createRouter, type ReplyMessage, type RouterOptions } from '../src/conversations/index.js';
import { GatewayClient } from '../src/index.js';
import { type RedisClient, RedisSessionStore, RedisWindowStore } from '../src/redis/index.js';
import { startSandbox } from '../src/testing/index.js';
import { createNodeWebhookHandler } from '../src/webhooks/index.js';

const SLOTS: Record<string, string> = { 'mon-10': 'Mon 10:00', 'tue-14': 'Tue 14:00', 'wed-16': 'Wed 16:00' };
const buttons = (text: string, choices: [id: string, title: string][]): ReplyMessage =>
  ({
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text },
      action: { buttons: choices.map(([id, title]) => ({ type: 'reply' as const, reply: { id, title } })) },
    },
  }) as const;
const offer = (text: string) =>
  buttons(
    text,
    Object.entries(SLOTS).map(([id, t]) => [`slot:${id}`, t]),
  );

type Session = { slot?: string; booked?: string };

/**
 * The bot: everything it knows about a customer is in its session, on Redis (one node, or a Cluster). `options`
 * passes on to `createRouter` (a test's `lockLeaseMs`, an `onError` for replies refused outside the 24-hour window).
 */
export function bookingRouter(
  gateway: GatewayClient,
  redis: RedisClient,
  options: Pick<RouterOptions<Session>, 'lockLeaseMs' | 'onError'> = {},
) {
  const router = createRouter<Session>({
    gateway,
    sessions: new RedisSessionStore({ redis }),
    window: new RedisWindowStore({ redis }),
    ...options,
  });
  router.use(async (ctx, next) => {
    if (ctx.kind === 'message' && !ctx.human && /^(agent|human|person)$/i.test(ctx.text ?? '')) {
      await ctx.reply('A person will answer you here shortly.');
      return ctx.takeOver(); // silent until router.release(customer)
    }
    await next();
  });
  router.flow('booking', {
    timeoutMs: 15 * 60_000,
    steps: {
      slot: async (ctx) => {
        const id = /^slot:(.+)$/.exec(ctx.choice ?? '')?.[1];
        if (!id || !SLOTS[id]) {
          await ctx.reply(offer('Please tap one of the slots.'));
          return ctx.wait('slot');
        }
        ctx.session.slot = id;
        await ctx.reply(
          buttons(`Book ${SLOTS[id]}?`, [
            ['yes', 'Yes, book it'],
            ['no', 'Another time'],
          ]),
        );
        ctx.wait('confirm');
      },
      confirm: async (ctx) => {
        if (ctx.choice !== 'yes') {
          await ctx.reply(offer('Which slot then?'));
          return ctx.wait('slot');
        }
        ctx.session.booked = ctx.session.slot;
        await ctx.reply(`Booked: ${SLOTS[ctx.session.slot ?? '']}. See you then!`);
      },
    },
  });
  router.otherwise(async (ctx) => {
    await ctx.reply(
      offer(`Hi! Book a visit: tap a slot.${ctx.session.booked ? ' (You have one already.)' : ''}`),
    );
    ctx.enter('booking', 'slot');
  });
  router.status('failed', (ctx) => console.error(`reply to ${ctx.customer} failed: ${ctx.error?.title}`));
  return router;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = 'booking-demo-webhook-secret-0123456789';
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const receiver = createServer();
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as { port: number }).port;
  const sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${port}/`,
    webhookSecret: secret,
    inbox: true,
  });
  const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
  const handler = createNodeWebhookHandler({ secret, onEvent: bookingRouter(gateway, redis).handle });
  receiver.on('request', (req, res) => void handler(req, res));
  console.log(`Booking bot ready. Open ${sandbox.inboxUrl} and write to it. Ctrl+C stops.`);
  process.once('SIGINT', () => void Promise.all([sandbox.close(), redis.quit()]).then(() => process.exit(0)));
}
