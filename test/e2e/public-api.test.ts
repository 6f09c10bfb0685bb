/**
 * PublicApiClient over a real socket: a node:http server on 127.0.0.1 that speaks the spec's envelope
 * (`{ data, isSuccess: true }`, `{ isSuccess: false, errors: { code, group, description, params, fields } }`)
 * and records every request exactly as it arrived on the wire.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ConflictError,
  InvalidResponseError,
  PublicApiClient,
  type TemplateCreateRequest,
  UnprocessableEntityError,
} from '../../src/index.js';
import { type Handler, startServer } from '../helpers/http-server.js';

const SECRET_KEY = 'sk_org_e2e_Z8k3Qp7Rm2Lx9Wv4Tn6Yb1Hc5Jd0Fg';
const APP = 'app_7f3a9c';

const template: TemplateCreateRequest = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Order {{1}} has shipped and arrives {{2}}.', examples: ['#1042', 'Friday'] },
  footer: { text: 'Reply STOP to opt out' },
  buttons: [{ type: 'QUICK_REPLY', text: 'Track it' }],
};

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let url = '';
let close: () => Promise<void>;
let seen: Seen[] = [];
/** What the server answers to the next request(s); set by each test. */
let answer: Handler = (_req, res) => void res.writeHead(404).end();

beforeAll(async () => {
  const s = await startServer((req, res, body) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    return answer(req, res, body);
  });
  url = s.url;
  close = s.close;
});
afterAll(async () => {
  await close();
});
beforeEach(() => {
  seen = [];
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) =>
    void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function client(options: { maxRetries?: number } = {}) {
  return new PublicApiClient({ secretKey: SECRET_KEY, baseUrl: `${url}/api/v1`, ...options });
}

describe('templates.create over a real socket', () => {
  it('POSTs /api/v1/wa/{app_id}/templates with the Bearer key and the template as JSON, and returns data', async () => {
    const record = {
      sourceId: '1234567890',
      name: 'order_shipped',
      language: 'en_US',
      category: 'UTILITY',
      status: 'PENDING',
    };
    answer = json(200, { data: record, isSuccess: true });
    const created = await client().templates.create(APP, template);
    expect(created).toEqual(record);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req!.method).toBe('POST');
    expect(req!.url).toBe(`/api/v1/wa/${APP}/templates`);
    expect(req!.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.accept).toBe('application/json');
    expect(req!.headers['user-agent']).toMatch(/wa-gateway-sdk/);
    expect(JSON.parse(req!.body)).toEqual(template);
  });

  it('encodes the app id as one path segment', async () => {
    answer = json(200, {
      data: {
        sourceId: '1',
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        status: 'PENDING',
      },
      isSuccess: true,
    });
    await client().templates.create('app/1 ?x', template);
    expect(seen[0]!.url).toBe('/api/v1/wa/app%2F1%20%3Fx/templates');
  });

  it('onPremBase sends the same call to {onprem_base}/public/api/v1', async () => {
    answer = json(200, {
      data: {
        sourceId: '9',
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        status: 'PENDING',
      },
      isSuccess: true,
    });
    const api = new PublicApiClient({ secretKey: SECRET_KEY, onPremBase: url });
    await expect(api.templates.create(APP, template)).resolves.toMatchObject({ sourceId: '9' });
    expect(seen[0]!.url).toBe(`/public/api/v1/wa/${APP}/templates`);
  });

  it('409 UPSTREAM_017 is a ConflictError with the envelope fields and the request id; not retried', async () => {
    answer = json(
      409,
      {
        isSuccess: false,
        errors: {
          code: 'UPSTREAM_017',
          group: 'CONFLICT',
          description: 'Template with name order_shipped and language en_US already exists',
          params: { name: 'order_shipped', language: 'en_US' },
        },
      },
      { 'x-request-id': 'req-409-abc' },
    );
    const e = await client()
      .templates.create(APP, template)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConflictError);
    expect(e).toMatchObject({
      status: 409,
      code: 'UPSTREAM_017',
      group: 'CONFLICT',
      description: 'Template with name order_shipped and language en_US already exists',
      params: { name: 'order_shipped', language: 'en_US' },
      request: { method: 'POST', path: `/wa/${APP}/templates` },
      requestId: 'req-409-abc',
    });
    expect((e as Error).message).toBe(
      `409 UPSTREAM_017: Template with name order_shipped and language en_US already exists (POST /wa/${APP}/templates)`,
    );
    expect(seen).toHaveLength(1);
  });

  it('422 with errors.fields is an UnprocessableEntityError whose issues have the local issue shape', async () => {
    const fields = {
      'body.text': {
        code: 'UPSTREAM_027',
        description: 'A variable cannot be the first or last element of the body',
        params: { position: 'last' },
      },
      'buttons.url': { code: 'WA_TPL_003', description: 'Button URL is not valid' },
    };
    answer = json(422, {
      isSuccess: false,
      errors: { code: 'VAL_001', group: 'VALIDATION', description: 'Validation failed', fields },
    });
    const e = await client({ maxRetries: 2 })
      .templates.create(APP, template)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnprocessableEntityError);
    const err = e as UnprocessableEntityError;
    expect(err).toMatchObject({ status: 422, code: 'VAL_001', group: 'VALIDATION', fields });
    expect(err.issues).toEqual([
      {
        code: 'UPSTREAM_027',
        field: 'body.text',
        message: 'A variable cannot be the first or last element of the body',
        params: { position: 'last' },
      },
      { code: 'WA_TPL_003', field: 'buttons.url', message: 'Button URL is not valid' },
    ]);
    expect(seen).toHaveLength(1);
  });

  it('a 200 that carries the failure envelope is still an error', async () => {
    answer = json(200, {
      isSuccess: false,
      errors: { code: 'UPSTREAM_017', group: 'CONFLICT', description: 'exists' },
    });
    await expect(client().templates.create(APP, template)).rejects.toMatchObject({
      code: 'UPSTREAM_017',
      description: 'exists',
    });
  });

  // Regression: this excerpt was built from `JSON.stringify(data)` without scrubbing (found by this test, fixed
  // in a2e2fd1 by `transport.redact`), so a body echoing the Authorization header put the key into the error.
  it('a 2xx without the record is an InvalidResponseError whose excerpt never holds the key', async () => {
    answer = (req, res) =>
      void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ isSuccess: true, data: { echo: req.headers.authorization } }));
    const e = await client()
      .templates.create(APP, template)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    for (const text of [JSON.stringify(e), inspect(e), (e as InvalidResponseError).bodyExcerpt]) {
      expect(text).not.toContain(SECRET_KEY);
    }
  });
});

