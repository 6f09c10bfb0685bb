import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { PlatformClient, type StatsChannel, summarizeStats } from '../../src/platform/index.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

type Sums = [count: number, sum: number | null];
const sums = (today: Sums, yesterday: Sums, wtd: Sums, mtd: Sums) => ({
  today: { count: today[0], sum: today[1] },
  yesterday: { count: yesterday[0], sum: yesterday[1] },
  wtd: { count: wtd[0], sum: wtd[1] },
  mtd: { count: mtd[0], sum: mtd[1] },
});
const counts = (today: number, yesterday: number, wtd: number, mtd: number) => ({
  today,
  yesterday,
  wtd,
  mtd,
});

const AGENT_A = '11111111-1111-4111-8111-111111111111';
const AGENT_B = '22222222-2222-4222-8222-222222222222';

const channels: StatsChannel[] = [
  {
    uuid: 'c1c1c1c1-0000-4000-8000-000000000001',
    name: 'WhatsApp',
    stats: {
      messages: { received: counts(10, 8, 40, 90), sent: counts(12, 9, 44, 100) },
      customers: { new: counts(1, 2, 3, 4), total: counts(5, 6, 7, 8) },
      response_times: {
        frt: sums([4, 400], [0, 0], [10, 1500], [20, 3000]),
        art: sums([2, 300], [0, null], [5, 1000], [10, 2500]),
      },
      agents: [
        {
          uuid: AGENT_A,
          name: 'Aziza',
          joined: counts(1, 1, 2, 3),
          viewed: counts(5, 4, 20, 40),
          sent: counts(6, 5, 22, 50),
          frt: sums([2, 100], [0, 0], [3, 90], [6, 600]),
          art: sums([1, 60], [0, 0], [2, 80], [4, 400]),
        },
        {
          uuid: AGENT_B,
          name: 'Bobur',
          joined: counts(0, 0, 1, 1),
          viewed: counts(2, 0, 3, 9),
          sent: counts(3, 0, 4, 10),
          frt: sums([2, 300], [0, 0], [7, 1410], [14, 2400]),
          art: sums([1, 240], [0, 0], [3, 920], [6, 2100]),
        },
      ],
    },
  },
  {
    uuid: 'c2c2c2c2-0000-4000-8000-000000000002',
    name: 'Telegram',
    stats: {
      messages: { received: counts(1, 0, 5, 9), sent: counts(2, 0, 6, 11) },
      customers: { new: counts(0, 0, 1, 1), total: counts(1, 1, 2, 2) },
      response_times: {
        frt: sums([1, 50], [0, null], [2, 100], [5, 500]),
        art: sums([1, 90], [0, 0], [3, 150], [6, 600]),
      },
      agents: [
        {
          uuid: AGENT_A,
          name: 'Aziza',
          joined: counts(1, 0, 1, 2),
          viewed: counts(1, 0, 2, 3),
          sent: counts(2, 0, 3, 4),
          frt: sums([2, 300], [0, null], [1, 30], [4, 100]),
          art: sums([0, 0], [0, 0], [1, 20], [2, 100]),
        },
      ],
    },
  },
];

