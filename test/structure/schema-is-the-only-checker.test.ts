/**
 * The schemas are the only checkers: a field added to one is enforced on every path that reads that shape, with
 * no second edit anywhere. The test copies `src/` to a temporary folder, adds a required field to the gateway's
 * outbound text message (`message-schema.ts`) and to the webhook's text message (`webhooks/messages/text.ts`),
 * and to the envelope's `entry[]` item (`webhooks/schemas.ts`), and runs the copy and the repository's own `src/`
 * side by side in one child process (tsx):
 *
 * - `validateMessage`, `messages.send` and `messages.sendMany` against a node:http server on 127.0.0.1 refuse a
 *   message without the field before any request, and send one with it; so does `validateMessage` once the schema
 *   is hot and runs compiled (`core/compiled.ts`);
 * - `parseWebhook` and the webhook handler turn a text message without the field into an `unknown` message naming
 *   it (docs/webhooks.md, "What is required"), and keep the field when present;
 * - `parseWebhook` and the handler refuse an envelope whose entry lacks the entry's new field (the skeleton is read
 *   through `webhookEnvelopeSchema`), and take it with the field.
 *
 * The generated checkers are in the loop: the copy's `scripts/` regenerate them from the patched schemas (`npm run
 * generate`), as a contributor does, and before that the staleness check (`npm run generate -- --check`) must
 * refuse the committed files, so a schema changed without regenerating cannot pass the build.
 *
 * The unpatched `src/` must answer otherwise on the same inputs (the message without the field is sent and parsed
 * as a text, the envelope is taken), or the test would prove nothing. A hand-kept second checker of either shape (a fast path, a twin)
 * would let the message without the field through on its path, and this test fails.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FIELD = 'tracking_tag';
const ENTRY_FIELD = 'region';

/** Each edit must apply exactly once: a schema rewritten elsewhere must fail here, not test nothing. */
const PATCHES: { file: string; from: string; to: string }[] = [
  {
    file: 'src/gateway/message-schema.ts',
    from: "    body: maxLen('text.body', 4096),\n",
    to: `    body: maxLen('text.body', 4096),\n    ${FIELD}: z.string(),\n`,
  },
  {
    file: 'src/webhooks/messages/text.ts',
    from: 'text: z.looseObject({ body: requiredString }),',
    to: `text: z.looseObject({ body: requiredString, ${FIELD}: requiredString }),`,
  },
  {
    file: 'src/webhooks/schemas.ts',
    from: '  changes: z.array(changeSchema),\n',
    to: `  changes: z.array(changeSchema),\n  ${ENTRY_FIELD}: requiredString,\n`,
  },
];

/** What the child process reports for one copy of `src/`. */
interface Verdicts {
  validate: { without: string[] | 'valid'; with: string[] | 'valid' };
  /** The same, from the last of `2 × HOT_AFTER` checks each: on the compiled schema. */
  validateHot: { without: string[] | 'valid'; with: string[] | 'valid'; compiled: boolean };
  send: { without: string; with: string; requests: number; sentField: unknown };
  sendMany: { results: string[]; requests: number };
  parse: { without: WebhookVerdict; with: WebhookVerdict };
  handler: { without: WebhookVerdict; with: WebhookVerdict; status: number[] };
  /** An envelope whose entry lacks (or has) the entry's new field: parseWebhook's error, and the handler's status. */
  envelope: { without: string; with: string; status: number[] };
}
interface WebhookVerdict {
  type: string;
  originalType?: string;
  issues?: string[];
  field?: unknown;
}

