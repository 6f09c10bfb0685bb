import type { RequestHandler } from 'msw';
import { validateTemplate } from '../templates/validate.js';
import {
  GatewaySimulator,
  type GatewaySimulatorOptions,
  type SimulatedResponse,
} from './gateway-simulator.js';
import { loadMsw } from './msw-runtime.js';

function toResponse(answer: SimulatedResponse): Response {
  if (answer.body instanceof Uint8Array) {
    return new Response(answer.body as Uint8Array<ArrayBuffer>, {
      status: answer.status,
      headers: answer.headers,
    });
  }
  return Response.json(answer.body as Record<string, unknown>, {
    status: answer.status,
    headers: answer.headers,
  });
}

/**
 * msw handlers that behave like the gateway, not like a stub: auth → rate limit → balance → forward, with the
 * real error codes, `is_fake`, generated wamids and media downloads. Inspect `simulator.sent` in assertions.
 *
 * @example
 * import { setupServer } from 'msw/node';
 * import { createGatewayHandlers } from 'wa-gateway-sdk/testing';
 * const { handlers, simulator } = createGatewayHandlers({ baseUrl: 'https://gw.test', apiKeys: ['sk_test_1'] });
 * const server = setupServer(...handlers);
 * // ... send with GatewayClient({ apiKey: 'sk_test_1', baseUrl: 'https://gw.test' })
 * expect(simulator.sent).toHaveLength(1);
 */
export function createGatewayHandlers(options: GatewaySimulatorOptions & { baseUrl: string }): {
  handlers: RequestHandler[];
  simulator: GatewaySimulator;
} {
  const { http } = loadMsw('createGatewayHandlers');
  const simulator = new GatewaySimulator(options);
  const base = options.baseUrl.replace(/\/+$/, '');
  const handlers = [
    http.post(`${base}/v1/wa/message`, async ({ request }) =>
      toResponse(
        simulator.send({
          authorization: request.headers.get('authorization'),
          query: new URL(request.url).searchParams,
          body: await request.text(),
        }),
      ),
    ),
    http.get(`${base}/v1/wa/media/:mediaId`, ({ request, params }) =>
      toResponse(
        simulator.media({
          authorization: request.headers.get('authorization'),
          mediaId: String(params['mediaId']),
          phoneNumberId: new URL(request.url).searchParams.get('phone_number_id'),
        }),
      ),
    ),
  ];
  return { handlers, simulator };
}

/**
 * msw handlers for the public API's template create: the secret key check (`ORGANIZATION_SECRET_010/011`),
 * the app check (`APPLICATION_004`), the same local rules as `validateTemplate` answered as a 422 with
 * `errors.fields`, and `UPSTREAM_017` for a name and language that already exist. A rule whose code the spec
 * does not name is answered without a code (never an invented one).
 *
 * @example
 * const { handlers, created } = createPublicApiHandlers({ baseUrl: 'https://api.test/api/v1', secretKeys: ['sk_org_1'], appIds: ['app_1'] });
 */
export function createPublicApiHandlers(options: {
  baseUrl: string;
  secretKeys?: readonly string[];
  appIds?: readonly string[];
}): { handlers: RequestHandler[]; created: Record<string, unknown>[] } {
  const { http } = loadMsw('createPublicApiHandlers');
  const base = options.baseUrl.replace(/\/+$/, '');
  const keys = options.secretKeys ?? ['sk_org_test'];
  const created: Record<string, unknown>[] = [];
  // `code` is left out when the spec names none for the rule: the answer never carries an invented code.
  const fail = (status: number, code: string | null, group: string, description: string, fields?: object) =>
    Response.json(
      {
        isSuccess: false,
        errors: { ...(code ? { code } : {}), group, description, ...(fields ? { fields } : {}) },
      },
      { status },
    );
  const handlers = [
    http.post(`${base}/wa/:appId/templates`, async ({ request, params }) => {
      const auth = request.headers.get('authorization');
      if (!auth) return fail(401, 'ORGANIZATION_SECRET_010', 'AUTHENTICATION', 'Secret key is missing.');
      if (!keys.includes(auth.replace(/^Bearer /, ''))) {
        return fail(401, 'ORGANIZATION_SECRET_011', 'AUTHENTICATION', 'Secret key is invalid.');
      }
      if (options.appIds && !options.appIds.includes(String(params['appId']))) {
        return fail(404, 'APPLICATION_004', 'NOT_FOUND', 'Application does not belong to the organization.');
      }
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return fail(400, 'REQ_001', 'VALIDATION', 'Malformed request.');
      }
      const { valid, issues } = validateTemplate(body);
      if (!valid) {
        // The spec's WA_TPL code where it names one; otherwise no code at all (the spec does not say which code
        // the server answers for those rules, and a made-up one would be matched on by the code under test).
        const first = issues.find((i) => i.code) ?? issues[0]!;
        const fields = new Map<string, object>();
        for (const i of issues) {
          // One entry per field key, as the server's `errors.fields`; the first issue (document order) wins.
          if (fields.has(i.field)) continue;
          fields.set(i.field, {
            ...(i.code ? { code: i.code } : {}),
            description: i.message,
            ...(i.params ? { params: i.params } : {}),
          });
        }
        return fail(422, first.code, 'VALIDATION', first.message, Object.fromEntries(fields));
      }
      const t = body as { name: string; language: string; category: string };
      if (created.some((c) => c['name'] === t.name && c['language'] === t.language)) {
        return fail(
          409,
          'UPSTREAM_017',
          'CONFLICT',
          'A template with this name and language already exists.',
        );
      }
      const record = {
        sourceId: String(1_000_000_000 + created.length),
        name: t.name,
        language: t.language,
        category: t.category,
        status: 'PENDING',
      };
      created.push(record);
      return Response.json({ data: record, isSuccess: true });
    }),
  ];
  return { handlers, created };
}
