import { execFile } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createRouter, MemoryWindowStore } from '../../src/conversations/index.js';
import { GatewayClient, PlatformClient } from '../../src/index.js';
import { startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler, MESSAGE_TYPES } from '../../src/webhooks/index.js';
import { cliIo } from '../helpers/cli-io.js';
import { startServer } from '../helpers/http-server.js';

const SECRET = 'cli-test-secret-0123456789abcdefghijkl';

const io = cliIo;

const valid = {
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Order {{1}} shipped.', examples: ['#1'] },
};
async function file(content: string): Promise<string> {
  const path = join(tmpdir(), `wa-cli-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, content);
  return path;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});
async function receiver(status: number) {
  const seen: { auth: string | undefined; body: string }[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

/** A receiver built on the SDK's own webhook handler (it dedupes and says so); its URL. */
async function sdkReceiver(onEvent: Parameters<typeof createNodeWebhookHandler>[0]['onEvent']) {
  const handler = createNodeWebhookHandler({ secret: SECRET, logger: false, onEvent });
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('wa-gateway validate-template', () => {
  it('exit 0 and "valid" for a valid template', async () => {
    const t = io();
    expect(await runCli(['validate-template', await file(JSON.stringify(valid))], t.io)).toBe(0);
    expect(t.out.stdout).toMatch(/: valid\n$/);
  });

  it('exit 1 with every issue: code, field, message and rule', async () => {
    const t = io();
    const path = await file(
      JSON.stringify({ ...valid, name: 'Bad', body: { text: '{{1}} x {{2}}', examples: ['a'] } }),
    );
    expect(await runCli(['validate-template', path], t.io)).toBe(1);
    expect(t.out.stdout).toMatch(/WA_TPL_034\s+name\s+.*\[name\.pattern\]/);
    expect(t.out.stdout).toMatch(/WA_TPL_011\s+body\.text/);
    expect(t.out.stdout).toMatch(/WA_TPL_014\s+body\.examples/);
  });

  it('--json prints the result for machines', async () => {
    const t = io();
    expect(await runCli(['validate-template', await file('{"name":1}'), '--json'], t.io)).toBe(1);
    const [result] = JSON.parse(t.out.stdout) as { valid: boolean; issues: { rule: string }[] }[];
    expect(result?.valid).toBe(false);
    expect(result?.issues.length).toBeGreaterThan(1);
  });

  it('a missing file or a wrong flag is a usage error (exit 2) that names it', async () => {
    const a = io();
    expect(await runCli(['validate-template', '/nope/t.json'], a.io)).toBe(2);
    expect(a.out.stderr).toContain("cannot read <file.json> '/nope/t.json' (ENOENT)");
    const b = io();
    expect(await runCli(['validate-template', 'x.json', '--jsno'], b.io)).toBe(2);
    expect(b.out.stderr).toContain("'--jsno'");
  });

  it('a file that is not JSON is a failure (exit 1), reported in --json output too', async () => {
    const t = io();
    expect(await runCli(['validate-template', await file('{nope')], t.io)).toBe(1);
    expect(t.out.stdout).toContain('not valid JSON');
    const j = io();
    const bad = await file('{nope');
    expect(await runCli(['validate-template', bad, '--json'], j.io)).toBe(1);
    expect(JSON.parse(j.out.stdout)).toEqual([
      { file: bad, valid: false, issues: [expect.objectContaining({ rule: 'json.parse', code: null })] },
    ]);
  });

  it('a byte order mark before the JSON (as Windows editors write it) is skipped, here and in templates check', async () => {
    const bom = await file(`\uFEFF${JSON.stringify(valid)}`);
    const t = io();
    expect(await runCli(['validate-template', bom], t.io)).toBe(0);
    expect(t.out.stdout).toBe(`${bom}: valid\n`);
    const c = io();
    expect(await runCli(['templates', 'check', bom], c.io)).toBe(0);
    expect(c.out.stdout).toBe(`${bom}: valid\n`);
  });

  it('templates check reports a file it cannot read as its own row (file.read) and checks the others', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wa-cli-sources-'));
    try {
      await writeFile(join(dir, 'a.json'), JSON.stringify(valid));
      await symlink(join(dir, 'nowhere.json'), join(dir, 'b.json'));
      const t = io();
      expect(await runCli(['templates', 'check', dir, '--json'], t.io)).toBe(1);
      expect(JSON.parse(t.out.stdout)).toEqual([
        { file: join(dir, 'a.json'), valid: true, issues: [] },
        {
          file: join(dir, 'b.json'),
          valid: false,
          issues: [
            expect.objectContaining({ rule: 'file.read', message: 'The file could not be read (ENOENT).' }),
          ],
        },
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('checks several files in one run; exit 1 when any is invalid', async () => {
    const t = io();
    const good = await file(JSON.stringify(valid));
    const bad = await file(JSON.stringify({ ...valid, name: 'Bad' }));
    expect(await runCli(['validate-template', good, bad], t.io)).toBe(1);
    expect(t.out.stdout).toContain(`${good}: valid`);
    expect(t.out.stdout).toContain(`${bad}: 1 issue`);
    expect(await runCli(['validate-template', good, good], io().io)).toBe(0);
  });
});

describe('wa-gateway trigger', () => {
  it('posts the fixture with the Bearer secret and exits 0 when delivered', async () => {
    const hook = await receiver(200);
    const t = io({ WEBHOOK_SECRET: 'env-secret-0123456789' });
    expect(
      await runCli(['trigger', 'status.delivered', '--url', hook.url, '--wamid', 'wamid.X1'], t.io),
    ).toBe(0);
    expect(hook.seen[0]?.auth).toBe('Bearer env-secret-0123456789');
    expect(JSON.parse(hook.seen[0]!.body).entry[0].changes[0].value.statuses[0]).toMatchObject({
      id: 'wamid.X1',
      status: 'delivered',
    });
    expect(t.out.stdout).toMatch(/attempt 1: HTTP 200 in \d+ ms → delivered/);
    const json = io({ WEBHOOK_SECRET: 'env-secret-0123456789' });
    expect(
      await runCli(['trigger', 'status.read', '--url', hook.url, '--wamid', 'wamid.X2', '--json'], json.io),
    ).toBe(0);
    expect(JSON.parse(json.out.stdout)).toEqual([
      expect.objectContaining({ label: 'status.read', wamid: 'wamid.X2', outcome: 'delivered' }),
    ]);
  });

  it('a 4xx answer is reported as lost (exit 1), with the advice to answer 5xx', async () => {
    const hook = await receiver(400);
    const t = io({ WEBHOOK_SECRET: 's' });
    expect(await runCli(['trigger', 'message.text', '--url', hook.url], t.io)).toBe(1);
    expect(hook.seen).toHaveLength(1);
    expect(t.out.stdout).toContain('would be lost');
  });

  it('a 401 is advice about the secret, by whether one was sent; a 404 about the URL; neither about 5xx', async () => {
    const url = await sdkReceiver(() => undefined);
    const none = io();
    expect(await runCli(['trigger', 'message.text', '--url', url], none.io)).toBe(1);
    expect(none.out.stdout).toContain('HTTP 401');
    expect(none.out.stdout).toContain(
      'The receiver wants the webhook secret: set $WEBHOOK_SECRET (or pass --secret-file <path>)',
    );
    expect(none.out.stdout).not.toContain('5xx');
    const wrong = io({ WEBHOOK_SECRET: 'another-secret-0123456789abcdefghijkl' });
    expect(await runCli(['trigger', 'message.text', '--url', url], wrong.io)).toBe(1);
    expect(wrong.out.stdout).toContain(
      "The receiver refused the secret from $WEBHOOK_SECRET: it must be the one the receiver's handler checks",
    );
    expect(wrong.out.stdout).not.toContain('another-secret');
    expect(wrong.out.stdout).not.toContain('5xx');
    const flag = io();
    const nope = await file('nope-nope\n');
    expect(await runCli(['trigger', 'message.text', '--url', url, '--secret-file', nope], flag.io)).toBe(1);
    expect(flag.out.stdout).toContain('refused the secret from --secret-file');
    const missing = await receiver(404);
    const t = io({ WEBHOOK_SECRET: SECRET });
    expect(await runCli(['trigger', 'message.text', '--url', missing.url], t.io)).toBe(1);
    expect(t.out.stdout).toContain('The receiver has no POST route at --url: check its path (HTTP 404)');
  });

  it('a secret from $WEBHOOK_SECRET or --secret-file: a line ending is dropped, other whitespace is a usage error naming it', async () => {
    const hook = await receiver(200);
    const t = io({ WEBHOOK_SECRET: `${SECRET}\r` });
    expect(await runCli(['trigger', 'message.text', '--url', hook.url], t.io)).toBe(0);
    expect(hook.seen[0]?.auth).toBe(`Bearer ${SECRET}`);
    const spaced = await file(`\t${SECRET}\r\n`);
    for (const [args, env, from] of [
      [[], { WEBHOOK_SECRET: `${SECRET}\t` }, '$WEBHOOK_SECRET'],
      [['--secret-file', spaced], {}, `--secret-file '${spaced}'`],
    ] as const) {
      const bad = io(env);
      expect(await runCli(['trigger', 'message.text', '--url', hook.url, ...args], bad.io)).toBe(2);
      expect(bad.out.stderr).toContain(`${from} must be a string of visible ASCII characters (no spaces)`);
      expect(bad.out.stderr).not.toMatch(/deliverWebhook|`secret`/);
      expect(bad.out.stderr).not.toContain(SECRET);
    }
    expect(hook.seen).toHaveLength(1);
  });

  it('a redirect is not followed: lost (exit 1), saying where it pointed without its query, and what to fix', async () => {
    const elsewhere = await receiver(200);
    const redirecting = await startServer((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.url}?key=LOCATIONSECRET` }).end();
    });
    try {
      const t = io({ WEBHOOK_SECRET: SECRET });
      expect(await runCli(['trigger', 'message.text', '--url', `${redirecting.url}/hook`], t.io)).toBe(1);
      expect(t.out.stdout).toMatch(
        new RegExp(
          `attempt 1: HTTP 307, a redirect to ${elsewhere.url} \\(query hidden\\) \\(not followed\\) in \\d+ ms → lost`,
        ),
      );
      expect(t.out.stdout).toContain('The gateway follows no redirect: this event would be lost');
      expect(t.out.stdout).toContain(
        `Pass as --url the address that answers 200: the receiver pointed to ${elsewhere.url}`,
      );
      expect(t.out.stdout).not.toContain('LOCATIONSECRET');
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  it('every documented message type has a trigger, parsed by the SDK as that type', async () => {
    const seen: string[] = [];
    const url = await sdkReceiver((e) => void (e.kind === 'message' && seen.push(e.message.type)));
    const events = MESSAGE_TYPES.flatMap((type) =>
      type === 'interactive' ? ['button_reply', 'list_reply'] : [type],
    );
    for (const event of events) {
      expect(
        await runCli(['trigger', `message.${event}`, '--url', url], io({ WEBHOOK_SECRET: SECRET }).io),
      ).toBe(0);
    }
    expect(seen).toEqual(MESSAGE_TYPES.flatMap((type) => (type === 'interactive' ? [type, type] : [type])));
  });

  it('each run carries a fresh message id, so an SDK receiver runs onEvent every time', async () => {
    const seen: string[] = [];
    const url = await sdkReceiver((e) => void (e.kind === 'message' && seen.push(e.message.id)));
    for (let i = 0; i < 2; i++) {
      const t = io({ WEBHOOK_SECRET: SECRET });
      expect(await runCli(['trigger', 'message.text', '--url', url], t.io)).toBe(0);
      expect(t.out.stdout).not.toContain('already processed');
    }
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[0]).toMatch(/^wamid\./);
  });

  it('--wamid repeats an id; the SDK receiver says it skipped the duplicate, and trigger prints it', async () => {
    let runs = 0;
    const url = await sdkReceiver(() => void runs++);
    const args = ['trigger', 'status.read', '--url', url, '--wamid', 'wamid.SAME1'];
    const first = io({ WEBHOOK_SECRET: SECRET });
    expect(await runCli(args, first.io)).toBe(0);
    expect(first.out.stdout).not.toContain('already processed');
    const second = io({ WEBHOOK_SECRET: SECRET });
    expect(await runCli(args, second.io)).toBe(0);
    expect(second.out.stdout).toContain('the receiver says it had already processed this event');
    expect(runs).toBe(1);
    const json = io({ WEBHOOK_SECRET: SECRET });
    expect(await runCli([...args, '--json'], json.io)).toBe(0);
    expect(JSON.parse(json.out.stdout)).toEqual([expect.objectContaining({ status: 200, duplicates: 1 })]);
  });

  // An id pasted from a log or a ticket may hold an escape sequence: it retitled and cleared the terminal.
  it("--wamid's control characters are shown escaped in the advice line, never sent to the terminal", async () => {
    const hook = await receiver(200);
    const t = io({ WEBHOOK_SECRET: SECRET });
    const wamid = 'wamid.\u001b]0;pwned\u0007\u001b[2J';
    expect(await runCli(['trigger', 'status.read', '--url', hook.url, '--wamid', wamid], t.io)).toBe(0);
    expect(t.out.stdout).toContain('delivery of wamid.\\u001b]0;pwned\\u0007\\u001b[2J');
    expect(t.out.stdout).not.toContain('\u001b');
    expect(t.out.stdout).not.toContain('\u0007');
  });

  it('--wamid with a receiver that does not say: explains that a 200 cannot tell', async () => {
    const hook = await receiver(200);
    const t = io({ WEBHOOK_SECRET: SECRET });
    const args = ['trigger', 'message.text', '--url', hook.url, '--wamid', 'wamid.A'];
    expect(await runCli(args, t.io)).toBe(0);
    expect(t.out.stdout).toContain('A 200 does not say whether the receiver processed the event');
    expect(t.out.stdout).toContain(
      "this answer has none, so a receiver on the SDK's handler processed it (onEvent ran)",
    );
    expect(t.out.stdout).not.toContain('this one did not');
    expect(JSON.parse(hook.seen[0]!.body).entry[0].changes[0].value.messages[0].id).toBe('wamid.A');
  });

  it('template events get a fresh entry time, so two runs are two events; --wamid is refused for them', async () => {
    let runs = 0;
    const url = await sdkReceiver(() => void runs++);
    const args = ['trigger', 'template_status.approved', '--url', url];
    expect(await runCli(args, io({ WEBHOOK_SECRET: SECRET }).io)).toBe(0);
    // Entry times are in seconds: the second run must land in a later second to be a new event.
    const first = Math.floor(Date.now() / 1000);
    await expect.poll(() => Math.floor(Date.now() / 1000), { timeout: 3000 }).toBeGreaterThan(first);
    expect(await runCli(args, io({ WEBHOOK_SECRET: SECRET }).io)).toBe(0);
    expect(runs).toBe(2);
    const t = io();
    expect(await runCli([...args, '--wamid', 'wamid.X'], t.io)).toBe(2);
    expect(t.out.stderr).toContain('--wamid applies to message.* and status.* events');
  });

  it('a message carries now, so a bot guarding the 24-hour window answers it; --timestamp sets another time', async () => {
    const sandbox = await startSandbox();
    try {
      const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, maxRetries: 0 });
      const router = createRouter({ gateway, window: new MemoryWindowStore(), logger: false });
      router.otherwise((ctx) => ctx.reply('Hello!'));
      const url = await sdkReceiver(router.handle);
      const send = (...extra: string[]) =>
        runCli(['trigger', 'message.text', '--url', url, ...extra], io({ WEBHOOK_SECRET: SECRET }).io);
      // 25 hours ago (the customer's first message): the window is closed, the reply refused, the delivery
      // still answered 200.
      const old = String(Math.floor(Date.now() / 1000) - 25 * 3600);
      expect(await send('--timestamp', old)).toBe(0);
      expect(await send('--timestamp', new Date(Date.now() - 25 * 3600_000).toISOString())).toBe(0);
      expect(sandbox.simulator.sent).toEqual([]);
      expect(await send()).toBe(0);
      expect(sandbox.simulator.sent.map((m) => m.type)).toEqual(['text']);
      expect(await send('--timestamp', new Date().toISOString())).toBe(0);
      expect(sandbox.simulator.sent).toHaveLength(2);
    } finally {
      await sandbox.close();
    }
  });

  it('--timestamp takes Unix seconds or an ISO date-time, on message and status events only', async () => {
    const hook = await receiver(200);
    const t = io({ WEBHOOK_SECRET: SECRET });
    const args = ['trigger', 'status.read', '--url', hook.url];
    expect(await runCli([...args, '--timestamp', '2024-05-01T09:00:00Z'], t.io)).toBe(0);
    expect(JSON.parse(hook.seen[0]!.body).entry[0].changes[0].value.statuses[0].timestamp).toBe('1714554000');
    const bad = io();
    expect(await runCli([...args, '--timestamp', 'yesterday'], bad.io)).toBe(2);
    expect(bad.out.stderr).toContain('--timestamp takes Unix seconds (1714554000) or an ISO date-time');
    const template = io();
    expect(
      await runCli(
        ['trigger', 'template_status.approved', '--url', hook.url, '--timestamp', '1714554000'],
        template.io,
      ),
    ).toBe(2);
    expect(template.out.stderr).toContain('--timestamp applies to message.* and status.* events');
  });

  it('warns on stderr when no secret is given', async () => {
    const hook = await receiver(200);
    const t = io();
    expect(await runCli(['trigger', 'message.text', '--url', hook.url], t.io)).toBe(0);
    expect(t.out.stderr).toContain('warning: no $WEBHOOK_SECRET and no --secret-file');
    expect(hook.seen[0]?.auth).toBeUndefined();
    const s = io({ WEBHOOK_SECRET: SECRET });
    expect(await runCli(['trigger', 'message.text', '--url', hook.url], s.io)).toBe(0);
    expect(s.out.stderr).toBe('');
  });

  // The CLI's rule (docs/cli.md): secrets from the environment or a file, never in argv (ps, shell history).
  it('--secret is refused (exit 2, nothing posted), saying why and what to use; the secret is not repeated', async () => {
    const hook = await receiver(200);
    const t = io();
    expect(await runCli(['trigger', 'message.text', '--url', hook.url, '--secret', SECRET], t.io)).toBe(2);
    expect(hook.seen).toHaveLength(0);
    expect(t.out.stderr).toContain('--secret is refused');
    expect(t.out.stderr).toContain('(ps)');
    expect(t.out.stderr).toContain('Set $WEBHOOK_SECRET, or pass --secret-file <path>');
    expect(t.out.stderr).not.toContain(SECRET);
  });

  it('--secret-file: the secret from a file, its trailing line break dropped, over $WEBHOOK_SECRET', async () => {
    const hook = await receiver(200);
    const path = await file(`${SECRET}\n`);
    const t = io({ WEBHOOK_SECRET: 'env-secret-0123456789' });
    expect(await runCli(['trigger', 'message.text', '--url', hook.url, '--secret-file', path], t.io)).toBe(0);
    expect(hook.seen[0]?.auth).toBe(`Bearer ${SECRET}`);
    expect(t.out.stderr).toBe('');
    const missing = io();
    const nowhere = join(tmpdir(), 'wa-cli-no-such-secret');
    expect(
      await runCli(['trigger', 'message.text', '--url', hook.url, '--secret-file', nowhere], missing.io),
    ).toBe(2);
    expect(missing.out.stderr).toContain(`--secret-file: cannot read '${nowhere}' (ENOENT)`);
    const empty = io();
    const blank = await file('\n');
    expect(
      await runCli(['trigger', 'message.text', '--url', hook.url, '--secret-file', blank], empty.io),
    ).toBe(2);
    expect(empty.out.stderr).toContain('is empty');
    expect(hook.seen).toHaveLength(1);
  });

  it('usage errors name the problem', async () => {
    const a = io();
    expect(await runCli(['trigger', 'status.nope', '--url', 'http://x'], a.io)).toBe(2);
    expect(a.out.stderr).toContain("unknown <event> 'status.nope'");
    const b = io();
    expect(await runCli(['trigger', 'status.read'], b.io)).toBe(2);
    expect(b.out.stderr).toContain('--url is required');
  });
});