/** The child: runs every path of one `src/` copy and prints its verdicts as one JSON line. */
const PROBE = `
import { createServer } from 'node:http';

const FIELD = ${JSON.stringify(FIELD)};
const ENTRY_FIELD = ${JSON.stringify(ENTRY_FIELD)};
const to = '998901234567';
const without = { to, type: 'text', text: { body: 'Hi' } };
const withField = { to, type: 'text', text: { body: 'Hi', [FIELD]: 'campaign-7' } };
const paths = (issues) => issues.map((i) => i.path.join('.'));

function delivery(text, entryFields = { [ENTRY_FIELD]: 'eu' }) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'waba-1', ...entryFields, changes: [{ field: 'messages', value: {
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: '15550001111', phone_number_id: 'pn-1' },
      contacts: [{ profile: { name: 'Ali' }, wa_id: to }],
      messages: [{ from: to, id: 'wamid.in-' + Object.keys(text).length, timestamp: '1700000000', type: 'text', text }],
    } }] }],
  });
}

function webhookVerdict(event) {
  if (event?.kind !== 'message') return { type: 'event:' + event?.kind };
  const m = event.message;
  return m.type === 'unknown'
    ? { type: m.type, originalType: m.originalType, issues: m.issues.map((i) => i.path.join('.')) }
    : { type: m.type, field: m.text?.[FIELD] };
}

async function probe(root) {
  const sdk = await import(root + '/src/index.ts');
  const webhooks = await import(root + '/src/webhooks/index.ts');
  const { HOT_AFTER, hot } = await import(root + '/src/core/compiled.ts');
  const { outboundMessageSchema } = await import(root + '/src/gateway/message-schema.ts');
  const bodies = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ isSuccess: true, data: { messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: to }], messages: [{ id: 'wamid.out-' + bodies.length }] } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gw = new sdk.GatewayClient({ apiKey: 'pk_live_' + 'x'.repeat(24), baseUrl: 'http://127.0.0.1:' + server.address().port, rateLimit: false });
  const verdict = (r) => (r.valid ? 'valid' : paths(r.issues));
  const outcome = (promise) =>
    promise.then((r) => 'sent', (e) => e.name + (e.issues ? ' ' + paths(e.issues).join(',') : ''));
  const out = {};
  out.validate = { without: verdict(sdk.validateMessage(without)), with: verdict(sdk.validateMessage(withField)) };
  const last = (message) => {
    let result;
    for (let i = 0; i < 2 * HOT_AFTER; i++) result = sdk.validateMessage(message);
    return verdict(result);
  };
  out.validateHot = { without: last(without), with: last(withField), compiled: hot(outboundMessageSchema) !== outboundMessageSchema };
  out.send = { without: await outcome(gw.messages.send(without)) };
  out.send.with = await outcome(gw.messages.send(withField));
  out.send.requests = bodies.length;
  out.send.sentField = bodies.at(-1)?.text?.[FIELD];
  bodies.length = 0;
  const results = [];
  for await (const r of gw.messages.sendMany([without, withField])) {
    results.push(r.ok ? 'sent' : (r.notSent ? 'notSent ' : '') + r.error.name);
  }
  out.sendMany = { results, requests: bodies.length };
  server.close();

  const plain = delivery({ body: 'Hi' });
  const tagged = delivery({ body: 'Hi', [FIELD]: 'campaign-7' });
  out.parse = {
    without: webhookVerdict(webhooks.parseWebhook(plain)[0]),
    with: webhookVerdict(webhooks.parseWebhook(tagged)[0]),
  };
  const secret = 's'.repeat(40);
  const seen = [];
  const handle = webhooks.createWebhookHandler({ secret, logger: false, onEvent: (e) => void seen.push(e) });
  const post = (body) => handle(new Request('https://example.com/webhook', {
    method: 'POST', headers: { authorization: 'Bearer ' + secret, 'content-type': 'application/json' }, body }));
  const status = [(await post(plain)).status, (await post(tagged)).status];
  out.handler = { without: webhookVerdict(seen[0]), with: webhookVerdict(seen[1]), status };
  const bare = delivery({ body: 'Hi', [FIELD]: 'campaign-7' }, {});
  const parsed = (body) => {
    try {
      return 'events ' + webhooks.parseWebhook(body).length;
    } catch (e) {
      return e.name + ' ' + (e.path ?? []).join('.');
    }
  };
  out.envelope = { without: parsed(bare), with: parsed(tagged), status: [(await post(bare)).status, (await post(tagged)).status] };
  return out;
}

const [patched, original] = process.argv.slice(2);
console.log(JSON.stringify({ patched: await probe(patched), original: await probe(original) }));
`;

let dir = '';
let verdicts: { patched: Verdicts; original: Verdicts };
/** `npm run generate -- --check` on the patched copy before regenerating: its exit code and what it printed. */
let staleCheck: { code: number | null; stderr: string };