describe('summarizeStats', () => {
  const summary = summarizeStats(channels);

  it('computes account response times by summing sum and count across channels, then dividing', () => {
    // frt today: (400 + 50) / (4 + 1) = 90; an average of the channel averages would give (100 + 50) / 2 = 75.
    expect(summary.frt).toEqual({ today: 90, yesterday: null, wtd: 1600 / 12, mtd: 140 });
    // art: (300 + 90) / 3 = 130, (1000 + 150) / 8 = 143.75, (2500 + 600) / 16 = 193.75.
    expect(summary.art).toEqual({ today: 130, yesterday: null, wtd: 143.75, mtd: 193.75 });
  });

  it('gives null, never NaN, for a period with no responses (a null sum counts as 0)', () => {
    expect(summary.frt.yesterday).toBeNull();
    expect(summary.art.yesterday).toBeNull();
    expect(Object.values(summary.frt).some((v) => Number.isNaN(v))).toBe(false);
  });

  it('merges each agent across channels', () => {
    expect(summary.agents.map((a) => a.uuid)).toEqual([AGENT_A, AGENT_B]);
    const a = summary.agents[0]!;
    // today: (100 + 300) / (2 + 2) = 100; wtd: (90 + 30) / 4 = 30; mtd: (600 + 100) / 10 = 70.
    expect(a.frt).toEqual({ today: 100, yesterday: null, wtd: 30, mtd: 70 });
    // today: 60 / 1; wtd: (80 + 20) / 3; mtd: (400 + 100) / 6.
    expect(a.art).toEqual({ today: 60, yesterday: null, wtd: 100 / 3, mtd: 500 / 6 });
    expect(a.joined).toEqual({ today: 2, yesterday: 1, wtd: 3, mtd: 5 });
    expect(a.sent).toEqual({ today: 8, yesterday: 5, wtd: 25, mtd: 54 });
    const b = summary.agents[1]!;
    expect(b.name).toBe('Bobur');
    expect(b.frt).toEqual({ today: 150, yesterday: null, wtd: 1410 / 7, mtd: 2400 / 14 });
  });

  it('sums message counters', () => {
    expect(summary.messages.received).toEqual({ today: 11, yesterday: 8, wtd: 45, mtd: 99 });
    expect(summary.messages.sent).toEqual({ today: 14, yesterday: 9, wtd: 50, mtd: 111 });
  });

  it('is all null for no channels', () => {
    expect(summarizeStats([])).toEqual({
      frt: { today: null, yesterday: null, wtd: null, mtd: null },
      art: { today: null, yesterday: null, wtd: null, mtd: null },
      messages: { received: counts(0, 0, 0, 0), sent: counts(0, 0, 0, 0) },
      agents: [],
    });
  });

  it("an agent's frt / art as one { count, sum } without periods (the spec's wording): read, kept out of the periods", async () => {
    // The first channel gives Aziza's frt and art flat; the second per period, as above.
    const flat = structuredClone(channels);
    const first = flat[0]!.stats.agents[0]!;
    flat[0]!.stats.agents[0] = { ...first, frt: { count: 4, sum: 200 }, art: { count: 0, sum: null } };
    server.use(http.get('https://stream.test/stats', () => HttpResponse.json(flat)));
    const client = new PlatformClient({
      platformUrl: 'https://platform.test',
      streamUrl: 'https://stream.test',
      token: 'ready-token-abcdef123456',
    });
    const got = await client.stats.get();
    expect(got[0]?.stats.agents[0]?.frt).toEqual({ count: 4, sum: 200 });
    const a = summarizeStats(got).agents[0]!;
    // Per period: the second channel's sums only (300 / 2, 30 / 1, 100 / 4).
    expect(a.frt).toEqual({ today: 150, yesterday: null, wtd: 30, mtd: 25 });
    expect(a.withoutPeriod).toEqual({ frt: 50, art: null });
    expect(summarizeStats(channels).agents[0]?.withoutPeriod).toEqual({ frt: null, art: null });
    // A shape that is neither still fails, naming where.
    flat[0]!.stats.agents[0] = { ...first, frt: { count: 4 } } as never;
    await expect(client.stats.get()).rejects.toMatchObject({ name: 'InvalidResponseError' });
  });

  it('works on what stats.get() returns', async () => {
    server.use(http.get('https://stream.test/stats', () => HttpResponse.json(channels)));
    const client = new PlatformClient({
      platformUrl: 'https://platform.test',
      streamUrl: 'https://stream.test',
      token: 'ready-token-abcdef123456',
    });
    expect(summarizeStats(await client.stats.get())).toEqual(summary);
  });
});
