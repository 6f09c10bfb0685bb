import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  MessageValidationError,
  NotFoundError,
  PermissionDeniedError,
  PublicApiClient,
  RateLimitError,
  type TemplateCreateRequest,
  TemplateValidationError,
  UnprocessableEntityError,
  UpstreamError,
  validateTemplate,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const API = 'https://api.test/api/v1';
const SECRET = 'sk_org_9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a';
const api = (extra: object = {}) => new PublicApiClient({ secretKey: SECRET, baseUrl: API, ...extra });

const template: TemplateCreateRequest = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Your order {{1}} has shipped.', examples: ['#1042'] },
};
/** The public API's error table (spec): status, code, group, class, and whether it may have been done. */
const CODES = [
  [400, 'REQ_001', 'VALIDATION', BadRequestError, false],
  [400, 'UPSTREAM_021', 'VALIDATION', BadRequestError, false],
  [401, 'ORGANIZATION_SECRET_010', 'AUTHENTICATION', AuthenticationError, false],
  [401, 'ORGANIZATION_SECRET_011', 'AUTHENTICATION', AuthenticationError, false],
  [401, 'UPSTREAM_018', 'AUTHENTICATION', AuthenticationError, false],
  [403, 'UPSTREAM_019', 'NOT_ALLOWED', PermissionDeniedError, false],
  [404, 'APPLICATION_004', 'NOT_FOUND', NotFoundError, false],
  [409, 'UPSTREAM_017', 'CONFLICT', ConflictError, false],
  [422, 'WA_TPL_014', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_022', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_023', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_024', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_025', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_026', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_027', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_028', 'VALIDATION', UnprocessableEntityError, false],
  [422, 'UPSTREAM_029', 'VALIDATION', UnprocessableEntityError, false],
  [502, 'UPSTREAM_003', 'SERVICE_UNAVAILABLE', UpstreamError, true],
] as const;

const created = {
  sourceId: '1234567890',
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  status: 'PENDING',
};
const fail = (status: number, code: string, group: string, extra: object = {}) =>
  HttpResponse.json(
    { isSuccess: false, errors: { code, group, description: `${code} text`, ...extra } },
    { status },
  );

describe('PublicApiClient.templates.create', () => {
  it('POSTs the template to /wa/{app_id}/templates with the secret key and returns the record', async () => {
    let seen: { url: string; auth: string | null; body: unknown } | undefined;
    server.use(
      http.post(`${API}/wa/:appId/templates`, async ({ request }) => {
        seen = { url: request.url, auth: request.headers.get('authorization'), body: await request.json() };
        return HttpResponse.json({ data: { ...created, extra: 1 }, isSuccess: true });
      }),
    );
    const record = await api().templates.create('app 1', template);
    expect(seen?.url).toBe(`${API}/wa/app%201/templates`);
    expect(seen?.auth).toBe(`Bearer ${SECRET}`);
    expect(seen?.body).toEqual(template);
    expect(record).toMatchObject(created);
  });

  it('onPremBase serves the same call from {onprem_base}/public/api/v1', async () => {
    let url = '';
    server.use(
      http.post('https://crm.customer.test/public/api/v1/wa/:appId/templates', ({ request }) => {
        url = request.url;
        return HttpResponse.json({ data: created, isSuccess: true });
      }),
    );
    const client = new PublicApiClient({ secretKey: SECRET, onPremBase: 'https://crm.customer.test/' });
    expect(client.baseUrl).toBe('https://crm.customer.test/public/api/v1');
    await client.templates.create('a1', template);
    expect(url).toBe('https://crm.customer.test/public/api/v1/wa/a1/templates');
  });

  it('an invalid template throws TemplateValidationError with every issue and makes no request', async () => {
    const bad = {
      ...template,
      name: 'Order Shipped',
      body: { text: '{{1}} shipped {{2}}', examples: ['x'] },
    };
    const e = await api()
      .templates.create('a1', bad as TemplateCreateRequest)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TemplateValidationError);
    const codes = (e as TemplateValidationError).issues.map((i) => i.code);
    expect(codes).toEqual(expect.arrayContaining(['WA_TPL_034', 'WA_TPL_011', 'WA_TPL_014']));
    expect(validateTemplate(bad).issues).toEqual((e as TemplateValidationError).issues);
  });

  it('validate: false lets the server judge', async () => {
    server.use(
      http.post(`${API}/wa/:appId/templates`, () =>
        fail(422, 'WA_TPL_034', 'VALIDATION', {
          fields: { name: { code: 'WA_TPL_034', description: 'Name must match ^[a-z][a-z0-9_]*$' } },
        }),
      ),
    );
    const bad = { ...template, name: 'Bad Name' };
    const e = await api()
      .templates.create('a1', bad, { validate: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnprocessableEntityError);
    // The server's field errors and the local issues share one shape: one handler serves both.
    const server422 = (e as UnprocessableEntityError).issues;
    const local = validateTemplate(bad).issues;
    expect(server422).toEqual([
      { code: 'WA_TPL_034', field: 'name', message: 'Name must match ^[a-z][a-z0-9_]*$' },
    ]);
    expect(local.map(({ code, field }) => ({ code, field }))).toEqual(
      server422.map(({ code, field }) => ({ code, field })),
    );
  });

  it.each(CODES)(
    '%i %s → %o with code, group, description, params, fields and its mayHaveBeenSent; sent once',
    async (status, code, group, Class, mayHaveBeenSent) => {
      let count = 0;
      server.use(
        http.post(`${API}/wa/:appId/templates`, () => {
          count++;
          return fail(status, code, group, {
            params: { limit: 60 },
            fields: { 'header.text': { code, description: 'field text', params: { limit: 60 } } },
          });
        }),
      );
      const e = await api()
        .templates.create('a1', template)
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Class);
      expect(e).toMatchObject({ status, code, group, description: `${code} text`, params: { limit: 60 } });
      expect((e as UnprocessableEntityError).mayHaveBeenSent).toBe(mayHaveBeenSent);
      expect((e as UnprocessableEntityError).fields).toEqual({
        'header.text': { code, description: 'field text', params: { limit: 60 } },
      });
      expect(count).toBe(1);
    },
  );

  it.each(CODES)(
    'the %i %s envelope on a 200 is %o too, with the real status',
    async (_status, code, group, Class) => {
      server.use(http.post(`${API}/wa/:appId/templates`, () => fail(200, code, group)));
      const e = await api()
        .templates.create('a1', template)
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Class);
      expect(e).toMatchObject({ status: 200, code, group, description: `${code} text` });
    },
  );

  it('429 UPSTREAM_020 is a RateLimitError, retried (nothing was created)', async () => {
    let count = 0;
    server.use(
      http.post(`${API}/wa/:appId/templates`, () =>
        ++count === 1
          ? fail(429, 'UPSTREAM_020', 'LIMIT_EXCEEDED')
          : HttpResponse.json({ data: created, isSuccess: true }),
      ),
    );
    const log = captureLogger();
    expect((await api({ logger: log.logger }).templates.create('a1', template)).sourceId).toBe('1234567890');
    expect(count).toBe(2);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'wa-gateway-sdk: retrying request',
        meta: expect.objectContaining({ code: 'UPSTREAM_020' }),
      },
    ]);
    server.use(http.post(`${API}/wa/:appId/templates`, () => fail(429, 'UPSTREAM_020', 'LIMIT_EXCEEDED')));
    await expect(api({ maxRetries: 0 }).templates.create('a1', template)).rejects.toSatisfy(
      (e) => e instanceof RateLimitError && !e.mayHaveBeenSent,
    );
  });

  it('every local rule code of the 422 row (WA_TPL_001-046, 048-055) is "nothing done", not repeated', async () => {
    const listed = [...Array(46).keys()].map((i) => i + 1).concat([...Array(8).keys()].map((i) => i + 48));
    const answers: string[] = [];
    for (const n of [...listed, 47]) {
      const code = `WA_TPL_${String(n).padStart(3, '0')}`;
      let count = 0;
      server.use(
        http.all(`${API}/wa/:appId/templates`, () => {
          count++;
          return fail(422, code, 'VALIDATION');
        }),
      );
      const created = await api()
        .templates.create('a1', template, { validate: false })
        .catch((x: unknown) => x as UnprocessableEntityError);
      // A GET through request() is repeated on 5xx only: a refusal is final there too.
      const read = (await api()
        .request('GET', '/wa/a1/templates')
        .catch((x: unknown) => x)) as UnprocessableEntityError;
      if (created.mayHaveBeenSent || read.mayHaveBeenSent) answers.push(code);
      expect(count).toBe(2);
    }
    // WA_TPL_047 is not in the spec's table: it proves nothing.
    expect(answers).toEqual(['WA_TPL_047']);
  });
});

