import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { attemptAnswer } from '../testing/attempt-answer.js';
import { type DeliveryAttempt, deliverWebhook, requireWebhookUrl } from '../testing/deliver.js';
import {
  accountUpdateEnvelope,
  audioMessage,
  buttonMessage,
  buttonReplyMessage,
  contactsMessage,
  documentMessage,
  fixtureTimestamp,
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
import { deliveryAdvice } from './delivery-advice.js';
import { asUsage, type CliIo, EXIT, interruption, UsageError } from './io.js';
import { parseIsoTime } from './iso-time.js';
import { printable } from './printable.js';
import { readSecret } from './secret-input.js';

/** What a message or status event carries that each run chooses: its message id and its time (Unix seconds). */
type Stamp = { id: string; timestamp: string };

/**
 * The message events, keyed by the webhook table's types (`messageSchemas` in src/webhooks/messages/index.ts): a
 * type added there does not compile until it has its trigger here. Each names its events (`message.<name>`, two for
 * `interactive`'s replies) and builds the message carrying the given id and time.
 */
const MESSAGE_EVENTS: {
  readonly [K in KnownMessageType]: Readonly<Record<string, (stamp: Stamp) => KnownMessage>>;
} = {
  text: { text: (s) => textMessage(s) },
  image: { image: (s) => imageMessage(s) },
  audio: { audio: (s) => audioMessage(s) },
  document: { document: (s) => documentMessage(s) },
  video: { video: (s) => videoMessage(s) },
  sticker: { sticker: (s) => stickerMessage(s) },
  location: { location: (s) => locationMessage(s) },
  contacts: { contacts: (s) => contactsMessage(s) },
  interactive: {
    button_reply: (s) => buttonReplyMessage({}, s),
    list_reply: (s) => listReplyMessage({}, s),
  },
  reaction: { reaction: (s) => reactionMessage({}, s) },
  order: { order: (s) => orderMessage(s) },
  button: { button: (s) => buttonMessage({}, s) },
};

/** `MESSAGE_EVENTS` as `message.<name>` → envelope builder, in the table's order. */
function messageEvents(): Record<string, (stamp: Stamp) => WebhookEnvelope> {
  return Object.fromEntries(
    Object.values(MESSAGE_EVENTS).flatMap((named) =>
      Object.entries(named).map(([name, build]) => [
        `message.${name}`,
        (stamp: Stamp) => messageEnvelope(build(stamp)),
      ]),
    ),
  );
}

/**
 * Every event `trigger` can send: name → envelope builder, given the message id to carry (fresh per run unless
 * `--wamid` sets it; a fixed default would make every trigger after the first a duplicate the receiver skips) and
 * the time (now unless `--timestamp` sets it: a message from the past is outside the 24-hour window, and a bot
 * guarding it refuses every reply). Template and account builders ignore both. Data, so the help text and the
 * event table of docs/cli.md are made from it too.
 */
const EVENTS: Readonly<Record<string, (stamp: Stamp) => WebhookEnvelope>> = {
  ...messageEvents(),
  'message.unknown': (s) => messageEnvelope({ ...unknownTypeMessage(), ...s }),
  'status.sent': (s) => statusEnvelope(statusObject('sent', s)),
  'status.delivered': (s) => statusEnvelope(statusObject('delivered', s)),
  'status.read': (s) => statusEnvelope(statusObject('read', s)),
  'status.failed': (s) => statusEnvelope(statusObject('failed', s)),
  'template_status.approved': () => templateStatusEnvelope({ event: 'APPROVED' }),
  'template_status.rejected': () => templateStatusEnvelope({ event: 'REJECTED' }),
  'template_status.paused': () => templateStatusEnvelope({ event: 'PAUSED' }),
  account_update: () => accountUpdateEnvelope(),
};

/** What an event name does not say by itself. */
const NOTES: Readonly<Record<string, string>> = {
  'message.button': "a tap on a template's quick-reply button",
  'message.unknown': 'a type the SDK does not know, such as a poll',
};

/** The groups the events are listed in, by the start of their names. */
const GROUPS: readonly (readonly [prefix: string, group: string])[] = [
  ['message.', 'incoming messages'],
  ['status.', 'statuses'],
  ['template_status.', 'templates'],
  ['account_update', 'account'],
  // A new change field's event, until it has its group: listed, never left out of --help.
  ['', 'other'],
];

/**
 * Every event `trigger` takes, grouped, with a note where the name needs one: what `--help` prints and what the
 * event table of docs/cli.md must show (test/docs/cli-tables.test.ts holds them equal).
 */
export const TRIGGER_EVENT_GROUPS: readonly {
  group: string;
  events: readonly { name: string; note?: string }[];
}[] = GROUPS.map(([prefix, group]) => ({
  group,
  events: Object.keys(EVENTS)
    .filter((name) => GROUPS.find(([p]) => name.startsWith(p))?.[0] === prefix)
    .map((name) => (NOTES[name] ? { name, note: NOTES[name] } : { name })),
})).filter((g) => g.events.length > 0);

const TRIGGER_EVENTS = Object.keys(EVENTS);

/** The events by group, each group's names wrapped to lines of at most 110 characters. */
function eventsHelp(): string {
  const width = Math.max(...GROUPS.map(([, group]) => group.length));
  const indent = ' '.repeat(width + 4);
  return TRIGGER_EVENT_GROUPS.map(({ group, events }) => {
    const lines: string[] = [];
    let line = `  ${group.padEnd(width)} `;
    events.forEach((e, i) => {
      const name = i < events.length - 1 ? `${e.name},` : e.name;
      if (line.length + 1 + name.length > 110 && i > 0) {
        lines.push(line);
        line = indent.slice(1);
      }
      line += ` ${name}`;
    });
    return [...lines, line].join('\n');
  }).join('\n');
}

/** Template and account events carry no message id: receivers dedupe them on their content. */
const carriesId = (event: string) => event.startsWith('message.') || event.startsWith('status.');

/** An id in the gateway's `wamid.` form, new on every call. */
const freshWamid = () => `wamid.TRIGGER${randomUUID().replaceAll('-', '').toUpperCase()}`;

export const usage = `Usage: wa-gateway trigger <event> --url <webhook url> [--secret-file <path>] [--wamid <id>] [--timestamp <time>] [--json]

Posts a fixture event to your webhook as the gateway would: Authorization: Bearer <secret>, 200 expected
within 5 s, retried at once, after 1 s and after 2 s more on connection errors and 5xx; a 4xx is final.
Prints each attempt. Exit 0 when delivered, 1 when lost or dropped, 2 on a usage error.

  --url          your webhook endpoint (required)
  --secret-file  a file holding the webhook secret (default: the secret in $WEBHOOK_SECRET). A secret is
                 never taken as a flag's value (--secret is refused): arguments show in ps and shell history
  --wamid        the message id the event carries (message.* and status.*); default: a new one each run,
                 so the receiver never skips the event as a duplicate. Repeat an id to test your deduplication
  --timestamp    the time the event carries (message.* and status.*): Unix seconds or an ISO date-time
                 (2024-05-01T09:00:00Z); default: now. A message older than 24 hours is outside the service
                 window: a bot guarding it may answer only with a template
  --json         print the attempts as JSON

Events:
${eventsHelp()}`;

export const options = {
  url: { type: 'string' },
  'secret-file': { type: 'string' },
  // Refused with a reason (secret-input.ts), not unknown: a user who types it learns what to use instead.
  secret: { type: 'string' },
  wamid: { type: 'string' },
  timestamp: { type: 'string' },
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
  if (!build) throw new UsageError(`unknown <event> '${name}'. Known events: ${TRIGGER_EVENTS.join(', ')}.`);
  if (!values.url) throw new UsageError('--url is required: the webhook endpoint to post to.');
  const url = asUsage(() => requireWebhookUrl(values.url, '--url'));
  for (const flag of ['wamid', 'timestamp'] as const) {
    if (values[flag] !== undefined && !carriesId(name)) {
      throw new UsageError(
        `--${flag} applies to message.* and status.* events; '${name}' carries no message ${flag === 'wamid' ? 'id' : 'time'}.`,
      );
    }
  }
  const timestamp = values.timestamp === undefined ? fixtureTimestamp() : parseTimestamp(values.timestamp);
  const { secret, from: secretFrom } = await readSecret(
    {
      flag: '--secret',
      given: values.secret,
      fileFlag: '--secret-file',
      file: values['secret-file'],
      env: 'WEBHOOK_SECRET',
    },
    io.env,
  );
  if (!secret) {
    io.stderr(
      'warning: no $WEBHOOK_SECRET and no --secret-file: posting without an Authorization header, which a ' +
        'receiver checking the secret answers 401.\n',
    );
  }
  const stamp = { id: values.wamid ?? freshWamid(), timestamp };
  const envelope = build(stamp);
  // Without an id, the receiver dedupes on the content: a fresh entry time makes each run a new event.
  if (!carriesId(name)) envelope.entry[0]!['time'] = Math.floor(Date.now() / 1000);
  const signal = interruption(io);
  const attempts = await deliverWebhook(JSON.stringify(envelope), {
    url,
    ...(secret ? { secret } : {}),
    label: name,
    ...(carriesId(name) ? { wamid: stamp.id } : {}),
    onAttempt: values.json ? undefined : (a) => io.stdout(`${describe(a)}\n`),
    signal,
  });
  signal.throwIfAborted();
  if (values.json) io.stdout(`${JSON.stringify(attempts, null, 2)}\n`);
  const last = attempts.at(-1);
  if (!values.json && last?.outcome === 'delivered' && values.wamid !== undefined && !last.duplicates) {
    io.stdout(
      'A 200 does not say whether the receiver processed the event or skipped it as a duplicate of an earlier ' +
        `delivery of ${printable(values.wamid)}: it must answer 200 to both. The SDK's webhook handler adds an ` +
        "x-wa-gateway-duplicates header when it skipped one; this answer has none, so a receiver on the SDK's " +
        'handler processed it (onEvent ran), and another receiver may have done either.\n',
    );
  }
  const advice =
    values.json || !last
      ? undefined
      : deliveryAdvice(last, { urlFlag: '--url', secretFileFlag: '--secret-file', secretFrom });
  if (advice) io.stdout(`${advice}\n`);
  return last?.outcome === 'delivered' ? EXIT.ok : EXIT.failed;
}

/** `--timestamp`: Unix seconds as given, or an ISO date-time turned into them. */
function parseTimestamp(value: string): string {
  if (/^\d{1,12}$/.test(value)) return value;
  const ms = parseIsoTime(value);
  if (Number.isNaN(ms)) {
    throw new UsageError(
      `--timestamp takes Unix seconds (1714554000) or an ISO date-time (2024-05-01T09:00:00Z); got '${value}'.`,
    );
  }
  return fixtureTimestamp(ms);
}

function describe(a: DeliveryAttempt): string {
  const answer = attemptAnswer(a);
  const next = a.attempt === 1 ? 'retrying in 1 s' : 'retrying in 2 s';
  const outcome =
    a.outcome === 'retrying'
      ? next
      : a.duplicates
        ? `${a.outcome}, but the receiver says it had already processed this event: onEvent did not run`
        : a.outcome;
  return `attempt ${a.attempt}: ${answer} in ${a.durationMs} ms → ${outcome}`;
}
