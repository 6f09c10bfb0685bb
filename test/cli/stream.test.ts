import { execFileSync } from 'node:child_process';
import { appendFile, mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { shellQuoted } from '../../src/cli/stream.js';
import { startServer } from '../helpers/http-server.js';

const DAY = 86_400_000;
const FROM = Date.parse('2024-03-01T00:00:00Z');
/** 240 records over 10 days, one every hour. */
const RECORDS = Array.from({ length: 240 }, (_, i) => ({
  id: i + 1,
  created_at: new Date(FROM + i * 3_600_000).toISOString(),
  type: 'text',
  content: `message ${i + 1}`,
  conversation: { uuid: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f' },
}));

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** 240 records, three at each instant (one instant an hour): a resume from an instant gets some again. */
const TRIPLETS = RECORDS.map((r, i) => ({
  ...r,
  created_at: new Date(FROM + Math.floor(i / 3) * 3_600_000).toISOString(),
}));

/**
 * A platform that logs in one user and streams `records` by exclusive created_at bounds; with `cutAfter`, the
 * socket is cut once, after that many records.
 */
async function platform(options: { cutAfter?: number; records?: typeof RECORDS } = {}) {
  const seen = { logins: 0, streams: 0, served: 0, cut: false };
  const all = options.records ?? RECORDS;
  const s = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && url.pathname === '/jwt/') {
      seen.logins++;
      const { password } = JSON.parse(body) as { password: string };
      if (password !== 'pw-123456')
        return void res.writeHead(400).end(JSON.stringify({ non_field_errors: ['Unable to log in.'] }));
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(
        JSON.stringify({ token: 'tok-abc', account: { uuid: 'a' }, otp: false, client: { device_id: 'd' } }),
      );
    }
    if (req.headers.authorization !== 'JWT tok-abc')
      return void res.writeHead(401).end('{"detail":"Invalid auth key."}');
    if (url.pathname === '/stream/messages/') {
      seen.streams++;
      const gt = Date.parse(url.searchParams.get('created_at__gt') ?? '');
      const lt = Date.parse(url.searchParams.get('created_at__lt') ?? '');
      const rows = all.filter((r) => Date.parse(r.created_at) > gt && Date.parse(r.created_at) < lt);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const r of rows) {
        if (options.cutAfter !== undefined && !seen.cut && seen.served >= options.cutAfter) {
          seen.cut = true;
          res.write('{"id": 9');
          // Let the complete lines reach the client first: a reset can discard data not yet read.
          return void setTimeout(() => res.socket?.destroy(), 50);
        }
        seen.served++;
        res.write(`${JSON.stringify(r)}\n`);
      }
      return void res.end();
    }
    res.writeHead(404).end('{}');
  });
  close = s.close;
  return {
    seen,
    env: {
      PLATFORM_URL: s.url,
      STREAM_URL: s.url,
      PLATFORM_USERNAME: 'agent',
      PLATFORM_PASSWORD: 'pw-123456',
    },
  };
}

function io(env: Record<string, string>, stderrIsTTY = false) {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stderrIsTTY,
      stdout: (t: string) => {
        out.stdout += t;
      },
      stderr: (t: string) => {
        out.stderr += t;
      },
      env,
      interrupted: new Promise<void>(() => {}),
    },
  };
}

