import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import {
  ApiError,
  ConfigurationError,
  ConnectionError,
  EndpointNotLiveError,
  InvalidResponseError,
  requireText,
  WaGatewayError,
} from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { headerValue } from '../core/headers.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { idSegment } from '../core/request-path.js';
import type { Transport } from '../core/transport.js';
import { dispositionFilename } from './content-disposition.js';

export interface DownloadOptions extends RequestOptions {
  /** `value.metadata.phone_number_id` of the webhook event that carried the media id. Required. */
  phoneNumberId: string;
  /**
   * Time allowed for the whole download, per attempt: the answer's headers and then its body, whether read by
   * `arrayBuffer()`, `saveTo()` or yourself from `body` (a server that trickles bytes ends in `TimeoutError`).
   * Default: the client's `timeoutMs`; raise it for large documents on slow links.
   */
  timeoutMs?: number | undefined;
  /**
   * The most bytes `arrayBuffer()` and `saveTo()` take before they fail with `InvalidResponseError` (the rest is
   * not read). Default 100 MiB, the gateway's largest media (a document); the smallest is a 500 KB sticker.
   */
  maxBytes?: number | undefined;
}

/** `download`'s options, every one (see `OptionKeys`). */
const DOWNLOAD_KEY_LIST = [...REQUEST_KEYS, 'phoneNumberId', 'maxBytes'] as const;
const downloadKeys: OptionKeys<DownloadOptions, typeof DOWNLOAD_KEY_LIST> = DOWNLOAD_KEY_LIST;

/** The spec's largest media file: a 100 MB document. */
const MAX_MEDIA_BYTES = 100 * 1024 * 1024;

/** A media file being downloaded. The body is a stream: nothing is buffered unless you ask. */
export interface MediaDownload {
  /** `Content-Type` of the answer, e.g. `image/jpeg`, `audio/ogg`, `application/pdf`. */
  contentType: string;
  /** `Content-Length` when the server sent one. */
  contentLength: number | undefined;
  /**
   * The file name from `Content-Disposition` (RFC 6266: `filename*` in UTF-8 or ISO-8859-1 first, then
   * `filename`), when the server sent one. Only its last path segment is kept, without control or bidi
   * characters; it still comes from the user who sent the file, so never use it as a path: take at most its
   * extension.
   */
  filename: string | undefined;
  /**
   * The bytes, as a web stream. Read it once: with `arrayBuffer()`, `saveTo()`, or yourself (a second read is a
   * `ConfigurationError`).
   */
  body: ReadableStream<Uint8Array>;
  /** Reads the whole file into memory. Fine for images; prefer `saveTo` or `body` for 100 MB documents. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * Streams the file to disk without buffering it; resolves with the number of bytes written. Writes to a new
   * file of its own beside `path` (`<path>.<random>.part`, created exclusively: a file or link already there is
   * never written through) and renames it to `path` when complete, so a cut download leaves no truncated file at
   * `path`, and two downloads to one path each complete (the last one wins). A failure removes that file.
   */
  saveTo(path: string): Promise<number>;
}

const ENDPOINT = 'GET /v1/wa/media/{media_id}';

/** The gateway's media resource: `GET /v1/wa/media/{media_id}`. */
export class Media {
  readonly #transport: Transport;

  /** @internal */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Downloads media a user sent (`image.id`, `audio.id`, `document.id`, ... of an incoming message; ids live
   * 30 days). Streams: a 100 MB document is never held in memory unless you call `arrayBuffer()`.
   *
   * The gateway announces this endpoint as under development: while it is not live, a 404 without an error
   * code or a 501 becomes an `EndpointNotLiveError` (an expired or unknown media id stays a `NotFoundError`).
   *
   * @example
   * const file = await gw.media.download(msg.image.id, { phoneNumberId: event.metadata.phone_number_id });
   * await file.saveTo(`/var/media/${msg.image.id}.jpg`); // a directory of your own, not a shared /tmp
   */
  download(mediaId: string, options: DownloadOptions): ApiPromise<MediaDownload> {
    return apiPromise(() => this.#download(mediaId, options), this.#transport);
  }

  async #download(mediaId: string, options: DownloadOptions): Promise<WithResponse<MediaDownload>> {
    // A URL resolves `.` and `..` as path segments (`/v1/wa/media/..` would send the key to another endpoint), and
    // no URL can carry a lone surrogate.
    const segment = idSegment(
      'media.download',
      'mediaId',
      mediaId,
      'the media id (image.id, audio.id, ... of an incoming message)',
    );
    // Before any other option is read: `phone_number_id` (the webhook's spelling) is named as the option meant,
    // and a call without options says what it needs, not a TypeError.
    refuseNearMisses(options, downloadKeys, 'media.download');
    requireText(
      'media.download',
      'phoneNumberId',
      options?.phoneNumberId,
      'options.phoneNumberId, the value.metadata.phone_number_id of the event that carried the media',
    );
    const maxBytes = options.maxBytes ?? MAX_MEDIA_BYTES;
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
      throw new ConfigurationError(
        `maxBytes must be a whole number of bytes ≥ 1; got ${givenValue(maxBytes)}.`,
      );
    }
    let opened: { response: Response; attempts: number; call: number };
    try {
      opened = await this.#transport.open({
        method: 'GET',
        path: `/v1/wa/media/${segment}`,
        query: { phone_number_id: options.phoneNumberId },
        ...requestOf(options),
        accept: '*/*',
        timeoutCoversBody: true,
      });
    } catch (error) {
      throw explainNotLive(error);
    }
    return {
      data: toDownload(opened.response, options.signal, maxBytes),
      response: responseInfo(opened.response, opened.attempts, opened.call),
    };
  }
}

