import { delay, HttpResponse, http } from 'msw';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ApiError,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  InvalidResponseError,
  MessageValidationError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionDeniedError,
} from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { type GroupBasedReport, PlatformClient, type Report } from '../../src/platform/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useMswServer } from '../helpers/msw.js';
import { CHANNEL, CONV, CUSTOMER, PLATFORM, STREAM, TOKEN } from '../helpers/platform.js';

const server = useMswServer();

interface Seen {
  method: string;
  url: URL;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

/** Records every request to both hosts and answers with `answer` (default `{ detail: 'ok' }`). */
function record(answer: (seen: Seen) => Response = () => HttpResponse.json({ detail: 'ok' })) {
  const seen: Seen[] = [];
  const handler = async ({ request }: { request: Request }) => {
    const text = await request.text();
    const s: Seen = {
      method: request.method,
      url: new URL(request.url),
      authorization: request.headers.get('authorization'),
      contentType: request.headers.get('content-type'),
      body: text === '' ? undefined : JSON.parse(text),
    };
    seen.push(s);
    return answer(s);
  };
  server.use(http.all(`${PLATFORM}/*`, handler), http.all(`${STREAM}/*`, handler));
  return seen;
}

function client(extra: { maxRetries?: number; logger?: Logger } = {}) {
  return new PlatformClient({ platformUrl: PLATFORM, streamUrl: STREAM, token: TOKEN, ...extra });
}

describe('POST operations: method, path and body', () => {
  const c = client();
  const cases: [string, () => Promise<unknown>, string, unknown][] = [
    [
      'messages.send',
      () => c.messages.send(CONV, [{ type: 'text', content: 'Hello' }]),
      '/v2/messages/',
      { uuid: CONV, messages: [{ type: 'text', content: 'Hello' }] },
    ],
    [
      'conversations.archive',
      () => c.conversations.archive(CONV),
      '/v2/conversations/archive/',
      { uuid: CONV },
    ],
    [
      'conversations.unarchive',
      () => c.conversations.unarchive(CONV),
      '/v2/conversations/unarchive/',
      { uuid: CONV },
    ],
    [
      'conversations.assign auto',
      () => c.conversations.assign(CONV, { auto: true }),
      '/v2/conversations/assign/',
      { uuid: CONV, agent: { auto: true } },
    ],
    [
      'conversations.assign email',
      () => c.conversations.assign(CONV, { email: 'agent@example.com' }),
      '/v2/conversations/assign/',
      { uuid: CONV, agent: { email: 'agent@example.com' } },
    ],
    [
      'conversations.assignToGroup',
      () => c.conversations.assignToGroup(CONV, 'Billing'),
      '/v2/conversations/assign_to_group/',
      { uuid: CONV, group: { name: 'Billing' } },
    ],
    [
      'conversations.unassign',
      () => c.conversations.unassign(CONV),
      '/v2/conversations/unassign/',
      { uuid: CONV },
    ],
    [
      'conversations.setType with sub',
      () => c.conversations.setType(CONV, { name: 'Complaint', sub: 'Delivery' }),
      '/v2/conversations/type/',
      { uuid: CONV, type: { name: 'Complaint', sub: 'Delivery' } },
    ],
    [
      'conversations.setType without sub',
      () => c.conversations.setType(CONV, { name: 'Question' }),
      '/v2/conversations/type/',
      { uuid: CONV, type: { name: 'Question', sub: null } },
    ],
    [
      'conversations.setCustomFields',
      () => c.conversations.setCustomFields(CONV, { order_id: 'A-1042', priority: 2, vip: true }),
      '/v2/conversations/custom_fields/',
      {
        uuid: CONV,
        custom_fields: { order_id: { value: 'A-1042' }, priority: { value: 2 }, vip: { value: true } },
      },
    ],
    [
      'customers.update',
      () =>
        c.customers.update(CUSTOMER, {
          name: 'Aziza Karimova',
          email: 'aziza@example.com',
          telegram: '@aziza',
        }),
      '/v2/customers/',
      {
        uuid: CUSTOMER,
        customer: { name: 'Aziza Karimova', email: 'aziza@example.com', telegram: '@aziza' },
      },
    ],
    [
      'customers.setCustomFields',
      () => c.customers.setCustomFields(CUSTOMER, { loyalty_tier: 'gold' }),
      '/v2/customers/',
      { uuid: CUSTOMER, customer: { custom_fields: { loyalty_tier: { value: 'gold' } } } },
    ],
  ];

  it.each(cases)('%s', async (_name, call, path, body) => {
    const seen = record(() => HttpResponse.json({ detail: 'Done.' }));
    await expect(call()).resolves.toEqual({ detail: 'Done.' });
    expect(seen).toHaveLength(1);
    const [s] = seen;
    expect(s?.method).toBe('POST');
    expect(s?.url.origin).toBe(PLATFORM);
    expect(s?.url.pathname).toBe(path);
    expect(s?.url.search).toBe('');
    expect(s?.authorization).toBe(`JWT ${TOKEN}`);
    expect(s?.contentType).toBe('application/json');
    expect(s?.body).toEqual(body);
  });

  it('batchSend POSTs message and conversations, and accepts the empty 200 body', async () => {
    const seen = record(() => new HttpResponse(null, { status: 200 }));
    await expect(
      client().messages.batchSend({ message: 'We are closed today.', conversations: [CONV, CUSTOMER] }),
    ).resolves.toBeUndefined();
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url.href).toBe(`${PLATFORM}/batch_send_message/`);
    expect(seen[0]?.body).toEqual({ message: 'We are closed today.', conversations: [CONV, CUSTOMER] });
  });

  it('returns an empty detail when a 200 carries no body', async () => {
    record(() => new HttpResponse(null, { status: 200 }));
    await expect(client().conversations.archive(CONV)).resolves.toEqual({ detail: '' });
  });
});