describe('PublicApiClient.request', () => {
  it('calls any path with the same auth, query and errors', async () => {
    let seen: { url: string; auth: string | null } | undefined;
    server.use(
      http.get(`${API}/wa/:appId/templates`, ({ request }) => {
        seen = { url: request.url, auth: request.headers.get('authorization') };
        return HttpResponse.json({ data: [], isSuccess: true });
      }),
    );
    expect(
      await api().request('GET', '/wa/a1/templates', {
        query: { language: 'en_US', limit: 10, skip: undefined },
      }),
    ).toEqual({
      data: [],
      isSuccess: true,
    });
    expect(seen?.url).toBe(`${API}/wa/a1/templates?language=en_US&limit=10`);
    expect(seen?.auth).toBe(`Bearer ${SECRET}`);
  });

  it('GETs are retried on 5xx; POSTs are not', async () => {
    let gets = 0;
    let posts = 0;
    server.use(
      http.get(`${API}/x`, () =>
        ++gets === 1 ? new HttpResponse('oops', { status: 503 }) : HttpResponse.json({ ok: 1 }),
      ),
      http.post(`${API}/x`, () => {
        posts++;
        return new HttpResponse('oops', { status: 503 });
      }),
    );
    const log = captureLogger();
    expect(await api({ logger: log.logger }).request('GET', '/x')).toEqual({ ok: 1 });
    expect(gets).toBe(2);
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
    await expect(api().request('POST', '/x', { body: { a: 1 } })).rejects.toMatchObject({ status: 503 });
    expect(posts).toBe(1);
  });

  it('errors map with fields (ORGANIZATION_SECRET_011)', async () => {
    server.use(
      http.delete(`${API}/wa/a1/templates/t1`, () => fail(401, 'ORGANIZATION_SECRET_011', 'AUTHENTICATION')),
    );
    await expect(api().request('DELETE', '/wa/a1/templates/t1')).rejects.toBeInstanceOf(AuthenticationError);
  });

  it.each([
    'wa/a1',
    '//evil.test/x',
    '/x?y=1',
    // Dot segments: the URL parser resolves them (also encoded, or after `\`), so the secret key would go above the base.
    '/../../admin/keys',
    '/%2e%2e/%2e%2e/admin',
    '/%2E%2e/admin',
    '/.%2E/admin',
    '/./../x',
    '/wa/..',
    '/wa/.',
    '/wa\\..\\..\\admin',
    '/.\t./admin',
    // The URL parser turns a lone surrogate into U+FFFD: the request would go to a path that was not written.
    '/wa/\ud800/templates',
    '/wa/a\udc00',
  ])('rejects the path %j before any request', async (path) => {
    const seen: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        seen.push(request.url);
        return HttpResponse.json({ ok: 1 });
      }),
    );
    await expect(api().request('GET', path)).rejects.toBeInstanceOf(ConfigurationError);
    expect(seen).toEqual([]);
  });

  // URLSearchParams turned a lone surrogate into U+FFFD: the request asked for a value that was not written.
  it.each([
    [{ language: 'en\ud800' }, ['query', 'language']],
    [{ name: '\udc00x', limit: 10 }, ['query', 'name']],
    [{ tags: ['ok', 'a\ud800'] }, ['query', 'tags', 1]],
    [{ 'k\ud800': 'v' }, ['query', 'k\ud800']],
  ])('refuses the query %j before any request, as an argument', async (query, path) => {
    const seen: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        seen.push(request.url);
        return HttpResponse.json({ ok: 1 });
      }),
    );
    const error = await api()
      .request('GET', '/wa/a1/templates', { query })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).issues).toMatchObject([
      {
        path,
        rule: 'query.format',
        message: expect.stringMatching(/a lone surrogate \(text no URL can carry\)$/),
      },
    ]);
    expect(seen).toEqual([]);
    // A surrogate pair is a character like any other.
    server.use(http.get(`${API}/*`, ({ request }) => HttpResponse.json({ url: request.url })));
    expect(await api().request('GET', '/wa/a1/templates', { query: { q: '😀' } })).toEqual({
      url: `${API}/wa/a1/templates?q=%F0%9F%98%80`,
    });
  });

  it.each(['/wa/a1/templates/..x', '/wa/.well-known', '/wa/a1/t...', '/wa/%2e%2ex'])(
    'accepts the path %j: a dot in a name is no dot segment',
    async (path) => {
      server.use(http.get(`${API}/*`, () => HttpResponse.json({ ok: 1 })));
      expect(await api().request('GET', path)).toEqual({ ok: 1 });
    },
  );
});

