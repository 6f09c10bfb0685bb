/**
 * Saving the media a user sent (an image, a voice note, a document) to disk, from the incoming-message event.
 *
 * Shows: `media.download(id, { phoneNumberId })` with the `phone_number_id` of the event's metadata, `saveTo`
 * streaming to disk (a 100 MB document is never held in memory), a file name that is safe, a partial file that
 * never looks complete, and the three outcomes worth telling apart: saved, the endpoint not live yet (keep the id
 * and try later: ids live 30 days), and the media gone (expired or unknown id).
 *
 * Call it from your queue's consumer, not inside the webhook handler: a large file does not download within the
 * gateway's 5 seconds, and the handler would answer 503 and get the event again.
 *
 * Run:  GATEWAY_API_KEY=... GATEWAY_BASE_URL=https://gw.example.com \
 *         npx tsx examples/download-media-to-file.ts webhook-body.json ./media
 *       (webhook-body.json: a delivery body as your endpoint received it)
 *
 * In your app, import from 'wa-gateway-sdk' and 'wa-gateway-sdk/webhooks' instead of '../src/...'.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EndpointNotLiveError, GatewayClient, type MediaDownload, NotFoundError } from '../src/index.js';
import { type MessageEvent, parseWebhook } from '../src/webhooks/index.js';

export type SaveOutcome =
  | { saved: true; path: string; bytes: number; contentType: string }
  | { saved: false; reason: 'no_media' | 'not_live' | 'gone' };

/** The media id of an incoming message, for every type that carries one. */
function mediaIdOf(event: MessageEvent): string | undefined {
  const m = event.message;
  switch (m.type) {
    case 'image':
      return m.image.id;
    case 'audio':
      return m.audio.id;
    case 'document':
      return m.document.id;
    case 'video':
      return m.video.id;
    case 'sticker':
      return m.sticker.id;
    default:
      return undefined;
  }
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'audio/ogg': '.ogg',
  'audio/mpeg': '.mp3',
  'audio/aac': '.aac',
  'audio/amr': '.amr',
  'video/mp4': '.mp4',
  'video/3gpp': '.3gp',
  'application/pdf': '.pdf',
};

export async function saveIncomingMedia(
  gw: GatewayClient,
  event: MessageEvent,
  dir: string,
): Promise<SaveOutcome> {
  const mediaId = mediaIdOf(event);
  const phoneNumberId = event.metadata?.phone_number_id;
  if (mediaId === undefined || phoneNumberId === undefined) return { saved: false, reason: 'no_media' };

  let file: MediaDownload;
  try {
    file = await gw.media.download(mediaId, { phoneNumberId });
  } catch (error) {
    // While the gateway does not serve downloads yet (404 without a code, or 501).
    if (error instanceof EndpointNotLiveError) return { saved: false, reason: 'not_live' };
    // Expired (ids live 30 days) or never existed: retrying will not bring it back; ask the sender again.
    if (error instanceof NotFoundError) return { saved: false, reason: 'gone' };
    // Auth, a cut connection, a 5xx (already retried by the SDK, a download is safe to repeat): let the queue
    // retry the job later.
    throw error;
  }

  // The name comes from the media id, never from the sender's document file name, which is user input
  // ('../../.ssh/authorized_keys'). Ids are opaque: keep safe characters only.
  const extension = EXTENSIONS[file.contentType.split(';')[0]!.trim()] ?? '';
  const target = join(dir, `${mediaId.replace(/[^\w.-]/g, '_')}${extension}`);
  // saveTo writes `<target>.part` and renames it when complete: a cut download leaves nothing at `target`.
  const bytes = await file.saveTo(target);
  return { saved: true, path: target, bytes, contentType: file.contentType };
}

export async function main(options: {
  baseUrl: string;
  apiKey: string;
  event: MessageEvent;
  dir: string;
}): Promise<SaveOutcome> {
  const gw = new GatewayClient({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  await mkdir(options.dir, { recursive: true });
  return saveIncomingMedia(gw, options.event, options.dir);
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const [bodyFile, dir = './media'] = process.argv.slice(2);
  const apiKey = process.env['GATEWAY_API_KEY'];
  const baseUrl = process.env['GATEWAY_BASE_URL'];
  if (!bodyFile || !apiKey || !baseUrl) {
    console.error(
      'Usage: GATEWAY_API_KEY=... GATEWAY_BASE_URL=... npx tsx examples/download-media-to-file.ts <body.json> [dir]',
    );
    process.exit(2);
  }
  for (const event of parseWebhook(await readFile(bodyFile, 'utf8'))) {
    if (event.kind !== 'message') continue;
    const outcome = await main({ baseUrl, apiKey, event, dir });
    if (outcome.saved) console.log(`saved ${outcome.path} (${outcome.contentType}, ${outcome.bytes} bytes)`);
    else if (outcome.reason === 'not_live')
      console.log('media download is not live on this gateway yet: keep the id and try again later');
    else if (outcome.reason === 'gone')
      console.log('media expired or unknown: ask the sender to send it again');
  }
}
