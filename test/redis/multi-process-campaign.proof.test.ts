/**
 * The campaign proof with real processes on one real Redis (one redis-server, then a Redis Cluster): two sender
 * processes split one campaign
 * between them, and the sandbox's status webhooks (failed for chosen recipients, every one twice, in reverse
 * order, with no delay so they race the send results) are spread over two receiver processes. The report read
 * from Redis by a fifth tracker equals the truth exactly, its retry list by that tracker's retryable codes.
 */
import { expect, it } from 'vitest';
import { CampaignTracker } from '../../src/index.js';
import { RedisCampaignStore } from '../../src/redis/index.js';
import { startSandbox } from '../../src/testing/index.js';
import { armFaults, campaignPlan, expectReport } from '../campaigns/plan.js';
import { startServer } from '../helpers/http-server.js';
import { describeRedis } from '../helpers/redis-server.js';
import { onTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import { forkFleet } from './fixtures/processes.js';

const SECRET = 'fleet-campaign-secret-0123456789abcdef';
for (const kind of TARGETS)
  describeRedis(`two senders and two receivers sharing RedisCampaignStore ${onTarget(kind)}`, () => {
    const target = useRedisTarget(kind);

    it('counts one campaign exactly across four processes', async () => {
      const receivers = await forkFleet('campaign-receiver', 2, {
        REDIS_URL: target().url,
        WEBHOOK_SECRET: SECRET,
      });
      const urls = (await receivers.round<{ url: string }>('url')).map((r) => r.url);
      // The sandbox delivers to one URL: this balancer hands each delivery to the receivers in turn.
      let turn = 0;
      const balancer = await startServer(async (req, res, body) => {
        const target = urls[turn++ % urls.length]!;
        const answer = await fetch(target, {
          method: 'POST',
          headers: {
            'content-type': req.headers['content-type'] ?? 'application/json',
            authorization: req.headers.authorization ?? '',
          },
          body,
        });
        res.writeHead(answer.status).end(await answer.text());
      });
      const sandbox = await startSandbox({
        webhookUrl: balancer.url,
        webhookSecret: SECRET,
        ratePerSecond: 100_000,
        statusDelaysMs: [0, 0, 0],
        // A busy machine may take longer than the gateway's 5 s to answer 1,800 deliveries at once.
        ackTimeoutMs: 60_000,
      });
      const plan = campaignPlan(300);
      armFaults(sandbox, plan);
      const senders = await forkFleet('campaign-sender', 2, {
        REDIS_URL: target().url,
        SANDBOX_URL: sandbox.url,
      });
      const client = target().redis;
      try {
        const halves = [0, 1].map((k) => plan.messages.filter((_, i) => i % 2 === k));
        const answers = await Promise.all(
          senders.children.map(
            (child, k) =>
              new Promise<{ ok: number }>((resolve) => {
                child.once('message', (m) => resolve(m as { ok: number }));
                child.send(halves[k]!);
              }),
          ),
        );
        await sandbox.idle();
        expect(answers.reduce((n, a) => n + a.ok, 0)).toBe(plan.expected.funnel.accepted);
        // Every event reached a receiver in the end (a retry after a slow answer is one more duplicate, no harm).
        const answered = new Set(sandbox.deliveries.filter((d) => d.status === 200).map((d) => d.eventId));
        expect(sandbox.deliveries.filter((d) => !answered.has(d.eventId))).toEqual([]);
        // The retry list is this reader's: the processes that applied the statuses name no retryable codes.
        const tracker = new CampaignTracker({
          store: new RedisCampaignStore({ redis: client, prefix: 'fleet:' }),
          retryableFailureCodes: [131026],
        });
        await expectReport(tracker, 'spring-sale', plan);
      } finally {
        senders.stop();
        receivers.stop();
        await sandbox.close();
        await balancer.close();
      }
    }, 120_000);
  });
