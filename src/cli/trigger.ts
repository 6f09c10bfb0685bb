import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type DeliveryAttempt, deliverWebhook } from '../testing/deliver.js';
import {
  accountUpdateEnvelope,
  audioMessage,
  buttonMessage,
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
} from '../testing/webhook-fixtures.js';
import type { KnownMessage, KnownMessageType } from '../webhooks/messages/index.js';
import type { WebhookEnvelope } from '../webhooks/schemas.js';
import { type CliIo, EXIT, UsageError } from './io.js';

/**
 * The message events, keyed by the webhook table's types (`messageSchemas` in src/webhooks/messages/index.ts): a
 * type added there does not compile until it has its trigger here. Each names its events (`message.<name>`, two for
 * `interactive`'s replies) and builds the message carrying the given id.
 */
const MESSAGE_EVENTS: {
  readonly [K in KnownMessageType]: Readonly<Record<string, (id: string) => KnownMessage>>;
} = {
  text: { text: (id) => textMessage({ id }) },
  image: { image: (id) => imageMessage({ id }) },
  audio: { audio: (id) => audioMessage({ id }) },
  document: { document: (id) => documentMessage({ id }) },
  video: { video: (id) => videoMessage({ id }) },
  sticker: { sticker: (id) => stickerMessage({ id }) },
  location: { location: (id) => locationMessage({ id }) },
  contacts: { contacts: (id) => contactsMessage({ id }) },
  interactive: {
    button_reply: (id) => buttonReplyMessage({ id }),
    list_reply: (id) => listReplyMessage({ id }),
  },
  reaction: { reaction: (id) => reactionMessage({}, { id }) },
  order: { order: (id) => orderMessage({ id }) },
  button: { button: (id) => buttonMessage({}, { id }) },
};

/** `MESSAGE_EVENTS` as `message.<name>` → envelope builder, in the table's order. */
function messageEvents(): Record<string, (id: string) => WebhookEnvelope> {
  return Object.fromEntries(
    Object.values(MESSAGE_EVENTS).flatMap((named) =>
      Object.entries(named).map(([name, build]) => [
        `message.${name}`,
        (id: string) => messageEnvelope(build(id)),
      ]),
    ),
  );
}

/**
 * Every event `trigger` can send: name → envelope builder, given the message id to carry (fresh per run unless
 * `--wamid` sets it; a fixed default would make every trigger after the first a duplicate the receiver skips).
 * Template and account builders ignore it. Data, so the help text is made from it too.
 */
const EVENTS: Readonly<Record<string, (id: string) => WebhookEnvelope>> = {
  ...messageEvents(),
  'message.unknown': (id) => messageEnvelope({ ...unknownTypeMessage(), id }),
  'status.sent': (id) => statusEnvelope(statusObject('sent', { id })),
  'status.delivered': (id) => statusEnvelope(statusObject('delivered', { id })),
  'status.read': (id) => statusEnvelope(statusObject('read', { id })),
  'status.failed': (id) => statusEnvelope(statusObject('failed', { id })),
  'template_status.approved': () => templateStatusEnvelope({ event: 'APPROVED' }),
  'template_status.rejected': () => templateStatusEnvelope({ event: 'REJECTED' }),
  'template_status.paused': () => templateStatusEnvelope({ event: 'PAUSED' }),
  account_update: () => accountUpdateEnvelope(),
};

/** Template and account events carry no message id: receivers dedupe them on their content. */
const carriesId = (event: string) => event.startsWith('message.') || event.startsWith('status.');

/** An id in the gateway's `wamid.` form, new on every call. */
const freshWamid = () => `wamid.TRIGGER${randomUUID().replaceAll('-', '').toUpperCase()}`;

export const usage = `Usage: wa-gateway trigger <event> --url <webhook url> [--secret <secret>] [--wamid <id>] [--json]

Posts a fixture event to your webhook as the gateway would: Authorization: Bearer <secret>, 200 expected
within 5 s, retried at once, after 1 s and after 2 s more on connection errors and 5xx; a 4xx is final.
Prints each attempt. Exit 0 when delivered, 1 when lost or dropped, 2 on a usage error.

  --url      your webhook endpoint (required)
  --secret   the webhook secret (default: $WEBHOOK_SECRET)
  --wamid    the message id the event carries (message.* and status.*); default: a new one each run, so
             the receiver never skips the event as a duplicate. Repeat an id to test your deduplication
  --json     print the attempts as JSON

Events: ${Object.keys(EVENTS).join(', ')}`;

