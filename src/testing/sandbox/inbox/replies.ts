/** The page's customer actions (replies, taps, reactions, files, locations) turned into incoming messages. */
import { createHash, randomBytes } from 'node:crypto';
import {
  audioMessage,
  buttonMessage,
  buttonReplyMessage,
  documentMessage,
  fixtureId,
  imageMessage,
  listReplyMessage,
  locationMessage,
  reactionMessage,
  textMessage,
} from '../../webhook-fixtures.js';
import type { Sandbox } from '../types.js';
import type { ReplyRequest } from './protocol.js';

/** Media the page may show inline: the types the spec allows for images, served as exactly that type. */
export const INLINE_IMAGE = new Set(['image/jpeg', 'image/png']);
export const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

/** Files the customer sent, by media id: the page shows the images back. */
export type Uploads = Map<string, { contentType: string; bytes: Buffer }>;

/** Injects the customer's message into the sandbox; answers its id. */
export function reply(sandbox: Sandbox, uploads: Uploads, request: ReplyRequest): string {
  const id = fixtureId('wamid.SBXIN');
  const base = { from: request.from, id, timestamp: String(Math.floor(Date.now() / 1000)) };
  let message: Record<string, unknown>;
  switch (request.kind) {
    case 'text':
      message = textMessage({ ...base, text: { body: request.text } });
      break;
    case 'button':
      message = buttonReplyMessage({ id: request.id, title: request.title }, base);
      break;
    case 'quick_reply':
      message = buttonMessage(
        { payload: request.payload, text: request.text },
        { ...base, context: { id: request.messageId } },
      );
      break;
    case 'list':
      message = listReplyMessage(
        {
          id: request.id,
          title: request.title,
          ...(request.description === undefined ? {} : { description: request.description }),
        },
        base,
      );
      if (request.description === undefined)
        delete (message['interactive'] as { list_reply: { description?: string } }).list_reply.description;
      break;
    case 'reaction':
      message = reactionMessage({ message_id: request.messageId, emoji: request.emoji }, base);
      break;
    case 'location': {
      const { latitude, longitude, name, address } = request;
      message = locationMessage({
        ...base,
        location: {
          latitude,
          longitude,
          ...(name ? { name } : {}),
          ...(address ? { address } : {}),
        },
      });
      break;
    }
    case 'media':
      message = mediaMessage(sandbox, uploads, request, base);
      break;
  }
  // Built from a request the schema checked, so a delivery: a refusal would be a bug here, never a crash.
  sandbox.injectMessage(message).catch(() => undefined);
  return id;
}

function mediaMessage(
  sandbox: Sandbox,
  uploads: Uploads,
  request: Extract<ReplyRequest, { kind: 'media' }>,
  base: { from: string; id: string; timestamp: string },
): Record<string, unknown> {
  const bytes = Buffer.from(request.data, 'base64');
  const mediaId = `sbxmedia${randomBytes(8).toString('hex')}`;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  sandbox.simulator.addMedia(mediaId, { contentType: request.mimeType, body: new Uint8Array(bytes) });
  uploads.set(mediaId, { contentType: request.mimeType, bytes });
  const caption = request.caption ? { caption: request.caption } : {};
  if (INLINE_IMAGE.has(request.mimeType))
    return imageMessage({
      ...base,
      image: { id: mediaId, mime_type: request.mimeType, sha256, ...caption },
    });
  if (request.mimeType.startsWith('audio/'))
    return audioMessage({
      ...base,
      audio: { id: mediaId, mime_type: request.mimeType, sha256, voice: false },
    });
  return documentMessage({
    ...base,
    document: { id: mediaId, filename: request.filename, mime_type: request.mimeType, sha256, ...caption },
  });
}