describe('GET operations: host, path and query string', () => {
  it('stats.get reads GET {stream_url}/stats', async () => {
    const seen = record(() => HttpResponse.json([]));
    await expect(client().stats.get()).resolves.toEqual([]);
    expect(seen[0]?.method).toBe('GET');
    expect(seen[0]?.url.href).toBe(`${STREAM}/stats`);
    expect(seen[0]?.authorization).toBe(`JWT ${TOKEN}`);
  });

  it('reports.get sends every query value', async () => {
    const seen = record(() => HttpResponse.json({ messages: [] }));
    await client().reports.get({ date_range: 'last_7', trunc: 'day', data: 'messages', group_based: false });
    expect(seen[0]?.url.href).toBe(
      `${PLATFORM}/reports/?date_range=last_7&trunc=day&data=messages&group_based=false`,
    );
  });

  it('reports.get omits what is not given', async () => {
    const seen = record(() => HttpResponse.json({}));
    await client().reports.get({ date_range: 'ytd' });
    expect(seen[0]?.url.href).toBe(`${PLATFORM}/reports/?date_range=ytd`);
  });

  it('reports.get parses the plain and the group-based report', async () => {
    const plain = {
      messages: [{ date: '2024-05-01', outgoing_messages: 3, incoming_messages: 4, total_messages: 7 }],
      total_response_times: { first_response_time: 12.5, avg_response_time: '30.25' },
      extra_section: { kept: true },
    };
    record(() => HttpResponse.json(plain));
    const report = await client().reports.get({ data: 'messages' });
    expectTypeOf(report).toEqualTypeOf<Report>();
    expect(report.messages?.[0]?.total_messages).toBe(7);
    // A Decimal serialised as a string is read as its number; unknown sections are kept.
    expect(report.total_response_times?.avg_response_time).toBe(30.25);
    expect((report as Record<string, unknown>)['extra_section']).toEqual({ kept: true });

    server.resetHandlers();
    const grouped = {
      conversations: {
        total: [{ date: '2024-05-01', group: 'Support', archived: 2, total: 5 }],
        types: [{ name: 'Question', sub: null, total: 5 }],
        language: [{ lang: 'en', count: 5 }],
      },
      total_response_times: [{ group: 'Support', first_response_time: 10, avg_response_time: 20 }],
    };
    const seen = record(() => HttpResponse.json(grouped));
    const g = await client().reports.get({ data: 'conversations', group_based: true });
    expectTypeOf(g).toEqualTypeOf<GroupBasedReport>();
    expect(seen[0]?.url.searchParams.get('group_based')).toBe('true');
    expect(g.conversations?.total[0]?.archived).toBe(2);
    expect(g.total_response_times?.[0]?.group).toBe('Support');
  });

  it('reports.get refuses an undocumented query value before any request', async () => {
    const seen = record();
    await expect(client().reports.get({ date_range: 'last_99' as 'last_7' })).rejects.toBeInstanceOf(
      MessageValidationError,
    );
    await expect(
      client().reports.get({ dateRange: 'last_7' } as unknown as { date_range: 'last_7' }),
    ).rejects.toThrow(/dateRange/);
    expect(seen).toHaveLength(0);
  });

  it('reports.conversations sends both ranges and keeps the wire field names', async () => {
    const record1 = {
      uuid: CONV,
      type: { main_type: 'Question', sub_type1: 'Billing', sub_type2: null },
      group: 'Support',
      language: 'en',
      created_at: '2024-05-01T10:00:00Z',
      is_archived: true,
      archived_at: '2024-05-02T10:00:00Z',
      reponse_times: { first_response_time: 42, avg_response_time: 60.5 },
      customer: { uuid: CUSTOMER, name: 'Aziza', phone_number: '998901234567', email: null, crm: null },
      messages: { total: 9, incoming: 5, outgoing: 4 },
    };
    const seen = record(() =>
      HttpResponse.json([record1, { ...record1, type: 'Question' }, { ...record1, type: null }]),
    );
    const rows = await client().reports.conversations({
      created_at_range: 'last_30',
      archived_at_range: 'mtd',
    });
    expect(seen[0]?.url.href).toBe(
      `${PLATFORM}/reports/conversations/?created_at_range=last_30&archived_at_range=mtd`,
    );
    expect(rows).toHaveLength(3);
    expect(rows[0]?.reponse_times?.first_response_time).toBe(42);
    expect(rows[1]?.type).toBe('Question');
    expect(rows[2]?.type).toBeNull();
  });

  it('reports.feedbacks sends type, channel and ISO dates and returns feedbacks[]', async () => {
    const feedback = {
      created_at: '2024-05-03T09:00:00Z',
      conversation: { uuid: CONV, type: null, created_at: '2024-05-03T08:00:00Z' },
      channel: { uuid: CHANNEL, name: 'Main', backend: 'whatsapp' },
      customer: { uuid: CUSTOMER, name: 'Aziza', phone_number: null, email: null },
      type: 'nps',
      language: 'en',
      satisfaction: 9,
      message: 'Great help',
    };
    const seen = record(() => HttpResponse.json({ feedbacks: [feedback] }));
    const rows = await client().reports.feedbacks({
      type: 'nps',
      channel: CHANNEL,
      start_date: new Date('2024-05-01T00:00:00Z'),
      end_date: '2024-05-31T23:59:59Z',
    });
    const q = seen[0]?.url.searchParams;
    expect(seen[0]?.url.pathname).toBe('/reports/feedbacks/');
    expect(q?.get('type')).toBe('nps');
    expect(q?.get('channel')).toBe(CHANNEL);
    expect(q?.get('start_date')).toBe('2024-05-01T00:00:00.000Z');
    expect(q?.get('end_date')).toBe('2024-05-31T23:59:59Z');
    expect(rows).toEqual([feedback]);
  });

  it('reports.feedbacks refuses a span longer than a month before any request', async () => {
    const seen = record();
    await expect(
      client().reports.feedbacks({ start_date: '2024-01-01T00:00:00Z', end_date: '2024-03-01T00:00:00Z' }),
    ).rejects.toThrow(/feedbacksRange/);
    expect(seen).toHaveLength(0);
  });

  // The check was 31 days: 1 February → 2 March passed it, and the platform (a calendar month) answered 400.
  it.each([
    ['2024-02-01T00:00:00Z', '2024-03-02T00:00:00Z', '2024-03-01T00:00:00.000Z'],
    ['2024-02-01T00:00:00Z', '2024-03-01T00:00:00.001Z', '2024-03-01T00:00:00.000Z'],
    ['2023-01-31T08:00:00Z', '2023-03-01T00:00:00Z', '2023-02-28T08:00:00.000Z'],
  ])(
    'reports.feedbacks refuses %s → %s locally: more than one calendar month',
    async (start_date, end_date, latest) => {
      const seen = record();
      const error = await client()
        .reports.feedbacks({ start_date, end_date })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessageValidationError);
      expect((error as MessageValidationError).issues).toEqual([
        {
          path: ['end_date'],
          rule: 'end_date.max_span',
          code: 'end_date.max_span',
          message: expect.stringContaining(`is after ${latest}, one calendar month after start_date`),
        },
      ]);
      expect(seen).toHaveLength(0);
    },
  );

  it('reports.feedbacks takes exactly one calendar month, however long the month', async () => {
    const seen = record(() => HttpResponse.json({ feedbacks: [] }));
    await client().reports.feedbacks({
      start_date: '2024-02-01T00:00:00Z',
      end_date: '2024-03-01T00:00:00Z',
    });
    await client().reports.feedbacks({
      start_date: '2024-01-31T00:00:00Z',
      end_date: '2024-02-29T00:00:00Z',
    });
    await client().reports.feedbacks({
      start_date: '2024-03-01T00:00:00Z',
      end_date: '2024-04-01T00:00:00Z',
    });
    expect(seen).toHaveLength(3);
  });

  it('an answer without the documented shape is an InvalidResponseError that quotes no data', async () => {
    record(() => HttpResponse.json([{ uuid: CONV, name: 'Customer Secret Name', stats: 'nope' }]));
    const error = await client()
      .stats.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect((error as Error).message).toContain('0.stats');
    expect(JSON.stringify(error)).not.toContain('Customer Secret Name');
  });
});

