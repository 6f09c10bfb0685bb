/**
 * Runs docs blocks in a child process (see blocks.ts for the conventions):
 * `node --import tsx run-block.ts <block.ts>[::<POST path>]...`, with the generated tsconfig so 'wa-gateway-sdk'
 * is src/.
 * `GATEWAY_BASE_URL` is a sandbox started here; the example hosts of the docs answer through the SDK's own msw
 * handlers; everything else passes through. A block passes when it ran to its end (and the delivery, if asked, got 200).
 */

import { pathToFileURL } from 'node:url';
import { setupServer } from 'msw/node';
import {
  createGatewayHandlers,
  createPlatformHandlers,
  createPublicApiHandlers,
  messageEnvelope,
  startSandbox,
  textMessage,
} from '../../src/testing/index.js';

// Arguments: `<block.ts>` or `<block.ts>::<POST path>`, one per block; all run in this one process, one after
// the other (a process per block costs seconds each on a busy machine). Prints one JSON line of results.
const jobs = process.argv.slice(2).map((arg) => {
  const [file, deliverPath] = arg.split('::');
  return { file: file!, deliverPath };
});
const env = process.env;

const gateway = createGatewayHandlers({
  baseUrl: 'https://gw.example.com',
  apiKeys: [env['GATEWAY_API_KEY'] ?? ''],
});
const publicApi = createPublicApiHandlers({
  baseUrl: 'https://api.example.com/api/v1',
  secretKeys: [env['PUBLIC_API_SECRET_KEY'] ?? ''],
});
const platform = createPlatformHandlers({
  platformUrl: 'https://platform.example.com',
  streamUrl: 'https://stream.example.com',
  users: [{ username: env['PLATFORM_USERNAME'] ?? '', password: env['PLATFORM_PASSWORD'] ?? '' }],
  // The conversation the docs' runnable platform sends go to (docs/platform.md).
  conversationUuids: ['3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f'],
});
const server = setupServer(...gateway.handlers, ...publicApi.handlers, ...platform.handlers);
server.listen({ onUnhandledRequest: 'bypass' });
// Here, not in the test process: that one is busy typechecking while the blocks run.
const sandbox = await startSandbox({ apiKeys: [env['GATEWAY_API_KEY'] ?? ''] });
env['GATEWAY_BASE_URL'] = sandbox.url;

async function runOne(file: string, deliverPath: string | undefined): Promise<void> {
  const mod = (await import(pathToFileURL(file).href)) as { default?: { fetch?: unknown } };
  if (!deliverPath) return;
  const app = mod.default;
  if (typeof app?.fetch !== 'function') {
    throw new Error(`the block has no default export with fetch() to deliver ${deliverPath} to`);
  }
  const fetchApp = app.fetch as (request: Request) => Response | Promise<Response>;
  const res = await fetchApp.call(
    app,
    new Request(`http://localhost${deliverPath}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${env['WEBHOOK_SECRET']}`, 'content-type': 'application/json' },
      body: JSON.stringify(messageEnvelope(textMessage())),
    }),
  );
  if (res.status !== 200)
    throw new Error(`a webhook delivery to ${deliverPath} was answered ${res.status}, not 200`);
}

const results: Record<string, { ok: boolean; error?: string }> = {};
for (const { file, deliverPath } of jobs) {
  try {
    await runOne(file, deliverPath);
    results[file] = { ok: true };
  } catch (error) {
    results[file] = {
      ok: false,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
}
process.stdout.write(`\nDOCS-CHECK-RESULTS ${JSON.stringify(results)}\n`);
server.close();
// A block may leave a server or timer behind; it ran to its end, which is what was asked.
process.exit(0);