describe('wa-gateway sandbox', () => {
  it('serves sends until interrupted', async () => {
    const t = io();
    const done = runCli(['sandbox', '--port', '0'], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
    const r = await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: url }).messages.send({
      to: '998901234567',
      type: 'text',
      text: { body: 'hi' },
    });
    expect(r.messageId).toMatch(/^wamid\./);
    const inbox = /web inbox: (\S+)/.exec(t.out.stdout)![1]!;
    expect(inbox).toBe(`${url}/`);
    expect((await fetch(inbox)).headers.get('content-security-policy')).toContain("default-src 'none'");
    // The platform line is a PlatformClient the reader can paste: its URLs and the default login work.
    const platform = /platformUrl: '(\S+)', streamUrl: '(\S+)', username: '(\S+)', password: '(\S+)'/.exec(
      t.out.stdout,
    )!;
    const login = await new PlatformClient({
      platformUrl: platform[1]!,
      streamUrl: platform[2]!,
      username: platform[3]!,
      password: platform[4]!,
    }).auth.login();
    expect(login.accountUuid).toEqual(expect.any(String));
    t.stop();
    expect(await done).toBe(0);
    expect(t.out.stdout).toContain('stopped after 1 sends');
  });

  it('logs accepted and refused sends in the terminal, never the API key', async () => {
    const t = io();
    const done = runCli(['sandbox', '--port', '0'], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
    const { messageId } = await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: url }).messages.send({
      to: '998901234567',
      type: 'text',
      text: { body: 'hi' },
    });
    const refused = await fetch(`${url}/v1/wa/message`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
      body: JSON.stringify({ to: '998901234567', type: 'text', text: { body: 'hi' } }),
    });
    expect(refused.status).toBe(502);
    await fetch(`${url}/v1/wa/message`, { method: 'POST', headers: { authorization: 'Bearer wrong-key' } });
    t.stop();
    expect(await done).toBe(0);
    expect(t.out.stdout).toContain(`send accepted: text to 998901234567 → ${messageId}`);
    expect(t.out.stdout).toMatch(/send refused: HTTP 502 GW_001 .*messaging_product/);
    expect(t.out.stdout).toMatch(/send refused: HTTP 401 AUTH_001/);
    expect(t.out.stdout).not.toContain('wrong-key');
  });

  it('takes its API key from $SANDBOX_API_KEY (or --api-key) and prints only the well-known default', async () => {
    const key = 'sk_live_REALKEY0123456789';
    for (const [args, env, from] of [
      [[], { SANDBOX_API_KEY: key }, '$SANDBOX_API_KEY'],
      [['--api-key', key], {}, '--api-key'],
    ] as const) {
      const t = io(env);
      const done = runCli(['sandbox', '--port', '0', ...args], t.io);
      await expect.poll(() => t.out.stdout).toContain('listening at');
      const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
      const send = (apiKey: string) =>
        new GatewayClient({ apiKey, baseUrl: url, maxRetries: 0 }).messages.send({
          to: '998901234567',
          type: 'text',
          text: { body: 'hi' },
        });
      await expect(send(key)).resolves.toMatchObject({ messageId: expect.any(String) });
      await expect(send('sk_test_sandbox')).rejects.toMatchObject({ code: 'AUTH_001' });
      t.stop();
      expect(await done).toBe(0);
      expect(t.out.stdout).toContain(
        `new GatewayClient({ apiKey: '<the key in ${from}>', baseUrl: '${url}' })`,
      );
      expect(t.out.stdout + t.out.stderr).not.toContain(key);
    }
    const d = io();
    const done = runCli(['sandbox', '--port', '0'], d.io);
    await expect.poll(() => d.out.stdout).toContain('listening at');
    d.stop();
    expect(await done).toBe(0);
    expect(d.out.stdout).toContain("new GatewayClient({ apiKey: 'sk_test_sandbox'");
  });

  it('prints the webhook URL without its query (a token there stays out of the terminal), as say does', async () => {
    const hook = await receiver(200);
    const url = `${hook.url}?token=QUERYSECRET`;
    const t = io({ WEBHOOK_SECRET: SECRET });
    const done = runCli(['sandbox', '--port', '0', '--webhook-url', url], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    const sandboxUrl = /listening at (\S+)/.exec(t.out.stdout)![1]!;
    const said = io();
    expect(await runCli(['say', 'hi', '--sandbox', sandboxUrl], said.io)).toBe(0);
    const json = io();
    expect(await runCli(['say', 'hi', '--sandbox', sandboxUrl, '--json'], json.io)).toBe(0);
    t.stop();
    expect(await done).toBe(0);
    expect(t.out.stdout).toContain(`delivering webhooks to ${hook.url} (query hidden)\n`);
    expect(said.out.stdout).toContain(`delivered to ${hook.url} (query hidden): attempt 1: HTTP 200`);
    expect(JSON.parse(json.out.stdout)).toMatchObject({ webhookUrl: `${hook.url} (query hidden)` });
    for (const out of [t.out, said.out, json.out])
      expect(out.stdout + out.stderr).not.toContain('QUERYSECRET');
    // The deliveries themselves went to the URL as given, query included.
    expect(hook.seen).toHaveLength(2);
  });

  it('warns when webhooks would go out without a secret', async () => {
    const t = io();
    const done = runCli(['sandbox', '--port', '0', '--webhook-url', 'http://127.0.0.1:9/hook'], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    t.stop();
    expect(await done).toBe(0);
    expect(t.out.stderr).toContain('warning: no $WEBHOOK_SECRET and no --webhook-secret-file');
    const s = io({ WEBHOOK_SECRET: SECRET });
    const quiet = runCli(['sandbox', '--port', '0', '--webhook-url', 'http://127.0.0.1:9/hook'], s.io);
    await expect.poll(() => s.out.stdout).toContain('listening at');
    s.stop();
    expect(await quiet).toBe(0);
    expect(s.out.stderr).toBe('');
  });

  it('--webhook-secret is refused (exit 2, nothing started); --webhook-secret-file is read', async () => {
    const t = io();
    expect(await runCli(['sandbox', '--port', '0', '--webhook-secret', SECRET], t.io)).toBe(2);
    expect(t.out.stdout).toBe('');
    expect(t.out.stderr).toContain('--webhook-secret is refused');
    expect(t.out.stderr).toContain('Set $WEBHOOK_SECRET, or pass --webhook-secret-file <path>');
    expect(t.out.stderr).not.toContain(SECRET);
    const hook = await receiver(200);
    const path = await file(SECRET);
    const s = io();
    const done = runCli(
      ['sandbox', '--port', '0', '--webhook-url', hook.url, '--webhook-secret-file', path],
      s.io,
    );
    await expect.poll(() => s.out.stdout).toContain('listening at');
    const url = /listening at (\S+)/.exec(s.out.stdout)![1]!;
    await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: url }).messages.send({
      to: '998901234567',
      type: 'text',
      text: { body: 'hi' },
    });
    await expect.poll(() => hook.seen.length, { timeout: 10_000 }).toBeGreaterThan(0);
    s.stop();
    expect(await done).toBe(0);
    expect(s.out.stderr).toBe('');
    expect(hook.seen[0]?.auth).toBe(`Bearer ${SECRET}`);
    expect(s.out.stdout).not.toContain(SECRET);
  });

  it("a secret ending in a CRLF .env's \\r is used without it; other whitespace is a usage error naming its source", async () => {
    const hook = await receiver(200);
    for (const ending of ['\r', '\r\n', '\n']) {
      const t = io({ WEBHOOK_SECRET: `${SECRET}${ending}` });
      const done = runCli(['sandbox', '--port', '0', '--no-inbox', '--webhook-url', hook.url], t.io);
      await expect.poll(() => t.out.stdout).toContain('listening at');
      const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
      await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: url }).messages.send({
        to: '998901234567',
        type: 'text',
        text: { body: 'hi' },
      });
      await expect.poll(() => hook.seen.length, { timeout: 10_000 }).toBeGreaterThan(0);
      t.stop();
      expect(await done).toBe(0);
      expect(hook.seen[0]?.auth).toBe(`Bearer ${SECRET}`);
      expect(t.out.stderr).toBe('');
      hook.seen.length = 0;
    }
    const spaced = await file(`${SECRET} \n`);
    for (const [args, env, from] of [
      [[], { WEBHOOK_SECRET: `${SECRET} ` }, '$WEBHOOK_SECRET'],
      [[], { WEBHOOK_SECRET: ` ${SECRET}\r` }, '$WEBHOOK_SECRET'],
      [[], { WEBHOOK_SECRET: `Bearer ${SECRET}` }, '$WEBHOOK_SECRET'],
      [['--webhook-secret-file', spaced], {}, `--webhook-secret-file '${spaced}'`],
    ] as const) {
      const t = io(env);
      expect(await runCli(['sandbox', '--port', '0', '--webhook-url', hook.url, ...args], t.io)).toBe(2);
      expect(t.out.stdout).toBe('');
      expect(t.out.stderr).toContain(`${from} must be a string of visible ASCII characters (no spaces)`);
      expect(t.out.stderr).not.toMatch(/startSandbox|webhookSecret|\.trim\(\)/);
      expect(t.out.stderr).not.toContain(SECRET);
    }
    expect(hook.seen).toEqual([]);
  });

  it('each webhook line names the message its status is about; a lost event gets the advice trigger gives, once', async () => {
    const missing = await receiver(404);
    const t = io({ WEBHOOK_SECRET: SECRET });
    const done = runCli(['sandbox', '--port', '0', '--no-inbox', '--webhook-url', missing.url], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: url });
    const ids: string[] = [];
    for (const to of ['998901234567', '998907654321'])
      ids.push((await gateway.messages.send({ to, type: 'text', text: { body: 'hi' } })).messageId);
    await expect.poll(() => missing.seen.length, { timeout: 10_000 }).toBe(6);
    await expect.poll(() => t.out.stdout.match(/→ lost/g)?.length).toBe(6);
    t.stop();
    expect(await done).toBe(0);
    for (const id of ids)
      for (const status of ['sent', 'delivered', 'read'])
        expect(t.out.stdout).toContain(`webhook status:${status} ${id} attempt 1: HTTP 404 → lost\n`);
    const advice =
      '  The gateway does not retry a 4xx: this event would be lost. The receiver has no POST route at ' +
      '--webhook-url: check its path (HTTP 404).\n';
    expect(t.out.stdout.split(advice)).toHaveLength(2);

    // A secret the receiver does not check: the advice names where the sandbox took it from.
    const hook = await sdkReceiver(() => undefined);
    const wrong = io({ WEBHOOK_SECRET: 'another-secret-0123456789abcdefghijkl' });
    const refused = runCli(['sandbox', '--port', '0', '--no-inbox', '--webhook-url', hook], wrong.io);
    await expect.poll(() => wrong.out.stdout).toContain('listening at');
    const sandboxUrl = /listening at (\S+)/.exec(wrong.out.stdout)![1]!;
    await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandboxUrl }).messages.send({
      to: '998901234567',
      type: 'text',
      text: { body: 'hi' },
    });
    await expect.poll(() => wrong.out.stdout.match(/→ lost/g)?.length, { timeout: 10_000 }).toBe(3);
    wrong.stop();
    expect(await refused).toBe(0);
    expect(wrong.out.stdout).toContain(
      "  The gateway does not retry a 4xx: this event would be lost. The receiver refused the secret from $WEBHOOK_SECRET: it must be the one the receiver's handler checks",
    );
    expect(wrong.out.stdout).not.toContain('another-secret');
  });

  it('serves no inbox with --no-inbox', async () => {
    const t = io();
    const done = runCli(['sandbox', '--port', '0', '--no-inbox'], t.io);
    await expect.poll(() => t.out.stdout).toContain('listening at');
    const url = /listening at (\S+)/.exec(t.out.stdout)![1]!;
    expect(t.out.stdout).not.toContain('web inbox');
    expect((await fetch(`${url}/`)).status).toBe(404);
    t.stop();
    expect(await done).toBe(0);
  });

  it('a port in use says so and suggests --port 0', async () => {
    server = createServer();
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const taken = (server.address() as AddressInfo).port;
    const t = io();
    expect(await runCli(['sandbox', '--port', String(taken)], t.io)).toBe(1);
    expect(t.out.stderr).toContain(`port ${taken} on 127.0.0.1 is already in use`);
    expect(t.out.stderr).toContain('pass --port 0 to take a free one');
  });

  it('rejects a bad --port', async () => {
    const t = io();
    expect(await runCli(['sandbox', '--port', 'abc'], t.io)).toBe(2);
    expect(t.out.stderr).toContain('--port');
  });
});