describe('PublicApiClient per-call signal', () => {
  it.each([{}, 'x', null])(
    'refuses the signal %o with the ConfigurationError messages.send gives',
    async (signal) => {
      let requests = 0;
      server.use(
        http.all(`${API}/*`, () => {
          requests++;
          return HttpResponse.json({ ok: 1 });
        }),
      );
      const options = { signal: signal as unknown as AbortSignal };
      for (const call of [
        () => api().request('GET', '/wa/a1/templates', options),
        () => api().templates.create('a1', template, options),
      ]) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(ConfigurationError);
        expect((error as Error).message).toMatch(/signal must be an AbortSignal/);
      }
      expect(requests).toBe(0);
    },
  );
});

describe('PublicApiClient construction', () => {
  it.each([
    [{ baseUrl: API }, /secretKey is required/],
    [{ secretKey: SECRET }, /baseUrl is required/],
    [{ secretKey: SECRET, baseUrl: 'https://api.test' }, /must end in '\/api\/v1'/],
    [{ secretKey: SECRET, baseUrl: API, onPremBase: 'https://x.test' }, /not both/],
  ])('%o is a clear ConfigurationError', (options, message) => {
    expect(() => new PublicApiClient(options as ConstructorParameters<typeof PublicApiClient>[0])).toThrow(
      message,
    );
  });

  it('keeps the secret key out of inspect and JSON', () => {
    expect(inspect(api(), { showHidden: true, depth: 5 })).not.toContain(SECRET);
    expect(JSON.stringify(api())).not.toContain(SECRET);
  });
});