describe('request() over a real socket', () => {
  it("request('GET', path, { query }) sends the query string and the Bearer key, and returns the JSON", async () => {
    const list = { data: [{ id: 1, name: 'order_shipped' }], isSuccess: true };
    answer = json(200, list);
    const result = await client().request('GET', `/wa/${APP}/templates`, {
      query: { language: 'en_US', status: ['APPROVED', 'PENDING'], limit: 10, skip: undefined, q: 'a b&c' },
    });
    expect(result).toEqual(list);
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req!.method).toBe('GET');
    const u = new URL(req!.url, 'http://x');
    expect(u.pathname).toBe(`/api/v1/wa/${APP}/templates`);
    expect([...u.searchParams]).toEqual([
      ['language', 'en_US'],
      ['status', 'APPROVED'],
      ['status', 'PENDING'],
      ['limit', '10'],
      ['q', 'a b&c'],
    ]);
    expect(req!.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(req!.headers['content-type']).toBeUndefined();
    expect(req!.body).toBe('');
  });

  it("request('PATCH', path, { body }) sends the body as JSON; an empty 204 returns undefined", async () => {
    answer = (_req, res) => void res.writeHead(204).end();
    const result = await client().request('PATCH', `/wa/${APP}/templates/42`, { body: { footer: null } });
    expect(result).toBeUndefined();
    expect(seen[0]).toMatchObject({ method: 'PATCH', url: `/api/v1/wa/${APP}/templates/42` });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ footer: null });
  });
});