describe('wa-gateway say', () => {
  /** A sandbox delivering to a bot on the SDK's router, which answers through that sandbox. */
  async function botSandbox(routes: (router: ReturnType<typeof createRouter>) => void) {
    const sandboxUrl = { value: '' };
    const gateway = {
      messages: {
        send: (m: never) =>
          new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandboxUrl.value }).messages.send(m),
      },
    };
    const router = createRouter({ gateway, window: new MemoryWindowStore() });
    routes(router);
    const sandbox = await startSandbox({
      webhookUrl: await sdkReceiver(router.handle),
      webhookSecret: SECRET,
    });
    sandboxUrl.value = sandbox.url;
    return sandbox;
  }

  it("writes to the bot as a customer through the sandbox and prints the bot's replies; --button taps", async () => {
    const sandbox = await botSandbox((router) => {
      router.button('tue', (ctx) => ctx.reply(`Booked: ${ctx.choice}.`));
      router.otherwise(async (ctx) => {
        await ctx.reply(`Hi +${ctx.customer}, you said "${ctx.text}".`);
        await ctx.reply({
          type: 'interactive',
          interactive: {
            type: 'button',
            body: { text: 'Pick a day' },
            action: { buttons: [{ type: 'reply', reply: { id: 'tue', title: 'Tuesday' } }] },
          },
        });
      });
    });
    try {
      const t = io();
      const args = ['--from', '998901234567', '--sandbox', sandbox.url];
      expect(await runCli(['say', 'hello', 'there', ...args], t.io)).toBe(0);
      expect(t.out.stdout).toMatch(
        /^delivered to http:\/\/127\.0\.0\.1:\d+\/: attempt 1: HTTP 200 in \d+ ms → delivered$/m,
      );
      expect(t.out.stdout).toContain('← text: Hi +998901234567, you said "hello there".\n');
      expect(t.out.stdout).toContain('← buttons: Pick a day [Tuesday (tue)]\n');
      const tap = io();
      expect(await runCli(['say', '--button', 'tue', ...args], tap.io)).toBe(0);
      expect(tap.out.stdout).toContain('← text: Booked: tue.\n');
      const json = io();
      expect(await runCli(['say', 'again', ...args, '--json'], json.io)).toBe(0);
      expect(JSON.parse(json.out.stdout)).toMatchObject({
        ids: [expect.stringMatching(/^wamid\./)],
        attempts: [{ status: 200, outcome: 'delivered' }],
        replies: [{ status: 200, message: { to: '998901234567', type: 'text' } }, { status: 200 }],
      });
    } finally {
      await sandbox.close();
    }
  });

  it("prints the bot's replies and the sandbox's words with their control characters escaped", async () => {
    const sandbox = await botSandbox((router) =>
      router.otherwise((ctx) => ctx.reply('Hi \u001b]0;PWNED\u0007\u001b[2J there')),
    );
    try {
      const t = io();
      expect(await runCli(['say', 'hello', '--sandbox', sandbox.url], t.io)).toBe(0);
      expect(t.out.stdout).toContain('← text: Hi \\u001b]0;PWNED\\u0007\\u001b[2J there\n');
      expect(t.out.stdout.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
    } finally {
      await sandbox.close();
    }
    // A server that refuses with words of its own: quoted, never obeyed.
    const refusing = await startServer(
      (_req, res) =>
        void res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'no\u001b[2J' })),
    );
    try {
      const t = io();
      expect(await runCli(['say', 'hello', '--sandbox', refusing.url], t.io)).toBe(1);
      expect(t.out.stderr).toContain('refused the message: no\\u001b[2J.');
    } finally {
      await refusing.close();
    }
  });

  it('says when the server at --sandbox is not a sandbox', async () => {
    const other = await startServer((_req, res) => void res.writeHead(200).end('<html>my app</html>'));
    try {
      const t = io();
      expect(await runCli(['say', 'hello', '--sandbox', other.url], t.io)).toBe(1);
      expect(t.out.stderr).toContain(
        `the server at ${other.url} is not a wa-gateway sandbox (it answered HTTP 200 to POST /__sandbox/inject)`,
      );
    } finally {
      await other.close();
    }
  });

  it('says what is wrong: no sandbox, a sandbox without --webhook-url, a number as people write it', async () => {
    server = createServer();
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const free = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const none = io();
    expect(await runCli(['say', 'hi', '--sandbox', free], none.io)).toBe(1);
    expect(none.out.stderr).toContain(`no sandbox answers at ${free}`);
    expect(none.out.stderr).toContain('wa-gateway sandbox --webhook-url');
    const sandbox = await startSandbox();
    try {
      const nowhere = io();
      expect(await runCli(['say', 'hi', '--sandbox', sandbox.url], nowhere.io)).toBe(1);
      expect(nowhere.out.stdout).toContain('The sandbox has no --webhook-url: the message went nowhere.');
    } finally {
      await sandbox.close();
    }
    // A sandbox that takes the message and never answers (a webhook that hangs): say gives up at --timeout.
    server = createServer(() => {});
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const hanging = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const late = io();
    expect(await runCli(['say', 'hi', '--sandbox', hanging, '--timeout', '0.2'], late.io)).toBe(1);
    expect(late.out.stderr).toContain(`the sandbox at ${hanging} did not answer within 0.2 s`);
    server.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    const zero = io();
    expect(await runCli(['say', 'hi', '--timeout', '0'], zero.io)).toBe(2);
    expect(zero.out.stderr).toContain("--timeout is a number of seconds above 0; got '0'.");
    const bad = io();
    expect(await runCli(['say', 'hi', '--from', '+998 90 123'], bad.io)).toBe(2);
    expect(bad.out.stderr).toContain('--from is a number as the gateway writes it');
    const empty = io();
    expect(await runCli(['say'], empty.io)).toBe(2);
    expect(empty.out.stderr).toContain('say needs the <text> to write');
  });
});