describe('error bodies become the class of their status with the server text', () => {
  const c = client();
  const cases: [string, number, unknown, () => Promise<unknown>, new (...a: never[]) => ApiError, string][] =
    [
      [
        '400 {detail}',
        400,
        { detail: 'Agent not found.' },
        () => c.conversations.assign(CONV, { email: 'x@example.com' }),
        BadRequestError,
        'Agent not found.',
      ],
      [
        '400 {error}',
        400,
        { error: 'Undefined range.' },
        () => c.reports.conversations({ created_at_range: 'today' }),
        BadRequestError,
        'Undefined range.',
      ],
      [
        '400 {info, error}',
        400,
        { info: 'Field priority expects a number.', error: 'Invalid custom field value.' },
        () => c.conversations.setCustomFields(CONV, { priority: 'high' }),
        BadRequestError,
        'Field priority expects a number.',
      ],
      [
        '400 batch {detail}',
        400,
        { detail: 'Too many requests, try later.' },
        () => c.messages.batchSend({ message: 'x', conversations: [CONV] }),
        BadRequestError,
        'Too many requests, try later.',
      ],
      [
        '401 {detail}',
        401,
        { detail: 'Invalid Authorization header.' },
        () => c.messages.send(CONV, [{ type: 'text', content: 'x' }]),
        AuthenticationError,
        'Invalid Authorization header.',
      ],
      [
        '403 {detail}',
        403,
        { detail: 'You do not have permission to perform this action.' },
        () => c.reports.conversations(),
        PermissionDeniedError,
        'You do not have permission to perform this action.',
      ],
      [
        '404 {detail}',
        404,
        { detail: 'Group not found.' },
        () => c.conversations.assignToGroup(CONV, 'Nope'),
        NotFoundError,
        'Group not found.',
      ],
      [
        '405 {detail}',
        405,
        { detail: 'Main type cannot be set.' },
        () => c.conversations.setType(CONV, { name: 'Main' }),
        MethodNotAllowedError,
        'Main type cannot be set.',
      ],
      [
        '405 custom fields',
        405,
        { detail: 'Custom fields are not allowed for this channel.' },
        () => c.customers.setCustomFields(CUSTOMER, { a: 1 }),
        MethodNotAllowedError,
        'Custom fields are not allowed for this channel.',
      ],
    ];

  it.each(cases)('%s', async (_name, status, body, call, Class, text) => {
    record(() => HttpResponse.json(body as Record<string, unknown>, { status }));
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    const e = error as ApiError;
    expect(e.status).toBe(status);
    expect(e.description).toContain(text);
    expect(e.message).toContain(text);
    expect(e.body).toEqual(body);
  });

  it('an {info, error} body keeps both texts', async () => {
    record(() =>
      HttpResponse.json(
        { info: 'Field priority expects a number.', error: 'Invalid value.' },
        { status: 400 },
      ),
    );
    const e = (await client()
      .conversations.setCustomFields(CONV, { priority: 'x' })
      .catch((x: unknown) => x)) as ApiError;
    expect(e.description).toContain('Invalid value.');
    expect(e.description).toContain('Field priority expects a number.');
  });
});