describe("PublicApiClient: an option's near-miss key, from a caller with no type checker", () => {
  const outcome = (call: () => Promise<unknown>) =>
    call().then(
      () => undefined,
      (e: unknown) => e,
    );
  /** Counts the requests the public API receives. */
  function counted() {
    const seen = { requests: 0 };
    server.use(
      http.all(`${API}/*`, () => {
        seen.requests++;
        return HttpResponse.json({ ok: 1 });
      }),
    );
    return seen;
  }

  it.each([
    ['base_url', 'baseUrl'],
    ['secretkey', 'secretKey'],
    ['onPremBASE', 'onPremBase'],
    ['maxRetryWaitMS', 'maxRetryWaitMs'],
    ['timeout', 'timeoutMs'],
  ])('new PublicApiClient refuses %s, naming %s, and nothing is sent', (key, meant) => {
    const seen = counted();
    const options: Record<string, unknown> = { secretKey: SECRET, baseUrl: API, [key]: API };
    delete options[meant];
    expect(() => new PublicApiClient(options as never)).toThrow(
      new ConfigurationError(`new PublicApiClient: unknown option '${key}': did you mean '${meant}'?`),
    );
    expect(seen.requests).toBe(0);
  });

  it.each([
    ['Query', 'query'],
    ['idempotant', 'idempotent'],
    ['max_retries', 'maxRetries'],
  ])('request() refuses %s, naming %s, before any request', async (key, meant) => {
    const seen = counted();
    const error = await outcome(() => api().request('GET', '/wa/a1/templates', { [key]: 1 } as never));
    expect(error).toEqual(
      new ConfigurationError(`request: unknown option '${key}': did you mean '${meant}'?`),
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(seen.requests).toBe(0);
  });

  it("templates.create refuses { Validate: false } before the template's own check, and sends nothing", async () => {
    const seen = counted();
    const bad = { ...template, name: 'Bad Name' };
    const error = await outcome(() => api().templates.create('a1', bad, { Validate: false } as never));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      "templates.create: unknown option 'Validate': did you mean 'validate'?",
    );
    expect(seen.requests).toBe(0);
  });

  it('null options are none (a request goes), and options that are not an object are refused before any request', async () => {
    const seen = counted();
    await expect(api().request('GET', '/wa/a1/templates', null as never)).resolves.toEqual({ ok: 1 });
    expect(seen.requests).toBe(1);
    for (const given of [5, 'fast', true]) {
      const error = await outcome(() => api().request('GET', '/wa/a1/templates', given as never));
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(/^request: options must be an object; got /);
      const created = await outcome(() => api().templates.create('a1', template, given as never));
      expect(created).toBeInstanceOf(ConfigurationError);
      expect((created as Error).message).toMatch(/^templates\.create: options must be an object; got /);
    }
    expect(seen.requests).toBe(1);
  });

  it('a key close to no option is left alone, in the client and in a call', async () => {
    const seen = counted();
    const client = api({ region: 'eu' });
    await expect(
      client.request('GET', '/wa/a1/templates', { requestContext: { user: 7 } } as never),
    ).resolves.toEqual({ ok: 1 });
    expect(seen.requests).toBe(1);
  });
});

