import { lstat, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConfigurationError,
  EndpointNotLiveError,
  GatewayClient,
  InvalidResponseError,
  type Logger,
  MessageValidationError,
  NotFoundError,
  PermissionDeniedError,
  TimeoutError,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { API_KEY, envelope, GW, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const gw = (logger?: Logger) =>
  new GatewayClient({ apiKey: API_KEY, baseUrl: GW, ...(logger ? { logger } : {}) });
const bytes = new Uint8Array(Array.from({ length: 4096 }, (_, i) => i % 251));

/** What `download` rejects with, and how many requests reached the gateway meanwhile. */
async function refusal(download: () => Promise<unknown>): Promise<{ error: unknown; requests: number }> {
  let requests = 0;
  server.use(
    http.all(`${GW}/*`, () => {
      requests++;
      return new HttpResponse(bytes);
    }),
  );
  const error = await download().catch((e: unknown) => e);
  return { error, requests };
}

describe('media.download', () => {
  it('GETs /v1/wa/media/{id} with phone_number_id and the key, and exposes type, length, name and body', async () => {
    let url: URL | undefined;
    let auth: string | null = null;
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, ({ request }) => {
        url = new URL(request.url);
        auth = request.headers.get('authorization');
        return new HttpResponse(bytes, {
          headers: {
            'content-type': 'image/jpeg',
            'content-length': String(bytes.byteLength),
            'content-disposition': 'attachment; filename="photo 1.jpg"',
          },
        });
      }),
    );
    const file = await gw().media.download('media/1 2', { phoneNumberId: '106540352242922' });
    expect(url?.pathname).toBe('/v1/wa/media/media%2F1%202');
    expect(url?.searchParams.get('phone_number_id')).toBe('106540352242922');
    expect(auth).toBe(`Bearer ${API_KEY}`);
    expect(file).toMatchObject({ contentType: 'image/jpeg', contentLength: 4096, filename: 'photo 1.jpg' });
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
  });

  // fetch hands the header's bytes over as Latin-1: the UTF-8 of `ï` (C3 AF) arrives as `Ã¯`.
  it.each([
    [
      'a raw-byte filename beside a good filename*',
      `attachment; filename="naÃ¯ve.pdf"; filename*=UTF-8''na%C3%AFve.pdf`,
      'naïve.pdf',
    ],
    [
      'filename* first, then a raw-byte filename',
      `attachment; filename*=UTF-8''na%C3%AFve.pdf; filename="naÃ¯ve.pdf"`,
      'naïve.pdf',
    ],
    ['a language tag', "attachment; filename*=UTF-8'en'na%C3%AFve.pdf", 'naïve.pdf'],
    ['ISO-8859-1', "attachment; filename*=iso-8859-1''na%EFve.pdf", 'naïve.pdf'],
    ['a path', `attachment; filename*=UTF-8''..%2F..%2Fna%C3%AFve.pdf`, 'naïve.pdf'],
    ['only a raw-byte filename', 'attachment; filename="naÃ¯ve.pdf"', undefined],
    ['a filename* holding raw bytes', "attachment; filename*=UTF-8''naÃ¯ve.pdf", undefined],
  ])(
    'Content-Disposition with %s: the name is its filename* or nothing',
    async (_, disposition, filename) => {
      server.use(
        http.get(
          `${GW}/v1/wa/media/:id`,
          () =>
            new HttpResponse(bytes, {
              headers: { 'content-type': 'application/pdf', 'content-disposition': disposition },
            }),
        ),
      );
      const file = await gw().media.download('m1', { phoneNumberId: 'p1' });
      expect(file.filename).toBe(filename);
    },
  );

  it('saveTo leaves no file at the path when the download is cut', async () => {
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(bytes);
            c.error(new Error('socket hang up'));
          },
        });
        return new HttpResponse(body, { headers: { 'content-type': 'application/pdf' } });
      }),
    );
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const file = await gw().media.download('m1', { phoneNumberId: 'p1' });
    await expect(file.saveTo(join(dir, 'doc.pdf'))).rejects.toBeInstanceOf(Error);
    expect(await readdir(dir)).toEqual([]);
  });

  it('saveTo streams the body to a file and returns the byte count', async () => {
    server.use(
      http.get(
        `${GW}/v1/wa/media/:id`,
        () => new HttpResponse(bytes, { headers: { 'content-type': 'application/pdf' } }),
      ),
    );
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const file = await gw().media.download('m1', { phoneNumberId: 'p1' });
    expect(file.contentLength).toBeUndefined();
    const path = join(dir, 'doc.pdf');
    expect(await file.saveTo(path)).toBe(4096);
    expect(new Uint8Array(await readFile(path))).toEqual(bytes);
  });

  it('maps the error envelope to typed errors', async () => {
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () =>
        HttpResponse.json(envelope('WABA_001', 'UNAUTHORIZED', 'no credentials'), { status: 401 }),
      ),
    );
    await expect(gw().media.download('m', { phoneNumberId: 'p' })).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () =>
        HttpResponse.json({ isSuccess: false, errors: { code: 'X', description: 'no' } }, { status: 403 }),
      ),
    );
    await expect(gw().media.download('m', { phoneNumberId: 'p' })).rejects.toBeInstanceOf(
      PermissionDeniedError,
    );
  });

  it('a 404 without a gateway code says the endpoint may not be live yet', async () => {
    server.use(http.get(`${GW}/v1/wa/media/:id`, () => new HttpResponse('Not Found', { status: 404 })));
    const e = await gw()
      .media.download('m', { phoneNumberId: 'p' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EndpointNotLiveError);
    expect(e).not.toBeInstanceOf(NotFoundError);
    expect((e as Error).message).toMatch(/under development/);
    expect((e as EndpointNotLiveError).status).toBe(404);
  });

  it('a 404 with a gateway code is a plain not-found of that media', async () => {
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () =>
        HttpResponse.json(envelope('MEDIA_404', 'NOT_FOUND', 'gone'), { status: 404 }),
      ),
    );
    const e = await gw()
      .media.download('m', { phoneNumberId: 'p' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotFoundError);
    expect((e as Error).message).not.toMatch(/under development/);
  });

  it('a 501 says the endpoint is not live, and is not retried', async () => {
    let count = 0;
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () => {
        count++;
        return new HttpResponse('', { status: 501 });
      }),
    );
    const e = await gw()
      .media.download('m', { phoneNumberId: 'p' })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EndpointNotLiveError);
    expect((e as EndpointNotLiveError).status).toBe(501);
    expect((e as Error).message).toMatch(/under development/);
    expect(count).toBe(1);
  });

  it('a GET is retried after a 503 and after a connection error', async () => {
    let count = 0;
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () => {
        count++;
        if (count === 1) return new HttpResponse('busy', { status: 503 });
        if (count === 2) return HttpResponse.error();
        return new HttpResponse(bytes, { headers: { 'content-type': 'image/png' } });
      }),
    );
    const log = captureLogger();
    const file = await gw(log.logger).media.download('m', { phoneNumberId: 'p' });
    expect(file.contentType).toBe('image/png');
    expect(count).toBe(3);
    // Two retries in one burst: the first line, and the second folded into a count logged once the burst is over.
    expect(log.messages()[0]).toBe('wa-gateway-sdk: retrying request');
    for (const message of log.messages())
      expect(message.startsWith('wa-gateway-sdk: retrying request')).toBe(true);
  });

  it('rejects a missing media id or phoneNumberId before any request', async () => {
    await expect(gw().media.download('', { phoneNumberId: 'p' })).rejects.toBeInstanceOf(
      MessageValidationError,
    );
    await expect(gw().media.download('m', {} as { phoneNumberId: string })).rejects.toThrow(
      /phone_number_id/,
    );
  });

  // Without options it threw a bare TypeError: "Cannot read properties of undefined (reading 'maxBytes')".
  it.each([undefined, null])(
    'options %j: the MessageValidationError that names phoneNumberId',
    async (options) => {
      const { error, requests } = await refusal(() => gw().media.download('m', options as never));
      expect(error).toBeInstanceOf(MessageValidationError);
      expect((error as MessageValidationError).issues).toMatchObject([
        {
          path: ['phoneNumberId'],
          rule: 'phoneNumberId.required',
          message: expect.stringMatching(/^is missing: give options\.phoneNumberId, /),
        },
      ]);
      expect(requests).toBe(0);
    },
  );

  // Each was ignored before: `phone_number_id` (the webhook's spelling) was said to be missing, the others dropped.
  it.each([
    [{ phone_number_id: 'p' }, 'phoneNumberId'],
    [{ phoneNumberId: 'p', maxbytes: 10 }, 'maxBytes'],
    [{ phoneNumberId: 'p', timeout: 5_000 }, 'timeoutMs'],
  ])('options %j: a ConfigurationError naming %s, before any request', async (options, meant) => {
    const { error, requests } = await refusal(() => gw().media.download('m', options as never));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(
      new RegExp(`^media\\.download: unknown option .*did you mean '${meant}'`),
    );
    expect(requests).toBe(0);
  });

  it('options of a number: a ConfigurationError, before any request', async () => {
    const { error, requests } = await refusal(() => gw().media.download('m', 5 as never));
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(requests).toBe(0);
  });

  /** A media answer whose body comes in `chunks` pieces of `bytes`, each on a later turn (downloads interleave). */
  const chunked = (chunks: number) =>
    http.get(`${GW}/v1/wa/media/:id`, () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(c) {
          await new Promise((resolve) => setImmediate(resolve));
          if (sent++ < chunks) c.enqueue(bytes);
          else c.close();
        },
      });
      return new HttpResponse(body, { headers: { 'content-type': 'image/jpeg' } });
    });

  it('saveTo never writes through a file or symlink already at <path>.part', async () => {
    server.use(chunked(4));
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'precious');
    const path = join(dir, 'x.jpg');
    await symlink(victim, `${path}.part`);
    const file = await gw().media.download('m1', { phoneNumberId: 'p1' });
    expect(await file.saveTo(path)).toBe(4 * 4096);
    expect(await readFile(victim, 'utf8')).toBe('precious');
    expect((await lstat(path)).isFile()).toBe(true);
    expect((await readFile(path)).byteLength).toBe(4 * 4096);
  });

  it('two saveTo to one path both complete, and leave the whole file and nothing else', async () => {
    server.use(chunked(8));
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const path = join(dir, 'same.jpg');
    const [a, b] = await Promise.all([
      gw().media.download('m1', { phoneNumberId: 'p1' }),
      gw().media.download('m1', { phoneNumberId: 'p1' }),
    ]);
    expect(await Promise.all([a.saveTo(path), b.saveTo(path)])).toEqual([8 * 4096, 8 * 4096]);
    expect((await readFile(path)).byteLength).toBe(8 * 4096);
    expect(await readdir(dir)).toEqual(['same.jpg']);
  });

  it('arrayBuffer and saveTo stop past maxBytes with InvalidResponseError, leaving no file', async () => {
    server.use(chunked(4));
    const small = { phoneNumberId: 'p1', maxBytes: 3 * 4096 };
    const e = await (await gw().media.download('m1', small)).arrayBuffer().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect((e as Error).message).toMatch(/over maxBytes \(12288\)/);
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const file = await gw().media.download('m1', small);
    await expect(file.saveTo(join(dir, 'big.pdf'))).rejects.toBeInstanceOf(InvalidResponseError);
    expect(await readdir(dir)).toEqual([]);
    // Exactly maxBytes is fine.
    const whole = await gw().media.download('m1', { phoneNumberId: 'p1', maxBytes: 4 * 4096 });
    expect((await whole.arrayBuffer()).byteLength).toBe(4 * 4096);
  });

  it('a Content-Length over maxBytes fails before the body is read; a bad maxBytes is refused', async () => {
    server.use(
      http.get(
        `${GW}/v1/wa/media/:id`,
        () => new HttpResponse(bytes, { headers: { 'content-length': String(bytes.byteLength) } }),
      ),
    );
    const file = await gw().media.download('m1', { phoneNumberId: 'p1', maxBytes: 100 });
    await expect(file.arrayBuffer()).rejects.toThrow(/4096 bytes \(Content-Length\), over maxBytes \(100\)/);
    await expect(gw().media.download('m1', { phoneNumberId: 'p1', maxBytes: 0 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });

  it('timeoutMs covers the body: a body that trickles for ever ends in TimeoutError', async () => {
    server.use(
      http.get(`${GW}/v1/wa/media/:id`, () => {
        let timer: ReturnType<typeof setInterval> | undefined;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            timer = setInterval(() => c.enqueue(new Uint8Array(1)), 20);
          },
          cancel: () => clearInterval(timer),
        });
        return new HttpResponse(body, { headers: { 'content-type': 'application/pdf' } });
      }),
    );
    const file = await gw().media.download('m1', { phoneNumberId: 'p1', timeoutMs: 300 });
    const e = await file.arrayBuffer().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).timeoutMs).toBe(300);
  });

  // A lone surrogate made encodeURIComponent throw a bare URIError: 'URI malformed'.
  it.each(['.', '..', '\ud800', 'media-\udc00'])('refuses the media id %j before any request', async (id) => {
    const { error, requests } = await refusal(() => gw().media.download(id, { phoneNumberId: 'p' }));
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).issues).toMatchObject([
      { path: ['mediaId'], rule: 'mediaId.format', message: expect.stringMatching(/: give the media id/) },
    ]);
    expect(requests).toBe(0);
  });

  it('refuses a phoneNumberId with a lone surrogate before any request (the query would carry U+FFFD)', async () => {
    const { error, requests } = await refusal(() =>
      gw().media.download('m', { phoneNumberId: '1065\ud800' }),
    );
    expect(error).toBeInstanceOf(MessageValidationError);
    expect((error as MessageValidationError).issues).toMatchObject([
      { path: ['query', 'phone_number_id'], rule: 'query.format' },
    ]);
    expect(requests).toBe(0);
  });

  it('a second read of the body is a ConfigurationError, not a cut download', async () => {
    server.use(chunked(2));
    const twice = await gw().media.download('m1', { phoneNumberId: 'p1' });
    expect((await twice.arrayBuffer()).byteLength).toBe(2 * 4096);
    await expect(twice.arrayBuffer()).rejects.toThrow(ConfigurationError);
    const read = await gw().media.download('m1', { phoneNumberId: 'p1' });
    const reader = read.body.getReader();
    const dir = await mkdtemp(join(tmpdir(), 'wa-media-'));
    const e = await read.saveTo(join(dir, 'x.jpg')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigurationError);
    expect((e as Error).message).toMatch(/already being read or was read/);
    expect(await readdir(dir)).toEqual([]);
    await reader.cancel();
  });
});