describe('retries', () => {
  it('repeats a GET that met a 5xx', async () => {
    let n = 0;
    const seen = record(() => (++n === 1 ? HttpResponse.json({}, { status: 502 }) : HttpResponse.json([])));
    const log = captureLogger();
    await expect(client({ maxRetries: 1, logger: log.logger }).stats.get()).resolves.toEqual([]);
    expect(seen).toHaveLength(2);
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
  });

  it('does not repeat a POST that met a 5xx: it may have been processed', async () => {
    const seen = record(() => HttpResponse.json({ detail: 'boom' }, { status: 500 }));
    await expect(client({ maxRetries: 2 }).conversations.archive(CONV)).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(seen).toHaveLength(1);
  });

  it('does not repeat a POST whose connection failed in flight', async () => {
    const seen = record(() => HttpResponse.error());
    const error = await client({ maxRetries: 2 })
      .messages.send(CONV, [{ type: 'text', content: 'once' }])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).mayHaveBeenSent).toBe(true);
    expect(seen).toHaveLength(1);
  });
});

describe('local checks before any request', () => {
  it('refuses a malformed UUID for every conversation and customer operation', async () => {
    const seen = record();
    const c = client();
    const calls = [
      () => c.conversations.archive('not-a-uuid'),
      () => c.conversations.unarchive('42'),
      () => c.conversations.assign('x', { auto: true }),
      () => c.conversations.assignToGroup('x', 'Billing'),
      () => c.conversations.unassign(''),
      () => c.conversations.setType('x', { name: 'Question' }),
      () => c.conversations.setCustomFields('x', { a: 1 }),
      () => c.customers.update('x', { name: 'A' }),
      () => c.customers.setCustomFields('x', { a: 1 }),
    ];
    // One rule for argument errors: what a call sends is a MessageValidationError, with the rule id.
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(MessageValidationError);
    await expect(c.conversations.archive('not-a-uuid')).rejects.toThrow(
      /Invalid conversations.archive argument: uuid: must be a UUID/,
    );
    await expect(c.conversations.archive('not-a-uuid')).rejects.toMatchObject({
      issues: [{ path: ['uuid'], rule: 'uuid.format' }],
    });
    expect(seen).toHaveLength(0);
  });

  it('refuses bad arguments of conversation and customer operations', async () => {
    const seen = record();
    const c = client();
    const calls = [
      () => c.conversations.assign(CONV, {} as { auto: true }),
      () => c.conversations.assign(CONV, { email: 'not an email' }),
      () => c.conversations.assignToGroup(CONV, ' '),
      () => c.conversations.setType(CONV, { name: '' }),
      () => c.conversations.setCustomFields(CONV, {}),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(MessageValidationError);
    expect(seen).toHaveLength(0);
  });

  it('sends any JSON value as a custom field value (the spec gives it no type): arrays and objects too', async () => {
    const seen = record();
    const c = client();
    const fields = { tags: ['vip', 'wholesale'], address: { city: 'Tashkent', zip: null }, n: 2, none: null };
    await c.conversations.setCustomFields(CONV, fields);
    await c.customers.setCustomFields(CUSTOMER, { segments: ['b2b'] });
    expect(seen.map((s) => s.body)).toEqual([
      {
        uuid: CONV,
        custom_fields: {
          tags: { value: ['vip', 'wholesale'] },
          address: { value: { city: 'Tashkent', zip: null } },
          n: { value: 2 },
          none: { value: null },
        },
      },
      { uuid: CUSTOMER, customer: { custom_fields: { segments: { value: ['b2b'] } } } },
    ]);
  });

  it('refuses a custom field value that cannot be sent as JSON, saying what and where', async () => {
    const seen = record();
    const c = client();
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const cases: [unknown, (string | number)[], string][] = [
      [undefined, ['f'], 'got undefined'],
      [() => 1, ['f'], 'got a function'],
      [10n, ['f'], 'got a bigint'],
      [Number.NaN, ['f'], 'got NaN (JSON has no NaN or Infinity)'],
      [[1, Number.POSITIVE_INFINITY], ['f', 1], 'value.1 is Infinity (JSON has no NaN or Infinity)'],
      [
        { at: new Date(0) },
        ['f', 'at'],
        'value.at is a Date object (only plain objects and arrays are JSON)',
      ],
      [new Map(), ['f'], 'got a Map object'],
      [{ list: [Symbol('s')] }, ['f', 'list', 0], 'value.list.0 is a symbol'],
      [circular, ['f', 'self'], 'value.self is a circular reference'],
    ];
    for (const [value, path, says] of cases) {
      const error = await c.conversations.setCustomFields(CONV, { f: value as never }).then(
        () => undefined,
        (e: unknown) => e as MessageValidationError,
      );
      expect(error).toBeInstanceOf(MessageValidationError);
      expect(error?.issues).toMatchObject([{ path, rule: 'custom_field.json' }]);
      expect(error?.issues[0]?.message).toContain(says);
    }
    // A value shared twice is not circular.
    const shared = { x: 1 };
    await c.customers.setCustomFields(CUSTOMER, { f: [shared, shared] });
    expect(seen.map((s) => s.body)).toEqual([
      { uuid: CUSTOMER, customer: { custom_fields: { f: { value: [{ x: 1 }, { x: 1 }] } } } },
    ]);
  });

  it('refuses unknown or empty customer fields', async () => {
    const seen = record();
    const c = client();
    await expect(c.customers.update(CUSTOMER, {})).rejects.toThrow(/no customer field/);
    await expect(c.customers.update(CUSTOMER, { phone: '1' } as unknown as { name: string })).rejects.toThrow(
      /phone/,
    );
    expect(seen).toHaveLength(0);
  });

  it('still sends the deprecated crm field', async () => {
    const seen = record();
    await client().customers.update(CUSTOMER, { crm: 'CRM-77' });
    expect(seen[0]?.body).toEqual({ uuid: CUSTOMER, customer: { crm: 'CRM-77' } });
  });
});

describe('batch send limits', () => {
  const uuids = (n: number, offset = 0) =>
    Array.from(
      { length: n },
      (_, i) => `00000000-0000-4000-8000-${(i + offset).toString(16).padStart(12, '0')}`,
    );

  it('refuses more than 500 conversations before any request', async () => {
    const seen = record();
    const error = await client()
      .messages.batchSend({ message: 'hi', conversations: uuids(501) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageValidationError);
    const issue = (error as MessageValidationError).issues[0];
    expect(issue?.path).toEqual(['conversations']);
    expect(issue?.message).toMatch(/501 entries.*500/);
    expect(seen).toHaveLength(0);
  });

  it('accepts exactly 500', async () => {
    const seen = record(() => new HttpResponse(null, { status: 200 }));
    await client().messages.batchSend({ message: 'hi', conversations: uuids(500) });
    expect((seen[0]?.body as { conversations: string[] } | undefined)?.conversations).toHaveLength(500);
  });

  it('lists every bad entry: empty message, malformed and repeated UUIDs', async () => {
    const seen = record();
    const error = (await client()
      .messages.batchSend({ message: '', conversations: [CONV, 'nope', CONV.toUpperCase()] })
      .catch((e: unknown) => e)) as MessageValidationError;
    expect(error).toBeInstanceOf(MessageValidationError);
    expect(error.issues.map((i) => [i.path, i.code])).toEqual([
      [['message'], 'too_small'],
      [['conversations', 1], 'invalid_format'],
      [['conversations', 2], 'unique'],
    ]);
    expect(seen).toHaveLength(0);
  });

  it('batchSendAll sends chunks of 500 in order and reports each', async () => {
    const seen = record(() => new HttpResponse(null, { status: 200 }));
    const all = uuids(1234);
    const result = await client().messages.batchSendAll({
      message: 'Maintenance tonight.',
      conversations: all,
    });
    expect(seen.map((s) => (s.body as { conversations: string[] }).conversations.length)).toEqual([
      500, 500, 234,
    ]);
    expect(seen.flatMap((s) => (s.body as { conversations: string[] }).conversations)).toEqual(all);
    expect(result.chunks.map((c) => c.status)).toEqual(['sent', 'sent', 'sent']);
    expect(result.sent).toEqual(all);
    expect(result.failed).toEqual([]);
  });

  it('batchSendAll keeps track of what was sent when a chunk fails, and stops by default', async () => {
    let n = 0;
    const seen = record(() =>
      ++n === 2
        ? HttpResponse.json({ detail: 'Too many requests.' }, { status: 400 })
        : new HttpResponse(null, { status: 200 }),
    );
    const all = uuids(1100);
    const result = await client().messages.batchSendAll({ message: 'x', conversations: all });
    expect(seen).toHaveLength(2);
    expect(result.chunks.map((c) => c.status)).toEqual(['sent', 'failed', 'skipped']);
    expect(result.sent).toEqual(all.slice(0, 500));
    expect(result.failed).toEqual(all.slice(500, 1000));
    expect(result.skipped).toEqual(all.slice(1000));
    expect(result.uncertain).toEqual([]);
    const failed = result.chunks[1];
    expect(failed?.status === 'failed' && failed.error).toBeInstanceOf(BadRequestError);
    expect(failed?.status === 'failed' && failed.mayHaveBeenSent).toBe(false);
  });

  it('batchSendAll with continueOnError tries every chunk; a cut connection is reported as uncertain', async () => {
    let n = 0;
    record(() => (++n === 1 ? HttpResponse.error() : new HttpResponse(null, { status: 200 })));
    const all = uuids(700);
    const result = await client().messages.batchSendAll(
      { message: 'x', conversations: all },
      { continueOnError: true },
    );
    expect(result.chunks.map((c) => c.status)).toEqual(['failed', 'sent']);
    expect(result.uncertain).toEqual(all.slice(0, 500));
    expect(result.sent).toEqual(all.slice(500));
  });

  it('batchSendAll stopped by the caller mid-chunk: that chunk may have been sent, the rest were not', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let n = 0;
    server.use(
      http.post(`${PLATFORM}/batch_send_message/`, async () => {
        n += 1;
        controller.abort(reason);
        await delay('infinite');
        return new HttpResponse(null, { status: 200 });
      }),
    );
    const all = uuids(700);
    const result = await client().messages.batchSendAll(
      { message: 'x', conversations: all },
      { signal: controller.signal },
    );
    expect(n).toBe(1);
    expect(result.chunks.map((c) => c.status)).toEqual(['failed', 'skipped']);
    expect(result.uncertain).toEqual(all.slice(0, 500));
    expect(result.skipped).toEqual(all.slice(500));
    const chunk = result.chunks[0];
    if (chunk?.status !== 'failed') throw new Error('expected the first chunk to have failed');
    expect(chunk.mayHaveBeenSent).toBe(true);
    const error = chunk.error;
    expect(error.cause).toBe(reason);
    expect(error.message).toMatch(/in flight when your signal stopped batchSendAll: it may have been sent/);
  });

  it('batchSendAll validates the whole list before the first request', async () => {
    const seen = record();
    const all = [...uuids(900), 'bad'];
    await expect(client().messages.batchSendAll({ message: 'x', conversations: all })).rejects.toBeInstanceOf(
      MessageValidationError,
    );
    expect(seen).toHaveLength(0);
  });
});