function explainNotLive(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const notLive = (error.status === 404 && error.code === null) || error.status === 501;
  if (!notLive) return error;
  return new EndpointNotLiveError(
    error.details,
    `${ENDPOINT} answered ${error.status} without a gateway error code. The gateway announces media download ` +
      'as under development: this gateway may not serve it yet.',
  );
}

function toDownload(response: Response, signal: AbortSignal | undefined, maxBytes: number): MediaDownload {
  const { headers } = response;
  const length = headerValue(headers, 'content-length');
  const contentLength = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
  const body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  let taken = false;
  // The body, once, capped at `maxBytes`: a second read would otherwise look like a cut download.
  const take = (call: string): ReadableStream<Uint8Array> => {
    if (taken || body.locked) {
      throw new ConfigurationError(
        `${call}: this download's body is already being read or was read. It is read once, by arrayBuffer(), ` +
          'saveTo() or from body; download the media again to read it again.',
      );
    }
    taken = true;
    return capped(body, maxBytes, contentLength);
  };
  return {
    contentType: headerValue(headers, 'content-type') ?? 'application/octet-stream',
    contentLength,
    filename: dispositionFilename(headers.get('content-disposition')),
    body,
    arrayBuffer: () => readBody(() => new Response(take('arrayBuffer()')).arrayBuffer(), signal),
    saveTo: (path) => readBody(() => saveStream(take('saveTo()'), path), signal),
  };
}

/** `body`, failing with `InvalidResponseError` past `maxBytes` (at once when `Content-Length` says so). */
function capped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  contentLength: number | undefined,
): ReadableStream<Uint8Array> {
  const tooLarge = (seen: string) =>
    new InvalidResponseError(
      `${ENDPOINT} answered with a file of ${seen}, over maxBytes (${maxBytes}); the rest was not read. Pass a ` +
        'larger maxBytes to download it.',
      { status: 200, bodyExcerpt: '', request: { method: 'GET', path: '/v1/wa/media/{media_id}' } },
    );
  if (contentLength !== undefined && contentLength > maxBytes) {
    body.cancel().catch(() => {});
    throw tooLarge(`${contentLength} bytes (Content-Length)`);
  }
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) controller.error(tooLarge(`more than ${maxBytes} bytes`));
        else controller.enqueue(chunk);
      },
    }),
  );
}

async function readBody<T>(read: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // The caller's abort rejects with the caller's reason, whatever the stream or the file system made of it.
    if (signal?.aborted) throw signal.reason;
    // The SDK's own errors (a timeout, a cut, maxBytes, a second read), the caller's abort, and file-system errors
    // of saveTo (EACCES, ENOSPC: they carry a syscall) pass as they are.
    if (error instanceof WaGatewayError || (error instanceof Error && error.name === 'AbortError'))
      throw error;
    if (typeof error === 'object' && error !== null && 'syscall' in error) throw error;
    throw new ConnectionError(`The media download was cut before the file was complete (${ENDPOINT}).`, {
      mayHaveBeenSent: true,
    });
  }
}

async function saveStream(body: ReadableStream<Uint8Array>, path: string): Promise<number> {
  // Loaded on use only: the rest of the gateway client does not need the file system. Node's own pipeline
  // keeps back pressure from the disk to the socket; `Writable.toWeb` on Node 20 does not, and buffered
  // most of a 50 MB file in memory when the disk was slower than loopback.
  const [{ createWriteStream }, { rename, rm }, { Readable }, { pipeline }, { randomBytes }] =
    await Promise.all([
      import('node:fs'),
      import('node:fs/promises'),
      import('node:stream'),
      import('node:stream/promises'),
      import('node:crypto'),
    ]);
  // Written beside the target and renamed when complete: a cut download never leaves a truncated file under the
  // final name for another process to pick up. The name is this download's own and created exclusively (`wx`:
  // O_CREAT | O_EXCL, which also refuses a symlink planted there), so nothing else is ever written through.
  const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
  const file = createWriteStream(partial, { flags: 'wx' });
  try {
    await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), file);
    await rename(partial, path);
  } catch (error) {
    // Not ours to remove when another file was already there (EEXIST): the open failed before creating it.
    if ((error as { code?: unknown }).code !== 'EEXIST') await rm(partial, { force: true }).catch(() => {});
    throw error;
  }
  return file.bytesWritten;
}
