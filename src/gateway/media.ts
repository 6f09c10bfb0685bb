import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { type RequestOptions, requestOf } from '../core/call-options.js';
import { ApiError, ConnectionError, EndpointNotLiveError, requireText } from '../core/errors.js';
import { headerValue } from '../core/headers.js';
import type { Transport } from '../core/transport.js';
import { dispositionFilename } from './content-disposition.js';

export interface DownloadOptions extends RequestOptions {
  /** `value.metadata.phone_number_id` of the webhook event that carried the media id. Required. */
  phoneNumberId: string;
  /** Time allowed until the answer's headers arrive. The body then streams at its own pace. */
  timeoutMs?: number;
}

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
  /** The bytes, as a web stream. Read it once: with `arrayBuffer()`, `saveTo()`, or yourself. */
  body: ReadableStream<Uint8Array>;
  /** Reads the whole file into memory. Fine for images; prefer `saveTo` or `body` for 100 MB documents. */
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * Streams the file to disk without buffering it; resolves with the number of bytes written. Writes to
   * `<path>.part` and renames it when complete, so a cut download leaves no truncated file at `path`.
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
   * await file.saveTo(`/tmp/${msg.image.id}.jpg`);
   */
  download(mediaId: string, options: DownloadOptions): ApiPromise<MediaDownload> {
    return apiPromise(() => this.#download(mediaId, options));
  }

  async #download(mediaId: string, options: DownloadOptions): Promise<WithResponse<MediaDownload>> {
    requireText(
      'media.download',
      'mediaId',
      mediaId,
      'the media id (image.id, audio.id, ... of an incoming message)',
    );
    requireText(
      'media.download',
      'phoneNumberId',
      options?.phoneNumberId,
      'options.phoneNumberId, the value.metadata.phone_number_id of the event that carried the media',
    );
    let opened: { response: Response; attempts: number };
    try {
      opened = await this.#transport.open({
        method: 'GET',
        path: `/v1/wa/media/${encodeURIComponent(mediaId)}`,
        query: { phone_number_id: options.phoneNumberId },
        ...requestOf(options),
        accept: '*/*',
      });
    } catch (error) {
      throw explainNotLive(error);
    }
    return {
      data: toDownload(opened.response, options.signal),
      response: responseInfo(opened.response, opened.attempts),
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

function toDownload(response: Response, signal: AbortSignal | undefined): MediaDownload {
  const { headers } = response;
  const length = headerValue(headers, 'content-length');
  const body = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  return {
    contentType: headerValue(headers, 'content-type') ?? 'application/octet-stream',
    contentLength: length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined,
    filename: dispositionFilename(headers.get('content-disposition')),
    body,
    arrayBuffer: () => readBody(() => new Response(body).arrayBuffer(), signal),
    saveTo: (path) => readBody(() => saveStream(body, path), signal),
  };
}

async function readBody<T>(read: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // The caller's abort rejects with the caller's reason, whatever the stream or the file system made of it.
    if (signal?.aborted) throw signal.reason;
    // The caller's abort, and file-system errors of saveTo (EACCES, ENOSPC: they carry a syscall), pass as-is.
    if (error instanceof ConnectionError || (error instanceof Error && error.name === 'AbortError'))
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
  const [{ createWriteStream }, { rename, rm }, { Readable }, { pipeline }] = await Promise.all([
    import('node:fs'),
    import('node:fs/promises'),
    import('node:stream'),
    import('node:stream/promises'),
  ]);
  // Written beside the target and renamed when complete: a cut download never leaves a truncated file
  // under the final name for another process to pick up.
  const partial = `${path}.part`;
  const file = createWriteStream(partial);
  try {
    await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), file);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true }).catch(() => {});
    throw error;
  }
  return file.bytesWritten;
}