describe('help and mistakes', () => {
  it("`help <command>` prints that command's usage", async () => {
    const t = io();
    expect(await runCli(['help', 'trigger'], t.io)).toBe(0);
    expect(t.out.stdout).toMatch(/^Usage: wa-gateway trigger <event>/);
    const u = io();
    expect(await runCli(['help', 'trigre'], u.io)).toBe(2);
    expect(u.out.stderr).toContain("unknown command 'trigre' (did you mean 'trigger'?)");
  });

  it('a mistyped top-level option: "unknown option", and the option meant', async () => {
    const meant = { '--verison': '--version', '--hlep': '--help', '-V': '-v' };
    for (const [given, option] of Object.entries(meant)) {
      const t = io();
      expect(await runCli([given], t.io)).toBe(2);
      expect(t.out.stderr).toContain(`wa-gateway: unknown option '${given}' (did you mean '${option}'?).`);
    }
  });

  it('a mistyped flag: a clean message naming it, with a "did you mean" and the flags', async () => {
    const t = io();
    expect(await runCli(['validate-template', 'x.json', '--jsno'], t.io)).toBe(2);
    const first = t.out.stderr.split('\n')[0]!;
    expect(first).toBe(
      "wa-gateway validate-template: unknown flag '--jsno' (did you mean '--json'?). Flags: --json.",
    );
    const u = io();
    expect(await runCli(['trigger', 'message.text', '--url', 'http://x', '--secert', 's'], u.io)).toBe(2);
    expect(u.out.stderr).toContain("unknown flag '--secert' (did you mean '--secret'?)");
    expect(u.out.stderr).not.toContain('"--secert"');
    const v = io();
    expect(await runCli(['trigger', 'message.text', '--url'], v.io)).toBe(2);
    expect(v.out.stderr).toContain('--url needs a value.');
    const w = io();
    expect(await runCli(['sandbox', '--zzzzzz'], w.io)).toBe(2);
    expect(w.out.stderr).toContain("unknown flag '--zzzzzz'. Flags: --port,");
  });

  it('a flag value that starts with "-": says that, and how to pass it (--flag=-value), not "takes no value"', async () => {
    const t = io();
    expect(await runCli(['campaign', 'report', 'c1', '--prefix', '-wa'], t.io)).toBe(2);
    expect(t.out.stderr.split('\n')[0]).toBe(
      "wa-gateway campaign: --prefix needs a value, and the one given starts with '-': write it as --prefix=<value>.",
    );
    // Never the value itself: it may be a secret.
    const s = io();
    expect(await runCli(['trigger', 'message.text', '--secret', '-whsec_TOPSECRET'], s.io)).toBe(2);
    expect(s.out.stderr).toContain("--secret needs a value, and the one given starts with '-'");
    expect(s.out.stderr).not.toContain('TOPSECRET');
    // The form it advises is one parseArgs takes: the value reaches the flag's own check.
    const u = io();
    expect(await runCli(['stream', '--from=-1'], u.io)).toBe(2);
    expect(u.out.stderr).toContain('--from');
    expect(u.out.stderr).not.toContain('needs a value');
    const v = io();
    expect(await runCli(['validate-template', 'x.json', '--json=yes'], v.io)).toBe(2);
    expect(v.out.stderr.split('\n')[0]).toBe('wa-gateway validate-template: --json takes no value.');
  });
});

describe('the bin', () => {
  it('prints help and exits with the documented codes', async () => {
    const bin = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', bin, ...args]).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('validate-template');
    expect((await run(['frobnicate'])).code).toBe(2);
  });
});
