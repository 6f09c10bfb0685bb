import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** One msw server per test file; unhandled requests fail the test instead of reaching the network. */
export function useMswServer() {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export const GW = 'https://gw.test';
export const API_KEY = 'pk_live_4f9c2e7a1b8d3c6e5f0a9b2c7d4e1f8a';

export function envelope(code: string, group: string, description: string, params?: object) {
  return { isSuccess: false, errors: { code, group, description, ...(params ? { params } : {}) } };
}

export function sendOk(wamid = 'wamid.HBgM0001', to = '998901234567') {
  return {
    isSuccess: true,
    data: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: wamid }] },
  };
}
