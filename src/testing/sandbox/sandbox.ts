import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requireSecret } from '../../core/client-options.js';
import { ConfigurationError } from '../../core/errors.js';
import { checkDeliverySchedule, requireWebhookUrl } from '../deliver.js';
import { checkSimulatorOptions } from '../gateway-simulator.js';
import { PlatformSimulator } from '../platform/simulator.js';
import { shownUrl } from '../shown-url.js';
import { type Inbox, startInbox } from './inbox/server.js';
import { PLATFORM_PATH, type PlatformMount, STREAM_PATH } from './platform-mount.js';
import { BodyTooLarge, readBody, route, SANDBOX_MAX_BODY_BYTES, send } from './routes.js';
import { SandboxRuntime } from './runtime.js';
import type { Sandbox, SandboxOptions } from './types.js';

/**
 * A local gateway on a real socket: the send and media endpoints with the gateway's order of checks and
 * error codes, and webhook delivery of sent → delivered (billable, deducting the fee) → read status events to
 * your endpoint with the gateway's delivery rules (attempts at once, +1 s, +2 s on connection errors and
 * 5xx; a 4xx is final). `is_fake` sends produce no status events, as on the real gateway.
 *
 * @example
 * const sandbox = await startSandbox({ webhookUrl: 'http://127.0.0.1:3000/webhooks', webhookSecret: secret });
 * const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
 * await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
 * await sandbox.idle(); // sent, delivered and read have reached your webhook
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  checkSandboxOptions(options);
  const runtime = new SandboxRuntime(options);
  const { templates, simulator, faults, retryDelaysMs } = runtime;
  let inbox: Inbox | undefined;
  let platform: PlatformMount | undefined;
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => route(runtime, inbox, req, res, body, platform))
      .catch((error: unknown) => {
        if (res.headersSent) return;
        if (error instanceof BodyTooLarge)
          send(res, 413, { error: `the request body is larger than ${SANDBOX_MAX_BODY_BYTES} bytes` });
        else res.writeHead(500).end();
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const served =
    options.platform === false
      ? undefined
      : {
          platformUrl: `${url}${PLATFORM_PATH}`,
          streamUrl: `${url}${STREAM_PATH}`,
          simulator: new PlatformSimulator({
            ...options.platform,
            platformUrl: `${url}${PLATFORM_PATH}`,
            streamUrl: `${url}${STREAM_PATH}`,
          }),
        };
  if (served) platform = { simulator: served.simulator, base: url };

  const sandbox: Sandbox = {
    url,
    templates,
    faults,
    retryDelaysMs,
    observe: (listener) => runtime.observe(listener),
    submitTemplate(appId, body) {
      const answer = templates.submit(appId, body);
      runtime.createTemplate(answer);
      return answer;
    },
    setTemplateStatus: (sourceId, status, reason) =>
      runtime.setTemplateStatus(sourceId, status, reason ?? null),
    simulator,
    ...(served ? { platform: served } : {}),
    deliveries: runtime.deliveries,
    undelivered: runtime.unconfigured,
    injectMessage: (message) => runtime.injectMessage(message),
    deliver: (envelope, label) => runtime.track(runtime.deliver(envelope, label)),
    holdStatuses: () => runtime.holdStatuses(),
    idle: () => runtime.idle(),
    async close() {
      await runtime.stop();
      inbox?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  if (options.inbox) {
    inbox = startInbox(sandbox, {
      host,
      port,
      // The page shows it: without a query (a receiver may take a token there), as the terminal does.
      ...(options.webhookUrl ? { webhookUrl: shownUrl(options.webhookUrl) } : {}),
      ...(options.campaigns ? { campaigns: options.campaigns } : {}),
    });
    sandbox.inboxUrl = `${url}/`;
  }
  return sandbox;
}

/**
 * The options a sandbox could not work with, refused before it listens (`ConfigurationError` naming the option): a
 * port outside 0-65535, a webhook URL deliveries could never reach, a secret no header can carry, no API key, a
 * delivery schedule or rate that is not a number.
 */
function checkSandboxOptions(options: SandboxOptions): void {
  checkSimulatorOptions(options, 'startSandbox');
  const { port } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    throw new ConfigurationError(
      `startSandbox: \`port\` must be a whole number from 0 to 65535 (0 picks a free one); got ${String(port)}.`,
    );
  }
  if (options.webhookUrl !== undefined) requireWebhookUrl(options.webhookUrl, 'startSandbox: `webhookUrl`');
  if (options.webhookSecret !== undefined) {
    requireSecret(
      options.webhookSecret,
      'startSandbox: `webhookSecret`',
      'the secret sent as Authorization: Bearer',
    );
  }
  checkDeliverySchedule(options, 'startSandbox');
}