function run(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 60_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wa-sdk-schema-'));
  cpSync(join(REPO, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(REPO, 'scripts'), join(dir, 'scripts'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const { file, from, to } of PATCHES) {
    const source = readFileSync(join(dir, file), 'utf8');
    const count = source.split(from).length - 1;
    if (count !== 1)
      throw new Error(`${file}: the patch's anchor occurs ${count} times, not once; update the test`);
    writeFileSync(join(dir, file), source.replace(from, to));
  }
  const generate = ['--import', 'tsx', join(dir, 'scripts/generate-checkers.ts')];
  const check = await run([...generate, '--check'], dir);
  staleCheck = { code: check.code, stderr: check.stderr };
  const written = await run(generate, dir);
  if (written.code !== 0) throw new Error(`npm run generate failed on the patched copy: ${written.stderr}`);
  const probe = join(dir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', probe, dir, REPO.replace(/\/$/, '')],
      { cwd: dir, timeout: 60_000, maxBuffer: 1 << 20 },
      (error, out, err) =>
        error ? reject(new Error(`probe failed: ${error.message}\n${err}`)) : resolve(out),
    );
  });
  verdicts = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as typeof verdicts;
}, 90_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the generated checkers', () => {
  it('are stale once a schema changes: the check refuses the committed files until they are regenerated', () => {
    expect(staleCheck.code).toBe(1);
    expect(staleCheck.stderr).toContain('src/webhooks/checkers.generated.ts is stale');
  });
});

describe('a required field added to the gateway text message schema', () => {
  it('validateMessage refuses the message without it and accepts it with it', () => {
    expect(verdicts.patched.validate).toEqual({ without: [`text.${FIELD}`], with: 'valid' });
  });

  it('messages.send refuses before any request without it, and sends it with it', () => {
    expect(verdicts.patched.send).toEqual({
      without: `MessageValidationError text.${FIELD}`,
      with: 'sent',
      requests: 1,
      sentField: 'campaign-7',
    });
  });

  it('sendMany reports the message without it as not sent, and sends the other', () => {
    expect(verdicts.patched.sendMany).toEqual({
      results: ['notSent MessageValidationError', 'sent'],
      requests: 1,
    });
  });

  it('validateMessage holds the same verdicts once the schema is hot and runs compiled', () => {
    expect(verdicts.patched.validateHot).toEqual({
      without: [`text.${FIELD}`],
      with: 'valid',
      compiled: true,
    });
  });

  it('could fail: the unpatched source sends the message without it and refuses the field as unknown', () => {
    expect(verdicts.original.validate).toEqual({ without: 'valid', with: [`text.${FIELD}`] });
    expect(verdicts.original.validateHot).toEqual({
      without: 'valid',
      with: [`text.${FIELD}`],
      compiled: true,
    });
    expect(verdicts.original.send).toMatchObject({
      without: 'sent',
      with: `MessageValidationError text.${FIELD}`,
      requests: 1,
    });
    expect(verdicts.original.sendMany).toEqual({
      results: ['sent', 'notSent MessageValidationError'],
      requests: 1,
    });
  });
});

describe('a required field added to the webhook text message schema', () => {
  const missing = { type: 'unknown', originalType: 'text', issues: [`text.${FIELD}`] };
  const present = { type: 'text', field: 'campaign-7' };

  it('parseWebhook makes a text without it an unknown message naming the field, and keeps it when present', () => {
    expect(verdicts.patched.parse).toEqual({ without: missing, with: present });
  });

  it('the webhook handler delivers the same events to onEvent', () => {
    expect(verdicts.patched.handler).toEqual({ without: missing, with: present, status: [200, 200] });
  });

  it('could fail: the unpatched source parses the text without it as a text', () => {
    expect(verdicts.original.parse).toEqual({
      without: { type: 'text' },
      with: { type: 'text', field: 'campaign-7' },
    });
    expect(verdicts.original.handler.without).toEqual({ type: 'text' });
  });
});

describe("a required field added to the envelope's entry schema", () => {
  it('parseWebhook refuses an envelope whose entry lacks it, at its path, and parses one that has it', () => {
    expect(verdicts.patched.envelope.without).toBe(`WebhookParseError entry.0.${ENTRY_FIELD}`);
    expect(verdicts.patched.envelope.with).toBe('events 1');
  });

  it('the webhook handler answers 400 to the envelope without it and 200 to the one with it', () => {
    expect(verdicts.patched.envelope.status).toEqual([400, 200]);
  });

  it('could fail: the unpatched source takes both envelopes', () => {
    expect(verdicts.original.envelope).toEqual({ without: 'events 1', with: 'events 1', status: [200, 200] });
  });
});
