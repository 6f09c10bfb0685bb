import type * as Msw from 'msw';
import type { RequestHandler } from 'msw';
import { requireBaseUrl } from '../core/client-options.js';
import { ConfigurationError } from '../core/errors.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import {
  checkSimulatorOptions,
  GatewaySimulator,
  type GatewaySimulatorOptions,
} from './gateway-simulator.js';
import { decodedSegment, malformedPath } from './path-segment.js';
import type { SimulatedResponse } from './simulated-http.js';
import { TemplateRegistry } from './template-registry.js';

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
  const base = baseUrlOf(options, 'createGatewayHandlers', 'https://gw.test');
  checkSimulatorOptions(options, 'createGatewayHandlers');
  const { http } = loadMsw('createGatewayHandlers');
  const simulator = new GatewaySimulator(options);
  const media = segmentRoute(base, '/v1/wa/media/', '');
  const handlers = [
    http.post(`${base}/v1/wa/message`, async ({ request }) =>
      toResponse(
        simulator.send({
          authorization: request.headers.get('authorization'),
          contentType: request.headers.get('content-type'),
          query: new URL(request.url).searchParams,
          body: await request.text(),
        }),
      ),
    ),
    http.get(media.path, ({ request }) => {
      const mediaId = media.segment(request.url);
      if (mediaId === undefined) return toResponse({ status: 400, body: malformedPath.media });
      return toResponse(
        simulator.media({
          authorization: request.headers.get('authorization'),
          mediaId,
          phoneNumberId: new URL(request.url).searchParams.get('phone_number_id'),
        }),
      );
    }),
  ];
  return { handlers, simulator };
}

/**
 * msw handlers for the public API's template create: the secret key check (`ORGANIZATION_SECRET_010/011`),
 * the app check (`APPLICATION_004`), the same local rules as `validateTemplate` answered as a 422 with
 * `errors.fields`, and `UPSTREAM_017` for a name and language that already exist. The behaviour is
 * `TemplateRegistry`'s, the one the sandbox serves too; `registry` holds what was created. A rule whose code the
 * spec does not name is answered without a code (never an invented one).
 *
 * @example
 * const { handlers, created } = createPublicApiHandlers({ baseUrl: 'https://api.test/api/v1', secretKeys: ['sk_org_1'], appIds: ['app_1'] });
 */
export function createPublicApiHandlers(options: {
  baseUrl: string;
  secretKeys?: readonly string[] | undefined;
  appIds?: readonly string[] | undefined;
}): { handlers: RequestHandler[]; created: Record<string, unknown>[]; registry: TemplateRegistry } {
  const base = baseUrlOf(options, 'createPublicApiHandlers', 'https://api.test/api/v1');
  const { http } = loadMsw('createPublicApiHandlers');
  const registry = new TemplateRegistry({
    secretKeys: options.secretKeys ?? ['sk_org_test'],
    ...(options.appIds ? { appIds: options.appIds } : {}),
  });
  const created: Record<string, unknown>[] = [];
  const templates = segmentRoute(base, '/wa/', '/templates');
  const handlers = [
    http.post(templates.path, async ({ request }) => {
      const appId = templates.segment(request.url);
      if (appId === undefined) return toResponse({ status: 400, body: malformedPath.template });
      const answer = registry.create({
        authorization: request.headers.get('authorization'),
        appId,
        body: await request.text(),
      });
      if (answer.created) created.push((answer.body as { data: Record<string, unknown> }).data);
      return toResponse(answer);
    }),
  ];
  return { handlers, created, registry };
}

/**
 * A route with one id in its path (`${base}/v1/wa/media/{id}`), as a RegExp with no capture group, and the id cut
 * from a request's URL and decoded (`undefined` when its `%` escape is malformed). Not msw's `:id` pattern: msw
 * decodes a `:param` while it matches, before any handler runs, and a malformed escape (`%E0`) throws there, which
 * msw answers with a 500 holding the URIError and its stack. Case-insensitive, with an optional trailing slash, as
 * msw's string patterns match.
 */
function segmentRoute(
  base: string,
  before: string,
  after: string,
): { path: RegExp; segment: (url: string) => string | undefined } {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const around = (id: string) => `^${literal(base + before)}${id}${literal(after)}/?$`;
  const capture = new RegExp(around('([^/]+)'), 'i');
  return {
    path: new RegExp(around('[^/]+'), 'i'),
    segment(url) {
      const { origin, pathname } = new URL(url);
      return decodedSegment(capture.exec(origin + pathname)?.[1] ?? '');
    },
  };
}

/**
 * The handlers' `baseUrl`, by the clients' rule (an http(s) URL with no query, fragment or credentials), without
 * its trailing slash: a handler registered at `garbage/v1/wa/message` would match nothing and say nothing.
 */
function baseUrlOf(options: { baseUrl?: unknown } | undefined, where: string, example: string): string {
  if (options === null || typeof options !== 'object') {
    throw new ConfigurationError(
      `${where}(options) needs options with the \`baseUrl\` to answer at, e.g. '${example}'.`,
    );
  }
  return requireBaseUrl(options.baseUrl, `${where}: \`baseUrl\``);
}

/**
 * msw, loaded on first use of an msw handler factory, so that `wa-gateway-sdk/testing` imports without msw (an
 * optional peer): the sandbox, fixtures and signer need nothing but Node. msw declares a `module-sync` export, so
 * on Node ≥ 20.19 this resolves to the same ES module copy an `import 'msw'` gets, and the handlers belong to the
 * caller's msw.
 */
export function loadMsw(feature: string): typeof Msw {
  return loadOptionalPeer<typeof Msw>('msw', feature);
}
