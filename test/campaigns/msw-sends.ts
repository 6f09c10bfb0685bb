/** A campaign's sends against a gateway answered by msw: the messages, the gateway's answers, the client. */
import { HttpResponse, http } from 'msw';
import type { SetupServerApi } from 'msw/node';
import { type CampaignObserver, GatewayClient, type OutboundMessage } from '../../src/index.js';
import { API_KEY, GW } from '../helpers/msw.js';

/** Message `i`: its body is `m<i>`, which the gateway below turns into the wamid `wamid.m<i>`. */
export const msg = (i: number): OutboundMessage => ({
  to: `99890${String(1_000_000 + i)}`,
  type: 'text',
  text: { body: `m${i}` },
});

export type SendBody = { to: string; text: { body: string } };

/** The gateway's acceptance of `body`: the wamid `wamid.<body text>`. */
export function accept(body: SendBody) {
  return HttpResponse.json({
    isSuccess: true,
    data: { contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.${body.text.body}` }] },
  });
}

/**
 * The gateway answers each send on `server` with `answer` (by default its acceptance), after `onRequest`
 * (which may hold the answer back) has seen its body text.
 */
export function gateway(
  server: SetupServerApi,
  onRequest: (body: string) => Promise<void> | undefined = () => undefined,
  answer: (body: SendBody) => Response = accept,
): void {
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      const body = (await request.json()) as SendBody;
      await onRequest(body.text.body);
      return answer(body);
    }),
  );
}

/** A client of that gateway recording campaigns through `campaigns`. */
export const client = (campaigns: CampaignObserver) =>
  new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, campaigns });

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
