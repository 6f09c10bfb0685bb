/**
 * A 2xx without the expected body is an InvalidResponseError that carries the status the server really answered:
 * a create answered 201 or 202 must not be reported as a 200.
 */
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { GatewayClient, InvalidResponseError, PlatformClient, PublicApiClient } from '../../src/index.js';
import { API_KEY, GW, useMswServer } from '../helpers/msw.js';

const server = useMswServer();

describe('a 2xx without the expected body reports the real status', () => {
  it('a send answered 201 without a message id', async () => {
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        HttpResponse.json({ isSuccess: true, data: { messages: [] } }, { status: 201 }),
      ),
    );
    const e = await new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false }).messages
      .send({ to: '998901234567', type: 'text', text: { body: 'Hi' } })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect(e).toMatchObject({ status: 201, mayHaveBeenSent: true, request: { method: 'POST' } });
    expect((e as Error).message).toContain('answered 201');
  });

  it('a template create answered 202 without the record', async () => {
    const API = 'https://api.test/api/v1';
    server.use(
      http.post(`${API}/wa/:appId/templates`, () =>
        HttpResponse.json({ isSuccess: true, data: { nothing: 'here' } }, { status: 202 }),
      ),
    );
    const e = await new PublicApiClient({ secretKey: 'sk_test_0123456789abcdef', baseUrl: API }).templates
      .create('app1', {
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Your order {{1}} has shipped.', examples: ['#1042'] },
      })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect(e).toMatchObject({ status: 202 });
    expect((e as Error).message).toContain('answered 202');
  });

  it('a platform read answered 203 with a body of another shape', async () => {
    const STREAM = 'https://stream.test';
    server.use(http.get(`${STREAM}/stats`, () => HttpResponse.json({ not: 'a list' }, { status: 203 })));
    const e = await new PlatformClient({
      platformUrl: 'https://platform.test',
      streamUrl: STREAM,
      token: 'ready-token-abcdef123456',
    }).stats
      .get()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect(e).toMatchObject({ status: 203, request: { method: 'GET', path: '/stats' } });
    expect((e as Error).message).toContain('GET /stats answered 203');
  });
});
