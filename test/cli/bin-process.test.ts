/**
 * The bin in its own process, as a user runs it: Ctrl-C and SIGTERM end every command promptly, whatever it waits
 * on (a webhook, a sandbox or a Redis that accepts and never answers), and a closed stdout ends it quietly. Every
 * wait is on an event (the server saw the request, the child exited), never on a timer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { startSandbox } from '../../src/testing/index.js';
import { cliIo } from '../helpers/cli-io.js';
import { startServer } from '../helpers/http-server.js';

const bin = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Run {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  /** The exit code (or the signal that killed it), once it exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', bin, ...args], {
    env: { ...process.env, WEBHOOK_SECRET: 'bin-test-secret-0123456789', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Run = {
    child,
    stdout: '',
    stderr: '',
    exited: once(child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
    })),
  };
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out.stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (out.stderr += t));
  // A child left behind by a failed assertion is killed, never kept running.
  cleanup.push(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  return out;
}

/** A TCP server that accepts, reads and never writes (a stuck Redis); `connected` resolves on its first bytes. */
async function silentServer(): Promise<{ url: string; connected: Promise<void> }> {
  const sockets: Socket[] = [];
  let connected!: () => void;
  const first = new Promise<void>((r) => (connected = r));
  const server: Server = createServer((s) => {
    sockets.push(s);
    s.once('data', () => connected());
    s.resume();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanup.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  const { port } = server.address() as { port: number };
  return { url: `redis://127.0.0.1:${port}`, connected: first };
}

/** An HTTP server that reads each request and never answers; `requested` resolves on the first one. */
async function hangingWebhook() {
  let requested!: () => void;
  const first = new Promise<void>((r) => (requested = r));
  const closed: Promise<void>[] = [];
  const server = await startServer((req) => {
    closed.push(once(req.socket, 'close').then(() => undefined));
    requested();
  });
  cleanup.push(() => server.close());
  return { url: `${server.url}/hook`, requested: first, closed };
}

describe('Ctrl-C and SIGTERM end every command', () => {
  it('trigger, waiting on a webhook that never answers: exit 130 on SIGINT', async () => {
    const hook = await hangingWebhook();
    const cli = run(['trigger', 'message.text', '--url', hook.url]);
    await hook.requested;
    cli.child.kill('SIGINT');
    expect(await cli.exited).toEqual({ code: 130, signal: null });
    expect(cli.stderr).toContain('wa-gateway trigger: interrupted (SIGINT)');
    // Stopped during the first attempt: no retry was made.
    expect(cli.stdout).not.toContain('attempt 2');
  });

  it('say, through a sandbox whose webhook never answers: exit 143 on SIGTERM', async () => {
    const hook = await hangingWebhook();
    const sandbox = await startSandbox({ webhookUrl: hook.url });
    cleanup.push(() => sandbox.close());
    const cli = run(['say', 'hi', '--sandbox', sandbox.url]);
    await hook.requested;
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toEqual({ code: 143, signal: null });
    expect(cli.stderr).toContain('wa-gateway say: interrupted (SIGTERM)');
  });

  it.each([
    ['status', 'SIGINT', 130],
    ['report', 'SIGTERM', 143],
  ] as const)(
    'campaign %s, on a Redis that accepts and never answers: %s ends it (exit %i)',
    async (action, signal, code) => {
      const redis = await silentServer();
      const cli = run(['campaign', action, 'spring', '--redis-url', redis.url]);
      await redis.connected;
      cli.child.kill(signal);
      expect(await cli.exited).toEqual({ code, signal: null });
      expect(cli.stderr).toContain(`wa-gateway campaign: interrupted (${signal})`);
    },
  );

  it('sandbox --campaigns, reading a Redis that never answers: SIGINT ends it (exit 130)', async () => {
    const redis = await silentServer();
    const cli = run(['sandbox', '--port', '0', '--campaigns', redis.url]);
    await redis.connected;
    cli.child.kill('SIGINT');
    expect(await cli.exited).toEqual({ code: 130, signal: null });
  });
});

describe('a Redis that accepts and never answers', () => {
  it('campaign status, report and list fail after --timeout with exit 1 and what to check', async () => {
    const redis = await silentServer();
    const cli = run(['campaign', 'status', 'spring', '--redis-url', redis.url, '--timeout', '0.5']);
    expect(await cli.exited).toEqual({ code: 1, signal: null });
    expect(cli.stderr).toContain(`the Redis at ${redis.url} did not answer within 0.5 s`);
    expect(cli.stderr).toContain('--timeout <seconds>');
    for (const args of [['report', 'spring'], ['list']]) {
      const t = cliIo({ REDIS_URL: redis.url });
      expect(await runCli(['campaign', ...args, '--timeout', '0.2'], t.io)).toBe(1);
      expect(t.out.stderr).toContain(`the Redis at ${redis.url} did not answer within 0.2 s`);
    }
  });

  it('--timeout must be a number of seconds above 0', async () => {
    const t = cliIo({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await runCli(['campaign', 'status', 'x', '--timeout', 'soon'], t.io)).toBe(2);
    expect(t.out.stderr).toContain("--timeout is a number of seconds above 0; got 'soon'.");
  });
});

describe('the interruption reaches the work in flight', () => {
  it('trigger aborts its request: the webhook sees the connection closed, and runCli answers 130', async () => {
    const hook = await hangingWebhook();
    const t = cliIo();
    const code = runCli(['trigger', 'message.text', '--url', hook.url], t.io);
    await hook.requested;
    t.stop('SIGINT');
    expect(await code).toBe(130);
    // The request was aborted, not left to the acknowledgement timeout: its connection closes.
    await hook.closed[0];
    expect(hook.closed).toHaveLength(1);
  });
});

describe('a closed stdout (| head -1)', () => {
  it('ends a command quietly, exit 0, with no stack trace', async () => {
    const receiver = await startServer((_req, res) => void res.writeHead(200).end());
    cleanup.push(() => receiver.close());
    for (const args of [['--help'], ['trigger', 'message.text', '--url', `${receiver.url}/hook`]]) {
      const cli = run(args);
      // The reader is gone before the first line: every write the command makes meets EPIPE.
      cli.child.stdout!.destroy();
      expect(await cli.exited).toEqual({ code: 0, signal: null });
      expect(cli.stderr).not.toMatch(/EPIPE|Unhandled/);
    }
  });

  it('the sandbox keeps serving when its stdout is gone, and Ctrl-C still stops it (exit 0)', async () => {
    const cli = run(['sandbox', '--port', '0', '--no-inbox']);
    const url = await new Promise<string>((resolve) => {
      cli.child.stdout!.on('data', () => {
        const found = /listening at (\S+)/.exec(cli.stdout);
        if (found) resolve(found[1]!);
      });
    });
    cli.child.stdout!.destroy();
    const send = () =>
      fetch(`${url}/v1/wa/message`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
        body: JSON.stringify({
          messaging_product: 'whatsapp',
          to: '998901234567',
          type: 'text',
          text: { body: 'hi' },
        }),
      });
    // Each accepted send is a line on the closed stdout; the sandbox answers the next one all the same.
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toEqual({ code: 0, signal: null });
    expect(cli.stderr).not.toMatch(/EPIPE|Unhandled/);
  });
});
