/**
 * Secrets in another encoding (issue 22). A platform password with non-ASCII characters, echoed by a real node:http
 * server on 127.0.0.1 in response headers as its raw UTF-8 bytes, comes back from fetch decoded as Latin-1 (`é` reads
 * `Ã©`): a form the scrubber of the password's own characters never looked for. The scan here looks for every
 * re-decoded form (UTF-8 read as Latin-1 or windows-1252, and the reverse), escaped the ways a server quotes text,
 * and for any 12-character piece of one, in every error, log line, hook event and response the SDK produced.
 */
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrub } from '../src/core/secrets.js';
import { PlatformClient, WaGatewayError } from '../src/index.js';
import { type Handler, startServer } from './helpers/http-server.js';

const PASSWORDS = {
  latin: 'Pässwörd-é9xQz-Çm2Lk7',
  cyrillic: 'Пароль-9xQzЛm2-Kc4Vb8',
  mixed: 'Sécurité✓Zq7-ñÄ-Wm4Rt',
};
const PIECE = 12;

/** The forms a secret takes after a trip through a layer that took its bytes for another encoding. */
function redecodedForms(secret: string): string[] {
  const utf8 = Buffer.from(secret, 'utf8');
  const out = [secret, utf8.toString('latin1'), new TextDecoder('windows-1252').decode(utf8)];
  if ([...secret].every((ch) => ch.charCodeAt(0) <= 0xff))
    out.push(Buffer.from(secret, 'latin1').toString('utf8'));
  return out;
}

/** Each form as a server may quote it: as is, JSON-escaped (also as \uXXXX), URL-encoded. */
function quotedForms(secret: string): string[] {
  return redecodedForms(secret).flatMap((form) => {
    const json = JSON.stringify(form).slice(1, -1);
    const ascii = json.replace(
      /[\u0080-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    return [form, json, ascii, encodeURIComponent(form)];
  });
}

/** Every `PIECE`-character piece of every form: a leak of part of a secret is a leak. */
function pieces(secret: string): string[] {
  const out = new Set<string>();
  for (const form of quotedForms(secret)) {
    for (let i = 0; i + PIECE <= form.length; i++) out.add(form.slice(i, i + PIECE));
  }
  return [...out];
}

function renderings(value: unknown, seen = new Set<unknown>()): string[] {
  if (seen.has(value)) return [];
  seen.add(value);
  const out = [inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }), String(value)];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: inspect covers it
  }
  if (value instanceof Error) {
    out.push(value.message, value.stack ?? '');
    for (const key of Object.getOwnPropertyNames(value)) {
      const field = (value as unknown as Record<string, unknown>)[key];
      if (field !== null && typeof field === 'object') out.push(...renderings(field, seen));
      else out.push(String(field));
    }
  }
  return out;
}

function leaks(items: readonly unknown[], secret: string): string[] {
  const found: string[] = [];
  const all = pieces(secret);
  for (const text of items.flatMap((item) => renderings(item))) {
    for (const piece of all) if (text.includes(piece)) found.push(piece);
  }
  return [...new Set(found)];
}

/** A header value as raw UTF-8 bytes: node:http writes a header string as Latin-1, one byte per character. */
const rawUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

let url = '';
let close: () => Promise<void>;
let behave: Handler = (_req, res) => void res.writeHead(404).end();
const wire: string[] = [];

beforeAll(async () => {
  const server = await startServer((req, res, body) => {
    if (req.url === '/jwt/') wire.push(body);
    return behave(req, res, body);
  });
  url = server.url;
  close = server.close;
});
afterAll(() => close());

/** Echoes `password` in every header the SDK reads, as raw UTF-8 bytes. */
function echoHeaders(password: string): Record<string, string> {
  return {
    'x-request-id': rawUtf8(`req-${password}`),
    'request-id': rawUtf8(password),
    'content-type': rawUtf8(`text/html; note=${password}`),
    'retry-after': rawUtf8(password),
    location: rawUtf8(`https://${password}.example/next`),
  };
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string>) {
  res.writeHead(status, headers).end(body);
}

async function run(password: string, handler: Handler, call: (c: PlatformClient) => Promise<unknown>) {
  const produced: unknown[] = [];
  const log = (...a: unknown[]) => void produced.push(a);
  behave = handler;
  const client = new PlatformClient({
    platformUrl: url,
    streamUrl: url,
    username: 'ops@example.com',
    password,
    maxRetries: 0,
    timeoutMs: 2000,
    logger: { debug: log, info: log, warn: log, error: log },
    logLevel: 'debug',
    onResponse: (event) => void produced.push(event),
  });
  produced.push(client);
  try {
    produced.push(await call(client));
  } catch (error) {
    produced.push(error);
  }
  return produced;
}

