import { parseArgs } from 'node:util';
import { type DeliveryAttempt, deliverWebhook } from '../testing/deliver.js';
import {
  accountUpdateEnvelope,
  audioMessage,
  buttonReplyMessage,
  contactsMessage,
  documentMessage,
  imageMessage,
  listReplyMessage,
  locationMessage,
  messageEnvelope,
  orderMessage,
  reactionMessage,
  statusEnvelope,
  statusObject,
  stickerMessage,
  templateStatusEnvelope,
  textMessage,
  unknownTypeMessage,
  videoMessage,
} from '../webhooks/fixtures.js';
import type { WebhookEnvelope } from '../webhooks/schemas.js';
import { type CliIo, EXIT, UsageError } from './io.js';

/** Every event `trigger` can send: name → envelope builder. Data, so the help text is made from it too. */
const EVENTS: Readonly<Record<string, (o: { wamid?: string }) => WebhookEnvelope>> = {
  'message.text': () => messageEnvelope(textMessage()),
  'message.image': () => messageEnvelope(imageMessage()),
  'message.audio': () => messageEnvelope(audioMessage()),
  'message.document': () => messageEnvelope(documentMessage()),
  'message.video': () => messageEnvelope(videoMessage()),
  'message.sticker': () => messageEnvelope(stickerMessage()),
  'message.location': () => messageEnvelope(locationMessage()),
  'message.contacts': () => messageEnvelope(contactsMessage()),
  'message.button_reply': () => messageEnvelope(buttonReplyMessage()),
  'message.list_reply': () => messageEnvelope(listReplyMessage()),
  'message.reaction': () => messageEnvelope(reactionMessage()),
  'message.order': () => messageEnvelope(orderMessage()),
  'message.unknown': () => messageEnvelope(unknownTypeMessage()),
  'status.sent': ({ wamid }) => statusEnvelope(statusObject('sent', wamid ? { id: wamid } : {})),
  'status.delivered': ({ wamid }) => statusEnvelope(statusObject('delivered', wamid ? { id: wamid } : {})),
  'status.read': ({ wamid }) => statusEnvelope(statusObject('read', wamid ? { id: wamid } : {})),
  'status.failed': ({ wamid }) => statusEnvelope(statusObject('failed', wamid ? { id: wamid } : {})),
  'template_status.approved': () => templateStatusEnvelope({ event: 'APPROVED' }),
  'template_status.rejected': () => templateStatusEnvelope({ event: 'REJECTED' }),
  'template_status.paused': () => templateStatusEnvelope({ event: 'PAUSED' }),
  account_update: () => accountUpdateEnvelope(),
};

export const usage = `Usage: wa-gateway trigger <event> --url <webhook url> [--secret <secret>] [--wamid <id>] [--json]

Posts a fixture event to your webhook as the gateway would: Authorization: Bearer <secret>, 200 expected
within 5 s, retried at once, after 1 s and after 2 s more on connection errors and 5xx; a 4xx is final.
Prints each attempt. Exit 0 when delivered, 1 when lost or dropped, 2 on a usage error.

  --url      your webhook endpoint (required)
  --secret   the webhook secret (default: $WEBHOOK_SECRET)
  --wamid    the message id a status event carries
  --json     print the attempts as JSON

Events: ${Object.keys(EVENTS).join(', ')}`;

export async function triggerCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      secret: { type: 'string' },
      wamid: { type: 'string' },
      json: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const name = positionals[0];
  if (positionals.length !== 1 || !name) throw new UsageError('trigger takes exactly one <event>.');
  const build = EVENTS[name];
  if (!build)
    throw new UsageError(`unknown <event> '${name}'. Known events: ${Object.keys(EVENTS).join(', ')}.`);
  if (!values.url) throw new UsageError('--url is required: the webhook endpoint to post to.');
  try {
    const url = new URL(values.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new UsageError(`--url is not an http(s) URL: '${values.url}'.`);
  }
  const secret = values.secret ?? io.env['WEBHOOK_SECRET'];
  const envelope = build(values.wamid ? { wamid: values.wamid } : {});
  const attempts = await deliverWebhook(JSON.stringify(envelope), {
    url: values.url,
    ...(secret ? { secret } : {}),
    label: name,
    onAttempt: values.json ? undefined : (a) => io.stdout(`${describe(a)}\n`),
  });
  if (values.json) io.stdout(`${JSON.stringify(attempts, null, 2)}\n`);
  const last = attempts.at(-1);
  if (!values.json && last && last.outcome !== 'delivered') {
    io.stdout(
      last.outcome === 'lost'
        ? 'The gateway does not retry a 4xx: this event would be lost. Answer 5xx for failures you want retried.\n'
        : 'All attempts failed: the gateway would drop this event (ProcessingStatus ERROR).\n',
    );
  }
  return last?.outcome === 'delivered' ? EXIT.ok : EXIT.failed;
}

function describe(a: DeliveryAttempt): string {
  const answer = a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer');
  const next = a.attempt === 1 ? 'retrying in 1 s' : 'retrying in 2 s';
  const outcome = a.outcome === 'retrying' ? next : a.outcome;
  return `attempt ${a.attempt}: ${answer} in ${a.durationMs} ms → ${outcome}`;
}