describe('wa-gateway stream', () => {
  it('exports a 10-day range (two windows) to NDJSON: every record once, in order', async () => {
    const { seen, env } = await platform();
    const out = join(tmpdir(), `wa-stream-${Date.now()}.ndjson`);
    const t = io(env);
    const to = new Date(FROM + 10 * DAY).toISOString();
    expect(await runCli(['stream', '--from', RECORDS[0]!.created_at, '--to', to, '--out', out], t.io)).toBe(
      0,
    );
    const lines = (await readFile(out, 'utf8')).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(RECORDS.map((r) => r.id));
    expect(seen.logins).toBe(1);
    expect(seen.streams).toBe(2);
    expect(t.out.stdout).toContain(`wrote 240 messages to ${out}`);
    expect(t.out.stderr).toMatch(/240 messages, up to 2024-03-10T23:00:00.000Z\n$/);
    await expect(stat(`${out}.part`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a cut stream exits 1, keeps the records so far in .part and says how to resume', async () => {
    const { env } = await platform({ cutAfter: 50 });
    // A path a shell would split (a space, a `;`): the printed command quotes it.
    const out = join(tmpdir(), `wa-stream ${Date.now()};cut.ndjson`);
    const t = io(env);
    const code = await runCli(
      ['stream', '--from', RECORDS[0]!.created_at, '--to', RECORDS[100]!.created_at, '--out', out],
      t.io,
    );
    expect(code).toBe(1);
    expect(t.out.stderr).toContain(
      `Resume with: wa-gateway stream --resume --from ${RECORDS[0]!.created_at} --to ${RECORDS[100]!.created_at} --out '${out}'`,
    );
    expect(t.out.stderr).not.toMatch(/\.\./);
    expect((await readFile(`${out}.part`, 'utf8')).trim().split('\n')).toHaveLength(50);
    await expect(stat(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('usage errors: missing flags, a bad date, missing credentials (never printed)', async () => {
    const a = io({});
    expect(await runCli(['stream', '--out', 'x.ndjson'], a.io)).toBe(2);
    expect(a.out.stderr).toContain('--from is required');
    const b = io({});
    expect(await runCli(['stream', '--from', 'yesterday', '--out', 'x'], b.io)).toBe(2);
    expect(b.out.stderr).toContain(
      "--from takes an ISO 8601 date or date-time, e.g. 2024-01-01T00:00:00Z or 2024-01-01; got 'yesterday'.",
    );
    // Date.parse would read each of these as a date of 2001: refused, never exported as a wrong range.
    for (const [flag, value] of [
      ['--from', '1'],
      ['--from', 'May 5'],
      ['--to', '12/31'],
      ['--to', '2024-01-01 garbage'],
    ] as const) {
      const d = io({});
      const args = ['stream', '--from', '2024-01-01', '--out', 'x', flag, value];
      expect(await runCli(args, d.io)).toBe(2);
      expect(d.out.stderr).toContain(`${flag} takes an ISO 8601 date or date-time`);
    }
    const c = io({
      PLATFORM_URL: 'http://127.0.0.1:9',
      STREAM_URL: 'http://127.0.0.1:9',
      PLATFORM_USERNAME: 'agent',
    });
    expect(await runCli(['stream', '--from', '2024-01-01T00:00:00Z', '--out', 'x'], c.io)).toBe(2);
    expect(c.out.stderr).toContain('PLATFORM_USERNAME and PLATFORM_PASSWORD (or PLATFORM_TOKEN)');
    // A malformed address is a usage error too, named by its variable (and a password in it is never printed).
    for (const [name, value, message] of [
      ['PLATFORM_URL', 'notaurl', '$PLATFORM_URL is not a valid URL'],
      ['PLATFORM_URL', 'http://user:hunter2@127.0.0.1:9', '$PLATFORM_URL must not carry'],
      ['STREAM_URL', 'ftp://127.0.0.1:9', '$STREAM_URL must be an http(s) URL'],
    ] as const) {
      const e = io({
        PLATFORM_URL: 'http://127.0.0.1:9',
        STREAM_URL: 'http://127.0.0.1:9',
        PLATFORM_TOKEN: 'token',
        [name]: value,
      });
      expect(await runCli(['stream', '--from', '2024-01-01T00:00:00Z', '--out', 'x'], e.io)).toBe(2);
      expect(e.out.stderr).toContain(message);
      expect(e.out.stderr).not.toContain('hunter2');
    }
  });

  it('a wrong password is a failure naming the login, without the password', async () => {
    const { env } = await platform();
    const t = io({ ...env, PLATFORM_PASSWORD: 'wrong-password-9' });
    const out = join(tmpdir(), `wa-stream-${Date.now()}-auth.ndjson`);
    expect(
      await runCli(
        ['stream', '--from', RECORDS[0]!.created_at, '--to', RECORDS[5]!.created_at, '--out', out],
        t.io,
      ),
    ).toBe(1);
    expect(t.out.stderr).toContain('Unable to log in');
    expect(t.out.stderr + t.out.stdout).not.toContain('wrong-password-9');
  });

  it('--resume after a cut over a real socket (and a last line cut by a kill): every record exactly once', async () => {
    const { env, seen } = await platform({ cutAfter: 50, records: TRIPLETS });
    const out = join(await mkdtemp(join(tmpdir(), 'wa-stream-')), 'resume.ndjson');
    const args = [
      'stream',
      '--from',
      TRIPLETS[0]!.created_at,
      '--to',
      TRIPLETS[239]!.created_at,
      '--out',
      out,
    ];
    expect(await runCli(args, io(env).io)).toBe(1);
    expect(seen.cut).toBe(true);
    // The cut fell inside an instant: records 49 and 50 share theirs with record 51, not yet written.
    expect((await readFile(`${out}.part`, 'utf8')).trim().split('\n')).toHaveLength(50);
    await appendFile(`${out}.part`, '{"id": 51, "created_at": "2024-03-0'); // a process killed mid-line
    const t = io(env);
    expect(await runCli([...args, '--resume'], t.io)).toBe(0);
    expect(t.out.stderr).toContain(`resuming ${out}.part after ${TRIPLETS[49]!.created_at}`);
    expect(t.out.stdout).toContain(`wrote 190 more messages to ${out}`);
    const ids = (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: number }).id);
    expect(ids).toEqual(TRIPLETS.map((r) => r.id));
    await expect(stat(`${out}.part`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--resume without a .part is a usage error', async () => {
    const { env } = await platform();
    const t = io(env);
    const out = join(tmpdir(), `wa-stream-${Date.now()}-none.ndjson`);
    expect(await runCli(['stream', '--from', RECORDS[0]!.created_at, '--out', out, '--resume'], t.io)).toBe(
      2,
    );
    expect(t.out.stderr).toContain(`--resume: there is no ${out}.part to continue.`);
  });

  it('a failed login leaves no .part and does not claim records were kept; no doubled periods', async () => {
    const { env } = await platform();
    const t = io({ ...env, PLATFORM_PASSWORD: 'wrong-password-9' });
    const out = join(tmpdir(), `wa-stream-${Date.now()}-nopart.ndjson`);
    const args = ['stream', '--from', RECORDS[0]!.created_at, '--to', RECORDS[5]!.created_at, '--out', out];
    expect(await runCli(args, t.io)).toBe(1);
    await expect(stat(`${out}.part`)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(t.out.stderr).toContain('No file was written.');
    expect(t.out.stderr).not.toContain('.part');
    expect(t.out.stderr).not.toMatch(/\.\./);
  });

  it('a .part that cannot be created is not claimed to hold the records', async () => {
    const { env } = await platform();
    const t = io(env);
    const out = join(tmpdir(), 'no-such-directory-wa', 'out.ndjson');
    const args = ['stream', '--from', RECORDS[0]!.created_at, '--to', RECORDS[5]!.created_at, '--out', out];
    expect(await runCli(args, t.io)).toBe(1);
    expect(t.out.stderr).toContain('ENOENT');
    expect(t.out.stderr).toContain('No file was written.');
    expect(t.out.stderr).not.toContain('records so far');
  });

  it('progress: \\r only when stderr is a terminal, plain lines otherwise', async () => {
    const { env } = await platform();
    const to = RECORDS[30]!.created_at;
    const plain = io(env, false);
    const a = join(tmpdir(), `wa-stream-${Date.now()}-plain.ndjson`);
    expect(await runCli(['stream', '--from', RECORDS[0]!.created_at, '--to', to, '--out', a], plain.io)).toBe(
      0,
    );
    expect(plain.out.stderr).not.toContain('\r');
    expect(plain.out.stderr).toMatch(/^31 messages, up to .*\n$/m);
    const tty = io(env, true);
    const b = join(tmpdir(), `wa-stream-${Date.now()}-tty.ndjson`);
    expect(await runCli(['stream', '--from', RECORDS[0]!.created_at, '--to', to, '--out', b], tty.io)).toBe(
      0,
    );
    expect(tty.out.stderr).toContain('\r31 messages');
  });

  it('accepts the deprecated PLATFORM_USER, with a warning', async () => {
    const { env } = await platform();
    const { PLATFORM_USERNAME, ...rest } = env;
    const t = io({ ...rest, PLATFORM_USER: PLATFORM_USERNAME });
    const out = join(tmpdir(), `wa-stream-${Date.now()}-user.ndjson`);
    const args = ['stream', '--from', RECORDS[0]!.created_at, '--to', RECORDS[2]!.created_at, '--out', out];
    expect(await runCli(args, t.io)).toBe(0);
    expect(t.out.stderr).toContain('warning: PLATFORM_USER is deprecated; name it PLATFORM_USERNAME.');
  });
});

describe('the printed resume command', () => {
  it('quotes each value so that a shell reads it back whole, and runs nothing in it', () => {
    for (const value of [
      'q1.ndjson',
      'my export;rm -rf x.ndjson',
      "it's.ndjson",
      '$(touch pwned)',
      'a\tb',
      '',
    ]) {
      const quoted = shellQuoted(value);
      const read = execFileSync('sh', ['-c', `printf '%s' ${quoted}`], { encoding: 'utf8' });
      expect(read).toBe(value);
    }
    expect(shellQuoted('2024-01-01T00:00:00+05:00')).toBe('2024-01-01T00:00:00+05:00');
    expect(shellQuoted("it's")).toBe("'it'\\''s'");
  });
});