export const options = {
  url: { type: 'string' },
  secret: { type: 'string' },
  wamid: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export async function triggerCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options,
    allowPositionals: true,
  });
  const name = positionals[0];
  if (positionals.length !== 1 || !name) throw new UsageError('trigger takes exactly one <event>.');
  const build = EVENTS[name];
  if (!build)
    throw new UsageError(`unknown <event> '${name}'. Known events: ${Object.keys(EVENTS).join(', ')}.`);
  if (!values.url) throw new UsageError('--url is required: the webhook endpoint to post to.');
  const protocol = URL.canParse(values.url) ? new URL(values.url).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new UsageError(`--url is not an http(s) URL: '${values.url}'.`);
  if (values.wamid !== undefined && !carriesId(name)) {
    throw new UsageError(
      `--wamid applies to message.* and status.* events; '${name}' carries no message id.`,
    );
  }
  const secret = values.secret ?? io.env['WEBHOOK_SECRET'];
  const secretFrom = values.secret !== undefined ? '--secret' : '$WEBHOOK_SECRET';
  if (!secret) {
    io.stderr(
      'warning: no --secret and no $WEBHOOK_SECRET: posting without an Authorization header, which a receiver ' +
        'checking the secret answers 401.\n',
    );
  }
  const envelope = build(values.wamid ?? freshWamid());
  // Without an id, the receiver dedupes on the content: a fresh entry time makes each run a new event.
  if (!carriesId(name)) envelope.entry[0]!['time'] = Math.floor(Date.now() / 1000);
  const attempts = await deliverWebhook(JSON.stringify(envelope), {
    url: values.url,
    ...(secret ? { secret } : {}),
    label: name,
    onAttempt: values.json ? undefined : (a) => io.stdout(`${describe(a)}\n`),
  });
  if (values.json) io.stdout(`${JSON.stringify(attempts, null, 2)}\n`);
  const last = attempts.at(-1);
  if (!values.json && last?.outcome === 'delivered' && values.wamid !== undefined && !last.duplicates) {
    io.stdout(
      'A 200 does not say whether the receiver processed the event or skipped it as a duplicate of an earlier ' +
        `delivery of ${values.wamid}: it must answer 200 to both. The SDK's webhook handler adds an ` +
        "x-wa-gateway-duplicates header when it skipped one; this answer has none, so a receiver on the SDK's " +
        'handler processed it (onEvent ran), and another receiver may have done either.\n',
    );
  }
  if (!values.json && last && last.outcome !== 'delivered') {
    io.stdout(
      last.outcome === 'lost'
        ? lostAdvice(last.status, secret ? secretFrom : undefined)
        : 'All attempts failed: the gateway would drop this event (ProcessingStatus ERROR).\n',
    );
  }
  return last?.outcome === 'delivered' ? EXIT.ok : EXIT.failed;
}

/**
 * What to do about a 4xx, by status: a 401 is about the secret (none was sent, or another one), a 404 or 405 about
 * the URL; any other 4xx about the receiver's choice of status.
 */
function lostAdvice(status: number | undefined, secretFrom: string | undefined): string {
  const lost = 'The gateway does not retry a 4xx: this event would be lost.';
  if (status === 401) {
    return secretFrom === undefined
      ? `${lost} The receiver wants the webhook secret: pass --secret <secret> or set $WEBHOOK_SECRET to the ` +
          "secret the receiver's handler checks.\n"
      : `${lost} The receiver refused the secret from ${secretFrom}: it must be the one the receiver's handler ` +
          "checks (its `secret`, often $WEBHOOK_SECRET in the receiver's environment). A receiver on the SDK's " +
          "handler logs whether the header was missing, malformed or another secret, and answers it as the body's " +
          '`error`.\n';
  }
  if (status === 404 || status === 405) {
    return `${lost} The receiver has no POST route at --url: check its path (HTTP ${status}).\n`;
  }
  return `${lost} Answer 5xx for failures you want retried.\n`;
}

function describe(a: DeliveryAttempt): string {
  const answer = a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer');
  const next = a.attempt === 1 ? 'retrying in 1 s' : 'retrying in 2 s';
  const outcome =
    a.outcome === 'retrying'
      ? next
      : a.duplicates
        ? `${a.outcome}, but the receiver says it had already processed this event: onEvent did not run`
        : a.outcome;
  return `attempt ${a.attempt}: ${answer} in ${a.durationMs} ms → ${outcome}`;
}