describe('a non-ASCII password echoed in response headers as raw UTF-8', () => {
  it('the scan itself finds the Latin-1 form, the reverse form and a piece of one', () => {
    const password = PASSWORDS.latin;
    expect(leaks([new Error(`id ${rawUtf8(password)}`)], password)).not.toEqual([]);
    expect(leaks([{ requestId: rawUtf8(password).slice(3, 3 + PIECE) }], password)).not.toEqual([]);
    expect(leaks([Buffer.from(password, 'latin1').toString('utf8')], password)).not.toEqual([]);
    expect(leaks([new Error('clean'), { requestId: 'req-1234' }], password)).toEqual([]);
  });

  it.each(Object.entries(PASSWORDS))(
    'a login refused with 400 (LoginFailedError), the headers echoing the %s password: 0 appearances',
    async (_, password) => {
      const produced = await run(
        password,
        (_req, res) =>
          answer(
            res,
            400,
            JSON.stringify({ non_field_errors: ['Unable to log in.'] }),
            echoHeaders(password),
          ),
        (c) => c.auth.login(),
      );
      const error = produced.find((p) => p instanceof WaGatewayError);
      expect(error?.constructor.name).toBe('LoginFailedError');
      // The password was in play: the login body carried it, and the server echoed its bytes.
      expect(wire.at(-1)).toContain(JSON.stringify(password).slice(1, -1));
      expect(leaks(produced, password)).toEqual([]);
    },
  );

  it.each(Object.entries(PASSWORDS))(
    'a login answered 500 by an HTML page (its content type quoted in the message), %s: 0 appearances',
    async (_, password) => {
      const produced = await run(
        password,
        (_req, res) => answer(res, 500, '<html><body>Down</body></html>', echoHeaders(password)),
        (c) => c.auth.login(),
      );
      const error = produced.find((p) => p instanceof WaGatewayError) as WaGatewayError | undefined;
      expect(error?.message).toContain('no content type');
      expect(leaks(produced, password)).toEqual([]);
    },
  );

  it.each([302, 429])(
    'a login answered %i with Location and Retry-After echoes: 0 appearances',
    async (status) => {
      const password = PASSWORDS.mixed;
      const produced = await run(
        password,
        (_req, res) => answer(res, status, '{}', echoHeaders(password)),
        (c) => c.auth.login(),
      );
      expect(produced.some((p) => p instanceof WaGatewayError)).toBe(true);
      expect(leaks(produced, password)).toEqual([]);
    },
  );

  it('a login that succeeds: the request id in the log line, the hook and withResponse() shows no form of it', async () => {
    const password = PASSWORDS.cyrillic;
    const produced = await run(
      password,
      (_req, res) =>
        answer(
          res,
          200,
          JSON.stringify({ token: 'a.b.c', account: { uuid: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f' } }),
          { ...echoHeaders(password), 'content-type': 'application/json' },
        ),
      (c) => c.auth.login().withResponse(),
    );
    const result = produced.at(-1) as { response: { requestId?: string } };
    // The request id was not plain ASCII: treated as absent rather than shown re-decoded.
    expect(result.response.requestId).toBeUndefined();
    expect(leaks(produced.slice(1, -1), password)).toEqual([]);
  });

  it('a plain ASCII request id is still kept', async () => {
    const produced = await run(
      PASSWORDS.latin,
      (_req, res) =>
        answer(res, 400, JSON.stringify({ non_field_errors: ['Unable to log in.'] }), {
          'x-request-id': 'req-7f3a9c',
          'content-type': 'application/json',
        }),
      (c) => c.auth.login(),
    );
    const error = produced.find((p) => p instanceof WaGatewayError) as { requestId?: string } | undefined;
    expect(error?.requestId).toBe('req-7f3a9c');
  });
});

describe('scrub: every re-decoded form of a secret', () => {
  it.each(Object.entries(PASSWORDS))(
    '%s: as is, Latin-1 and windows-1252 of its UTF-8, and the reverse',
    (_, pw) => {
      for (const form of redecodedForms(pw)) {
        const text = `before ${form} after`;
        expect(scrub(text, [pw]), form).toBe('before [redacted] after');
      }
    },
  );

  it('an ASCII secret is scrubbed as before, and text without it is left alone', () => {
    expect(scrub('a pk_live_123 b', ['pk_live_123'])).toBe('a [redacted] b');
    expect(scrub('Ã© nothing here', [PASSWORDS.latin])).toBe('Ã© nothing here');
  });
});
