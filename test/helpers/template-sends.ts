/** The gateway of the template send tests: msw records every send's body and answers 200. */
import { HttpResponse, http } from 'msw';
import type { SetupServerApi } from 'msw/node';
import { GatewayClient, type TemplateCatalog } from '../../src/index.js';
import { API_KEY, GW, sendOk } from './msw.js';

/** Starts recording: the returned array fills with each send's JSON body, in order. */
export function recordSends(server: SetupServerApi): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      bodies.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json(sendOk());
    }),
  );
  return bodies;
}

/** A client of that gateway, without rate limiting, with the catalogue when one is given. */
export const templateClient = (templates?: TemplateCatalog) =>
  new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, ...(templates ? { templates } : {}) });