describe('templates.create input', () => {
  /** Every request the public API receives, as `METHOD path`, and the bodies of the template creates. */
  function recordRequests() {
    const seen: string[] = [];
    const bodies: unknown[] = [];
    server.use(
      http.all(`${new URL(API).origin}/*`, async ({ request }) => {
        seen.push(`${request.method} ${new URL(request.url).pathname}`);
        if (request.method === 'POST') bodies.push(await request.json());
        return HttpResponse.json({ isSuccess: true, data: created });
      }),
    );
    return { seen, bodies };
  }

  it('a missing app id is a MessageValidationError (an argument) before any request', async () => {
    await expect(api().templates.create('', template)).rejects.toBeInstanceOf(MessageValidationError);
  });

  it('an app id that is not a string says so, not that it is empty', async () => {
    const e = await api()
      .templates.create(123 as never, template)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues[0]).toMatchObject({
      path: ['appId'],
      rule: 'appId.required',
      message: 'must be a string (got number): give the application id (app_id) the template belongs to',
    });
  });

  it.each(['.', '..', '\uD800'])(
    'app id %j, which the path cannot carry as one segment, is refused before any request',
    async (appId) => {
      const { seen } = recordRequests();
      const e = await api()
        .templates.create(appId, template)
        .catch((x: unknown) => x);
      // An argument error by every client's rule, as media.download refuses a media id the path cannot carry.
      expect(e).toBeInstanceOf(MessageValidationError);
      expect((e as MessageValidationError).issues).toMatchObject([
        {
          path: ['appId'],
          rule: 'appId.format',
          message: expect.stringMatching(/give the application id \(app_id\) the template belongs to$/),
        },
      ]);
      expect(seen).toEqual([]);
      await api().templates.create('a.b..c', template);
      expect(seen).toEqual(['POST /api/v1/wa/a.b..c/templates']);
    },
  );

  it('sends exactly what it validated: a getter read again cannot change it, a throwing one is an issue', async () => {
    const { bodies } = recordRequests();
    let reads = 0;
    const shifty = { ...template };
    Object.defineProperty(shifty, 'name', {
      enumerable: true,
      get: () => (reads++ === 0 ? 'order_shipped' : 'BAD NAME!'),
    });
    const changed = await api()
      .templates.create('a1', shifty)
      .catch((x: unknown) => x);
    expect(changed).toBeInstanceOf(TemplateValidationError);
    expect((changed as TemplateValidationError).issues.map((i) => i.rule)).toEqual(['name.pattern']);
    const boom = () => {
      throw new Error('boom');
    };
    for (const hostile of [
      { ...template, category: { toString: boom } },
      new Proxy({}, { get: boom }),
      Object.defineProperty({ ...template }, 'body', { enumerable: true, get: boom }),
    ]) {
      await expect(api().templates.create('a1', hostile as never)).rejects.toBeInstanceOf(
        TemplateValidationError,
      );
    }
    expect(bodies).toEqual([]);
    // What is sent is a plain copy: later changes to the caller's object do not reach it.
    const mine = structuredClone(template) as { name: string };
    const sent = api().templates.create('a1', mine as TemplateCreateRequest);
    mine.name = 'changed_after_the_call';
    await sent;
    expect(bodies).toEqual([template]);
  });
});
