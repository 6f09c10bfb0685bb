import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  type ConversationRecord,
  type Feedback,
  LoginFailedError,
  type MessageItem,
  MessageValidationError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionDeniedError,
  PlatformClient,
  type StatsChannel,
  type StreamMessage,
  summarizeStats,
} from '../../src/index.js';
import { createPlatformHandlers, platformMessageRecord } from '../../src/testing/index.js';

const PLATFORM = 'https://platform.sim';
const STREAM = 'https://stream.sim';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2024-05-01T00:00:00Z');
/** The server's clock: Sunday 12 May 2024, noon. */
const NOW = Date.parse('2024-05-12T12:00:00Z');
const CONV_A = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const CONV_B = '4a3b2c1d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const CONV_UNKNOWN = '11111111-2222-4333-8444-555555555555';
const CUSTOMER_A = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const CUSTOMER_B = '8b7c6d5e-4f3a-4b2c-9d1e-0f9a8b7c6d5e';
const WA = { uuid: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', name: 'WhatsApp', backend: 'whatsapp' };
const TG = { uuid: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a', name: 'Telegram', backend: 'telegram' };
const TYPES = ['text', 'media', 'location'] as const;

/** Ten days, one message every six hours, alternating between conversation A (WhatsApp) and B (Telegram). */
const records: StreamMessage[] = Array.from({ length: 40 }, (_, i) => {
  const a = i % 2 === 0;
  return platformMessageRecord({
    id: i + 1,
    created_at: new Date(T0 + i * 6 * HOUR).toISOString(),
    conversation: {
      uuid: a ? CONV_A : CONV_B,
      customer: {
        uuid: a ? CUSTOMER_A : CUSTOMER_B,
        name: a ? 'Aziza' : 'Bobur',
        email: null,
        phone_number: null,
      },
      is_archived: false,
    },
    channel: a ? WA : TG,
    type: TYPES[i % 3]!,
    agent: i % 3 === 1 ? 'agent@example.com' : null,
    customer: i % 3 === 1 ? null : { name: a ? 'Aziza' : 'Bobur' },
    content: `message ${i + 1}`,
  });
});

const conversation = (uuid: string, createdAt: string, customer: string): ConversationRecord => ({
  uuid,
  type: null,
  group: null,
  language: 'uz',
  created_at: createdAt,
  is_archived: false,
  archived_at: null,
  reponse_times: { first_response_time: 30, avg_response_time: 45 },
  customer: { uuid: customer, name: 'Aziza', phone_number: '+998901234567', email: null, crm: null },
  messages: { total: 20, incoming: 13, outgoing: 7 },
});

const feedback = (
  createdAt: string,
  type: 'emoji' | 'nps',
  satisfaction: number,
  channel = WA,
): Feedback => ({
  created_at: createdAt,
  conversation: { uuid: CONV_A, type: null, created_at: createdAt },
  channel,
  customer: { uuid: CUSTOMER_A, name: 'Aziza', phone_number: null, email: null },
  type,
  language: 'uz',
  satisfaction,
  message: null,
});
const feedbacks = [
  feedback('2024-01-10T10:00:00Z', 'emoji', 5),
  feedback('2024-01-20T10:00:00Z', 'nps', 9, TG),
  feedback('2024-02-15T10:00:00Z', 'emoji', 1),
  feedback('2024-03-01T10:00:00Z', 'emoji', 4, TG),
  feedback('2024-03-30T10:00:00Z', 'nps', 3),
];

const periods = (n: number) => ({ today: n, yesterday: 0, wtd: n, mtd: n });
const sums = (sum: number, count: number) => {
  const p = { sum, count };
  return { today: p, yesterday: { sum: null, count: 0 }, wtd: p, mtd: p };
};
const statsChannel = (channel: typeof WA, frtSum: number, frtCount: number): StatsChannel => ({
  uuid: channel.uuid,
  name: channel.name,
  stats: {
    messages: { received: periods(10), sent: periods(7) },
    customers: { new: periods(1), total: periods(50) },
    response_times: { frt: sums(frtSum, frtCount), art: sums(frtSum * 2, frtCount) },
    agents: [],
  },
});

let clock = NOW;
const { handlers, state } = createPlatformHandlers({
  platformUrl: PLATFORM,
  streamUrl: STREAM,
  now: () => clock,
  messages: [...records].reverse(),
  conversations: [
    conversation(CONV_A, '2024-05-12T08:00:00Z', CUSTOMER_A),
    conversation(CONV_B, '2024-05-09T08:00:00Z', CUSTOMER_B),
  ],
  feedbacks,
  channels: [statsChannel(WA, 100, 1), statsChannel(TG, 20, 4)],
  types: [
    { name: 'Complaint', subs: ['Delivery', 'Billing'] },
    { name: 'Question' },
    { name: 'Sales lead', channels: [WA.uuid] },
  ],
  conversationCustomFields: { order_id: 'text', priority: 'number' },
});
const server = setupServer(...handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  state.reset();
  clock = NOW;
  server.resetHandlers();
});
afterAll(() => server.close());

const client = (o: Partial<ConstructorParameters<typeof PlatformClient>[0]> = {}) =>
  new PlatformClient({
    platformUrl: PLATFORM,
    streamUrl: STREAM,
    username: 'agent@example.com',
    password: 'secret-password',
    ...o,
  });
/** One client for the tests that do not count logins. */
const platform = client();

async function collect(source: AsyncIterable<StreamMessage>): Promise<StreamMessage[]> {
  const out: StreamMessage[] = [];
  for await (const m of source) out.push(m);
  return out;
}
const ids = (list: readonly StreamMessage[]) => list.map((m) => m.id);
const iso = (ms: number) => new Date(ms).toISOString();

async function raw(path: string, init: { method?: string; body?: unknown; token?: string | null } = {}) {
  const token = init.token === undefined ? (await platform.auth.login()).token : init.token;
  const res = await fetch(`${path.startsWith('/stream') || path === '/stats' ? STREAM : PLATFORM}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(token === null ? {} : { authorization: `JWT ${token}` }),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const json = res.headers.get('content-type') === 'application/json';
  const text = await res.text();
  return {
    status: res.status,
    body: json ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
}

describe('login and tokens', () => {
  it('logs in once, shares the login between concurrent calls and reuses the token', async () => {
    const c = client();
    await Promise.all([c.stats.get(), c.reports.get({ data: 'messages' }), c.reports.conversations()]);
    await c.stats.get();
    expect(state.logins.map((l) => l.username)).toEqual(['agent@example.com']);
    const calls = state.requests.filter((r) => r.path !== '/jwt/');
    expect(calls).toHaveLength(4);
    expect(calls.every((r) => r.status === 200 && r.username === 'agent@example.com')).toBe(true);
    const result = await c.auth.login();
    expect(result).toMatchObject({ otp: false, accountUuid: '00000000-0000-4000-8000-000000000001' });
    expect(result.deviceId).toMatch(/^sim-device-/);
  });

  it('refuses a wrong password with non_field_errors: LoginFailedError', async () => {
    const e = await client({ password: 'wrong' })
      .stats.get()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LoginFailedError);
    expect((e as LoginFailedError).reasons).toEqual(['Unable to log in with provided credentials.']);
    expect(state.logins).toHaveLength(0);
    expect(state.requests.map((r) => [r.path, r.status])).toEqual([['/jwt/', 400]]);
  });

  it('an expired token costs one re-login, and the call succeeds', async () => {
    const c = client();
    await c.stats.get();
    state.expireTokens();
    await expect(c.stats.get()).resolves.toHaveLength(2);
    expect(state.logins).toHaveLength(2);
    expect(state.requests.filter((r) => r.path === '/stats').map((r) => r.status)).toEqual([200, 401, 200]);
  });

  it('tokens expire 24 hours after login on the server clock', async () => {
    const c = client();
    await c.stats.get();
    clock += 24 * HOUR - 1;
    await c.stats.get();
    clock += 2;
    await c.stats.get();
    expect(state.logins.map((l) => l.at)).toEqual([NOW, NOW + 24 * HOUR + 1]);
  });

  it('401 with a detail about the header or the key; a token-only client cannot recover', async () => {
    const missing = await raw('/stats', { token: null });
    expect(missing).toMatchObject({
      status: 401,
      body: { detail: expect.stringMatching(/invalid authorization header/i) },
    });
    const bogus = await raw('/stats', { token: 'not-a-token' });
    expect(bogus).toMatchObject({
      status: 401,
      body: { detail: expect.stringMatching(/invalid auth key/i) },
    });
    const e = await new PlatformClient({
      platformUrl: PLATFORM,
      streamUrl: STREAM,
      token: 'not-a-token',
    }).stats
      .get()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).description).toMatch(/invalid auth key/i);
  });
});

describe('stats and reports', () => {
  it('serves the seeded stats channels', async () => {
    const channels = await platform.stats.get();
    expect(channels.map((c) => c.uuid)).toEqual([WA.uuid, TG.uuid]);
    // 100 s over 1 response and 20 s over 4: 120 / 5.
    expect(summarizeStats(channels).frt.today).toBe(24);
  });

  it('computes the messages report from the stream records within the date range', async () => {
    const report = await platform.reports.get({ date_range: 'last_7', trunc: 'day', data: 'messages' });
    const inRange = records.filter((r) => Date.parse(r.created_at) >= NOW - 7 * DAY);
    expect(report.messages?.reduce((n, e) => n + e.total_messages, 0)).toBe(inRange.length);
    expect(report.messages?.reduce((n, e) => n + e.outgoing_messages, 0)).toBe(
      inRange.filter((r) => r.agent !== null).length,
    );
    expect(report.messages?.[0]?.date).toBe('2024-05-05');
    expect(report.conversations).toBeUndefined();
    const month = await platform.reports.get({ date_range: 'mtd', trunc: 'week', data: 'messages' });
    expect(month.messages?.map((e) => [e.date, e.total_messages])).toEqual([
      ['2024-04-29', 20],
      ['2024-05-06', 20],
    ]);
  });

  it('group_based adds groups; every section parses', async () => {
    const grouped = await platform.reports.get({ date_range: 'ytd', group_based: true });
    expect(grouped.messages?.[0]).toHaveProperty('group', null);
    expect(grouped.conversations?.total[0]).toMatchObject({ group: null, archived: 0 });
    expect(Array.isArray(grouped.total_response_times)).toBe(true);
    const plain = await platform.reports.get({ data: 'feedback', trunc: 'month' });
    expect(plain.feedback?.map((f) => [f.date, f.total, f.great, f.terrible])).toEqual([
      ['2024-01-01', 2, 1, 0],
      ['2024-02-01', 1, 0, 1],
      ['2024-03-01', 2, 0, 0],
    ]);
  });

  it('answers 400 { error } for an undefined query value; the client refuses it before sending', async () => {
    const answer = await raw('/reports/?date_range=last_99&data=messages');
    expect(answer).toMatchObject({ status: 400, body: { error: expect.stringContaining('date_range') } });
    expect((await raw('/reports/?group_based=maybe')).status).toBe(400);
    expect((await raw('/reports/conversations/?created_at_range=soon')).body).toHaveProperty('error');
    const before = state.requests.length;
    await expect(platform.reports.get({ trunc: 'minute' as 'hour' })).rejects.toBeInstanceOf(
      MessageValidationError,
    );
    expect(state.requests.length).toBe(before);
  });

  it('filters conversation records by their relative ranges', async () => {
    const today = await platform.reports.conversations({ created_at_range: 'today' });
    expect(today.map((c) => c.uuid)).toEqual([CONV_A]);
    const week = await platform.reports.conversations({ created_at_range: 'last_7' });
    expect(week.map((c) => c.uuid)).toEqual([CONV_A, CONV_B]);
    expect(await platform.reports.conversations({ archived_at_range: 'today' })).toEqual([]);
  });

  it('filters feedbacks and refuses a range over one calendar month with 400', async () => {
    const emoji = await platform.reports.feedbacks({
      type: 'emoji',
      start_date: '2024-01-01T00:00:00Z',
      end_date: '2024-01-31T00:00:00Z',
    });
    expect(emoji.map((f) => f.created_at)).toEqual(['2024-01-10T10:00:00Z']);
    const byChannel = await platform.reports.feedbacks({ channel: TG.uuid });
    expect(byChannel.map((f) => f.satisfaction)).toEqual([9, 4]);
    // 31 days, but more than the month from 1 February (29 days in 2024): the simulator answers 400.
    const over = '/reports/feedbacks/?start_date=2024-02-01T00:00:00Z&end_date=2024-03-03T00:00:00Z';
    expect((await raw(over)).status).toBe(400);
    const all = await platform.reports.feedbacksRange({
      from: '2024-01-01T00:00:00Z',
      to: '2024-04-01T00:00:00Z',
    });
    expect(all.map((f) => f.created_at)).toEqual(feedbacks.map((f) => f.created_at));
  });

  // The client checked 31 days and the simulator a calendar month: 1 February → 2 March passed the one and got a 400
  // from the other. One rule (addMonth) decides both.
  it.each([
    ['2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'],
    ['2024-02-01T00:00:00Z', '2024-03-01T00:00:00.001Z'],
    ['2024-02-01T00:00:00Z', '2024-03-02T23:59:59Z'],
    ['2024-01-31T10:00:00Z', '2024-02-29T10:00:00Z'],
    ['2024-01-31T10:00:00Z', '2024-02-29T10:00:01Z'],
    ['2023-01-31T00:00:00Z', '2023-03-01T00:00:00Z'],
    ['2024-12-15T12:00:00Z', '2025-01-15T12:00:00Z'],
    ['2024-12-15T12:00:00Z', '2025-01-16T00:00:00Z'],
    ['2024-03-01T00:00:00Z', '2024-03-31T23:59:59Z'],
  ])('the client and the simulator agree on a feedbacks span %s → %s', async (start_date, end_date) => {
    const local = await platform.reports.feedbacks({ start_date, end_date }).then(
      () => 'accepted',
      (e: unknown) => {
        expect(e).toBeInstanceOf(MessageValidationError);
        expect((e as MessageValidationError).issues).toMatchObject([
          { path: ['end_date'], rule: 'end_date.max_span' },
        ]);
        return 'refused';
      },
    );
    const answer = await raw(`/reports/feedbacks/?start_date=${start_date}&end_date=${end_date}`);
    expect(answer.status === 200 ? 'accepted' : answer.status === 400 ? 'refused' : answer.status).toBe(
      local,
    );
  });

  it('feedbacksRange asks the simulator for calendar months, none refused', async () => {
    const asked: string[] = [];
    const all = await platform.reports.feedbacksRange(
      { from: '2024-01-31T10:00:00Z', to: '2024-05-01T00:00:00Z' },
      { onProgress: (p) => asked.push(p.coveredTo.toISOString()) },
    );
    expect(asked).toEqual([
      '2024-02-29T10:00:00.000Z',
      '2024-03-29T10:00:00.000Z',
      '2024-04-29T10:00:00.000Z',
      '2024-05-01T00:00:00.000Z',
    ]);
    expect(all.map((f) => f.created_at)).toEqual(
      feedbacks.filter((f) => f.created_at >= '2024-01-31T10').map((f) => f.created_at),
    );
  });

  it('feedbacksRange resumes from coveredTo after a crash: every feedback once', async () => {
    const range = { from: '2024-02-01T10:00:00Z', to: '2024-03-31T00:00:00Z' };
    const stop = new AbortController();
    const saved: { page: Feedback[]; coveredTo?: Date } = { page: [] };
    const first = await platform.reports
      .feedbacksRange(range, {
        signal: stop.signal,
        onProgress: (p) => {
          saved.page.push(...p.page);
          saved.coveredTo = p.coveredTo;
          stop.abort(); // the process dies after its first checkpoint
        },
      })
      .catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Error);
    // The first window ends one calendar month on, exactly on a feedback: windows touch there.
    expect(saved.coveredTo?.toISOString()).toBe('2024-03-01T10:00:00.000Z');
    const at = saved.coveredTo?.getTime();
    const rest = await platform.reports.feedbacksRange({ ...range, from: saved.coveredTo as Date });
    const resumed = [...saved.page, ...rest.filter((f) => Date.parse(f.created_at) !== at)];
    expect(resumed.map((f) => f.created_at)).toEqual([
      '2024-02-15T10:00:00Z',
      '2024-03-01T10:00:00Z',
      '2024-03-30T10:00:00Z',
    ]);
  });

  it('failNext forces an answer, e.g. 403 { detail }', async () => {
    state.failNext({ path: '/reports/conversations/', status: 403, body: { detail: 'Not allowed.' } });
    await expect(platform.reports.conversations()).rejects.toBeInstanceOf(PermissionDeniedError);
    await expect(platform.reports.conversations()).resolves.toHaveLength(2);
  });
});

describe('the message stream', () => {
  it('answers NDJSON in created_at order with exclusive bounds', async () => {
    const res = await raw(
      `/stream/messages/?created_at__gt=${iso(T0 + 6 * HOUR)}&created_at__lt=${iso(T0 + 30 * HOUR)}`,
    );
    expect(res.status).toBe(200);
    const got = await collect(
      platform.messages.stream({ created_at__gt: iso(T0 + 6 * HOUR), created_at__lt: iso(T0 + 30 * HOUR) }),
    );
    // 06:00 and 30:00 are on the bounds: excluded.
    expect(ids(got)).toEqual([3, 4, 5]);
    expect(ids(await collect(platform.messages.stream()))).toEqual(records.map((r) => r.id));
  });

  it('compares the bounds to the microsecond', async () => {
    for (const [id, us] of [
      [101, '000100'],
      [102, '000200'],
    ] as const) {
      state.streamRecords.push(platformMessageRecord({ id, created_at: `2024-04-30T00:00:00.${us}Z` }));
    }
    const got = await collect(
      platform.messages.stream({
        created_at__gt: '2024-04-30T00:00:00.000100Z',
        created_at__lt: '2024-04-30T01:00:00Z',
      }),
    );
    expect(ids(got)).toEqual([102]);
  });

  it('filters by type, sender, channel and conversation', async () => {
    const week = { created_at__gt: iso(T0 - 1), created_at__lt: iso(T0 + 7 * DAY - 1) };
    const expected = (keep: (r: StreamMessage) => boolean) =>
      records.filter((r) => Date.parse(r.created_at) < T0 + 7 * DAY && keep(r)).map((r) => r.id);
    expect(ids(await collect(platform.messages.stream({ ...week, type: 'location' })))).toEqual(
      expected((r) => r.type === 'location'),
    );
    expect(ids(await collect(platform.messages.stream({ ...week, sender: 'agent' })))).toEqual(
      expected((r) => r.agent !== null),
    );
    expect(
      ids(await collect(platform.messages.stream({ ...week, sender: 'customer', channel: TG.uuid }))),
    ).toEqual(expected((r) => r.agent === null && r.channel.uuid === TG.uuid));
    expect(
      ids(await collect(platform.messages.stream({ ...week, conversation_uuid: CONV_A, type: 'text' }))),
    ).toEqual(expected((r) => r.conversation.uuid === CONV_A && r.type === 'text'));
  });

  it('includes conversation.customer only with conversation_customer=true', async () => {
    const [plain] = await collect(platform.messages.stream({ conversation_uuid: CONV_A }));
    expect(plain?.conversation).not.toHaveProperty('customer');
    const [full] = await collect(
      platform.messages.stream({ conversation_uuid: CONV_A, conversation_customer: true }),
    );
    expect(full?.conversation.customer?.uuid).toBe(CUSTOMER_A);
  });

  it('refuses a range over one week with 400 { detail }; the client refuses it before sending', async () => {
    const answer = await raw(
      `/stream/messages/?created_at__gt=${iso(T0)}&created_at__lt=${iso(T0 + 8 * DAY)}`,
    );
    expect(answer).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/one week/) } });
    expect((await raw('/stream/messages/?type=audio')).status).toBe(400);
    expect((await raw('/stream/messages/?created_at__gt=yesterday')).status).toBe(400);
    const before = state.requests.length;
    expect(() =>
      platform.messages.stream({ created_at__gt: iso(T0), created_at__lt: iso(T0 + 8 * DAY) }),
    ).toThrow(MessageValidationError);
    expect(state.requests.length).toBe(before);
  });

  it('streamRange covers ten days in two requests, each message once, in order', async () => {
    const got = await collect(platform.messages.streamRange({ from: iso(T0), to: iso(T0 + 10 * DAY) }));
    expect(ids(got)).toEqual(records.map((r) => r.id));
    expect(state.requests.filter((r) => r.path === '/stream/messages/')).toHaveLength(2);
  });

  it('caps a request at maxStreamMessages; streamRange continues past the cap', async () => {
    const capped = createPlatformHandlers({
      platformUrl: 'https://platform.capped',
      streamUrl: 'https://stream.capped',
      messages: records,
      maxStreamMessages: 7,
    });
    server.use(...capped.handlers);
    const c = client({ platformUrl: 'https://platform.capped', streamUrl: 'https://stream.capped' });
    expect(ids(await collect(c.messages.stream()))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // The client must know the server's cap to continue a window that hit it.
    const all = await collect(
      c.messages.streamRange({ from: iso(T0), to: iso(T0 + 10 * DAY) }, { maxPerRequest: 7 }),
    );
    expect(ids(all)).toEqual(records.map((r) => r.id));
    expect(capped.state.requests.filter((r) => r.path === '/stream/messages/').length).toBeGreaterThan(6);
  });
});

describe('sending', () => {
  it('records the items per conversation and adds them to the stream as agent messages', async () => {
    const items: MessageItem[] = [
      { type: 'text', content: 'Your order has shipped.' },
      { type: 'document', content: 'Invoice', url: 'https://files.example.com/invoice-1042.pdf' },
      {
        type: 'interactive',
        content: 'Was this helpful?',
        data: {
          type: 'button',
          action: {
            items: [
              { type: 'reply', content: { id: 'yes', title: 'Yes' } },
              { type: 'reply', content: { id: 'no', title: 'No' } },
            ],
          },
        },
      },
    ];
    await expect(platform.messages.send(CONV_A, items)).resolves.toEqual({ detail: '3 messages sent.' });
    expect(state.sentMessages.get(CONV_A)).toEqual(items);
    const echoed = await collect(
      platform.messages.stream({ conversation_uuid: CONV_A, sender: 'agent', created_at__gt: iso(NOW - 1) }),
    );
    expect(echoed.map((m) => [m.type, m.agent, m.content, m.channel.uuid])).toEqual([
      ['text', 'agent@example.com', 'Your order has shipped.', WA.uuid],
      ['media', 'agent@example.com', 'Invoice', WA.uuid],
      ['text', 'agent@example.com', 'Was this helpful?', WA.uuid],
    ]);
  });

  it('invalid items never reach the server; a request that bypasses the client gets 400', async () => {
    const e = await platform.messages
      .send(CONV_A, [
        { type: 'text', content: '' },
        { type: 'document', content: 'x', url: 'ftp://files.example.com/invoice.pdf' },
      ])
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues.map((i) => i.path.slice(0, 2))).toEqual([
      ['messages', 0],
      ['messages', 1],
    ]);
    expect(state.requests).toHaveLength(0);
    const answer = await raw('/v2/messages/', {
      method: 'POST',
      body: { uuid: CONV_A, messages: [{ type: 'text', content: '' }] },
    });
    expect(answer).toMatchObject({
      status: 400,
      body: { detail: expect.stringContaining('messages.0.content') },
    });
    expect(state.sentMessages.size).toBe(0);
  });

  it('an unknown conversation is a 400', async () => {
    await expect(
      platform.messages.send(CONV_UNKNOWN, [{ type: 'text', content: 'Hi' }]),
    ).rejects.toBeInstanceOf(BadRequestError);
  });

  it('batchSend records the send; more than 500 is refused locally, and by the server with 400 { detail }', async () => {
    await expect(
      platform.messages.batchSend({ message: 'Closed today.', conversations: [CONV_A, CONV_B] }),
    ).resolves.toBeUndefined();
    expect(state.batchSends).toMatchObject([{ message: 'Closed today.', conversations: [CONV_A, CONV_B] }]);
    const many = Array.from(
      { length: 1200 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const before = state.requests.length;
    await expect(
      platform.messages.batchSend({ message: 'x', conversations: many.slice(0, 501) }),
    ).rejects.toBeInstanceOf(MessageValidationError);
    expect(state.requests.length).toBe(before);
    const answer = await raw('/batch_send_message/', {
      method: 'POST',
      body: { message: 'x', conversations: many.slice(0, 501) },
    });
    expect(answer).toMatchObject({ status: 400, body: { detail: expect.stringContaining('500') } });
    const all = await platform.messages.batchSendAll({
      message: 'Maintenance tonight.',
      conversations: many,
    });
    expect(all.sent).toHaveLength(1200);
    expect(state.batchSends.slice(1).map((b) => b.conversations.length)).toEqual([500, 500, 200]);
  });
});

describe('conversation and customer operations', () => {
  it('archive and unarchive change the archived set and the conversation record', async () => {
    await expect(platform.conversations.archive(CONV_A)).resolves.toEqual({
      detail: 'Conversation archived.',
    });
    expect(state.archived).toEqual(new Set([CONV_A]));
    const [record] = await platform.reports.conversations({ archived_at_range: 'today' });
    expect(record).toMatchObject({ uuid: CONV_A, is_archived: true, archived_at: iso(NOW) });
    await platform.conversations.unarchive(CONV_A);
    expect(state.archived.size).toBe(0);
    await expect(platform.conversations.archive(CONV_UNKNOWN)).rejects.toBeInstanceOf(BadRequestError);
  });

  it('assign, assignToGroup and unassign', async () => {
    await platform.conversations.assign(CONV_A, { email: 'agent@example.com' });
    await platform.conversations.assignToGroup(CONV_A, 'Billing');
    expect(state.assignments.get(CONV_A)).toEqual({
      agent: 'agent@example.com',
      auto: false,
      group: 'Billing',
    });
    await platform.conversations.assign(CONV_B, { auto: true });
    expect(state.assignments.get(CONV_B)).toMatchObject({ agent: 'agent@example.com', auto: true });
    await platform.conversations.unassign(CONV_A);
    expect(state.assignments.has(CONV_A)).toBe(false);
    await expect(
      platform.conversations.assign(CONV_A, { email: 'nobody@example.com' }),
    ).rejects.toBeInstanceOf(BadRequestError);
    const group = await platform.conversations.assignToGroup(CONV_A, 'Nowhere').catch((x: unknown) => x);
    expect(group).toBeInstanceOf(NotFoundError);
    expect((group as NotFoundError).description).toBe('Group not found.');
    const conv = await platform.conversations.assignToGroup(CONV_UNKNOWN, 'Billing').catch((x: unknown) => x);
    expect((conv as NotFoundError).description).toBe('Conversation not found.');
  });

  it('setType: 404 for an unknown type, 405 for a bare main type or a channel it is not allowed for', async () => {
    await platform.conversations.setType(CONV_A, { name: 'Complaint', sub: 'Delivery' });
    await platform.conversations.setType(CONV_A, { name: 'Sales lead' });
    expect(state.types.get(CONV_A)).toEqual({ name: 'Sales lead', sub: null });
    const [record] = await platform.reports.conversations({ created_at_range: 'today' });
    expect(record?.type).toEqual({ main_type: 'Sales lead', sub_type1: null, sub_type2: null });
    await expect(platform.conversations.setType(CONV_A, { name: 'Praise' })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(
      platform.conversations.setType(CONV_A, { name: 'Complaint', sub: 'Weather' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(platform.conversations.setType(CONV_A, { name: 'Complaint' })).rejects.toBeInstanceOf(
      MethodNotAllowedError,
    );
    // Conversation B is on Telegram; 'Sales lead' is for WhatsApp only.
    await expect(platform.conversations.setType(CONV_B, { name: 'Sales lead' })).rejects.toBeInstanceOf(
      MethodNotAllowedError,
    );
  });

  it('setCustomFields: values checked against the definitions, 400 { info, error } otherwise', async () => {
    await platform.conversations.setCustomFields(CONV_A, { order_id: 'A-1042' });
    await platform.conversations.setCustomFields(CONV_A, { priority: 2 });
    expect(state.customFields.get(CONV_A)).toEqual({ order_id: 'A-1042', priority: 2 });
    const e = await platform.conversations
      .setCustomFields(CONV_A, { priority: 'high' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(BadRequestError);
    expect((e as BadRequestError).body).toEqual({
      info: 'priority expects a number value.',
      error: 'Invalid custom field value.',
    });
    await expect(platform.conversations.setCustomFields(CONV_A, { colour: 'red' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(
      platform.conversations.setCustomFields(CONV_UNKNOWN, { order_id: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('customers: fields and custom fields, both body shapes; unknown customers are refused', async () => {
    await platform.customers.update(CUSTOMER_A, { name: 'Aziza Karimova', email: 'aziza@example.com' });
    await platform.customers.setCustomFields(CUSTOMER_A, { loyalty_tier: 'gold' });
    expect(state.customers.get(CUSTOMER_A)).toEqual({
      fields: { name: 'Aziza Karimova', email: 'aziza@example.com' },
      customFields: { loyalty_tier: 'gold' },
    });
    const [record] = await platform.reports.conversations({ created_at_range: 'today' });
    expect(record?.customer).toMatchObject({ name: 'Aziza Karimova', email: 'aziza@example.com' });
    await expect(platform.customers.update(CONV_UNKNOWN, { name: 'x' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    const mixed = await raw('/v2/customers/', {
      method: 'POST',
      body: { uuid: CUSTOMER_A, customer: { name: 'x', custom_fields: { a: { value: 1 } } } },
    });
    expect(mixed.status).toBe(400);
  });
});

describe('the handlers as a whole', () => {
  it('404 for an unknown path, 405 for a known path with another method', async () => {
    expect(await raw('/v2/nothing/', { token: null })).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
    expect((await raw('/v2/messages/', { token: null })).status).toBe(405);
  });

  it('reset restores the seeds and forgets what was recorded', async () => {
    await platform.conversations.archive(CONV_A);
    state.streamRecords.length = 0;
    state.reset();
    expect(state.archived.size).toBe(0);
    expect(state.requests).toHaveLength(0);
    expect(state.streamRecords).toHaveLength(40);
    expect(state.conversationRecords[0]?.is_archived).toBe(false);
  });
});
