/** `wa-gateway say`: write to your bot as a customer, through a running sandbox, and see what it answered. */
import { parseArgs } from 'node:util';
import { isRecord } from '../core/plain-data.js';
import { SENDER_PATTERN } from '../testing/sandbox/inject.js';
import { FIXTURE_SENDER } from '../testing/webhook-fixtures.js';
import { type CliIo, EXIT, interruption, UsageError } from './io.js';
import { printable } from './printable.js';
import { secondsFlag } from './seconds-flag.js';

/**
 * How long `say` waits for the sandbox's answer by default: the sandbox's delivery (three attempts of at most 5 s
 * each, 1 s and 2 s apart: 18 s) fits well within it, with a slow machine's margin; a sandbox that never answers
 * no longer hangs the CLI.
 */
const DEFAULT_TIMEOUT_S = 60;

export const usage = `Usage: wa-gateway say <text> [--from <number>] [--sandbox <url>] [--timeout <seconds>] [--json]
       wa-gateway say --button <id> [--from <number>] [--sandbox <url>] [--timeout <seconds>] [--json]

Writes to your bot as a customer, without a browser: a running sandbox (wa-gateway sandbox --webhook-url ...)
delivers the message to your webhook as the gateway would, and the replies your app sent the customer while
it answered are printed. Exit 0 when delivered, 1 when not (lost, dropped, no sandbox, no --webhook-url).

  --from      the customer's number, digits with the country code (default ${FIXTURE_SENDER})
  --button    tap a reply button instead of writing: an interactive button_reply with this id (its title too)
  --sandbox   the sandbox's address (default http://127.0.0.1:4010)
  --timeout   seconds to wait for the delivery to be over, its retries included (default ${DEFAULT_TIMEOUT_S})
  --json      print the sandbox's answer as JSON: ids, attempts, replies`;

export const options = {
  from: { type: 'string' },
  button: { type: 'string' },
  sandbox: { type: 'string' },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** What `POST /__sandbox/inject?wait` answers. */
interface InjectAnswer {
  ids: string[];
  attempts: { attempt: number; status?: number; error?: string; outcome: string; durationMs: number }[];
  replies: { status: number; message: Record<string, unknown>; wamid?: string; error?: string }[];
  webhookUrl: string | null;
}

export async function sayCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const text = positionals.join(' ');
  if (values.button === undefined && text.trim() === '')
    throw new UsageError('say needs the <text> to write (or --button <id> to tap a button).');
  if (values.button !== undefined && positionals.length > 0)
    throw new UsageError('say takes either <text> or --button <id>, not both.');
  if (values.button === '') throw new UsageError('--button needs the id of the button to tap.');
  const from = values.from ?? FIXTURE_SENDER;
  if (!SENDER_PATTERN.test(from))
    throw new UsageError(
      `--from is a number as the gateway writes it: digits with the country code; got '${from}'.`,
    );
  const base = values.sandbox ?? 'http://127.0.0.1:4010';
  const protocol = URL.canParse(base) ? new URL(base).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new UsageError(`--sandbox is not an http(s) URL: '${base}'.`);
  // The request goes to the origin (the inject path replaces any other), and the messages name only that: never a
  // user name, password or query the flag may carry.
  const sandboxAt = new URL(base).origin;

  const timeoutMs = secondsFlag('--timeout', values.timeout, DEFAULT_TIMEOUT_S);
  const seconds = timeoutMs / 1000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const interrupt = interruption(io);
  const signal = AbortSignal.any([timeout, interrupt]);
  const late = () => {
    io.stderr(
      `wa-gateway say: the sandbox at ${sandboxAt} did not answer within ${seconds} s: your webhook may still be ` +
        "answering the delivery (or its retries). Check your app's logs, or raise --timeout.\n",
    );
    return EXIT.failed;
  };

  const message =
    values.button === undefined
      ? { from, type: 'text', text: { body: text } }
      : {
          from,
          type: 'interactive',
          interactive: { type: 'button_reply', button_reply: { id: values.button, title: values.button } },
        };
  let res: Response;
  try {
    res = await fetch(new URL('/__sandbox/inject?wait', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      signal,
    });
  } catch (error) {
    interrupt.throwIfAborted();
    if (timeout.aborted) return late();
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    io.stderr(
      `wa-gateway say: no sandbox answers at ${sandboxAt} (${reason}). Start one in another terminal: ` +
        'wa-gateway sandbox --webhook-url <your webhook>, or pass --sandbox <its address>.\n',
    );
    return EXIT.failed;
  }
  const answer = (await res.json().catch(() => null)) as unknown;
  interrupt.throwIfAborted();
  if (timeout.aborted) return late();
  if (res.status !== 200 || !isRecord(answer) || !Array.isArray(answer['attempts'])) {
    // A sandbox refuses with its reason as `error`; any other answer is from a server that is not one.
    if (res.status !== 200 && isRecord(answer) && typeof answer['error'] === 'string') {
      io.stderr(
        `wa-gateway say: the sandbox at ${sandboxAt} refused the message: ${printable(answer['error'])}.\n`,
      );
    } else {
      io.stderr(
        `wa-gateway say: the server at ${sandboxAt} is not a wa-gateway sandbox (it answered HTTP ${res.status} to ` +
          'POST /__sandbox/inject). Pass --sandbox <the address wa-gateway sandbox printed>.\n',
      );
    }
    return EXIT.failed;
  }
  const result = answer as unknown as InjectAnswer;
  if (values.json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  else print(result, io);
  return result.attempts.at(-1)?.outcome === 'delivered' ? EXIT.ok : EXIT.failed;
}

function print(result: InjectAnswer, io: CliIo): void {
  if (result.webhookUrl === null) {
    io.stdout(
      'The sandbox has no --webhook-url: the message went nowhere. Start it with wa-gateway sandbox --webhook-url <your webhook>.\n',
    );
    return;
  }
  // Every line is the sandbox's answer, which quotes your app's replies: printed with control characters escaped.
  for (const a of result.attempts) {
    const answer = a.status !== undefined ? `HTTP ${a.status}` : (a.error ?? 'no answer');
    const line = `delivered to ${result.webhookUrl}: attempt ${a.attempt}: ${answer} in ${a.durationMs} ms → ${a.outcome}`;
    io.stdout(`${printable(line)}\n`);
  }
  if (result.replies.length === 0) io.stdout('(no reply while the delivery was answered)\n');
  for (const r of result.replies) {
    const refused = r.error !== undefined ? `refused by the gateway (HTTP ${r.status} ${r.error}): ` : '';
    io.stdout(`${printable(`← ${refused}${describeReply(r.message)}`)}\n`);
  }
}

/** A reply as one line: its type and what the customer would read and tap. */
function describeReply(m: Record<string, unknown>): string {
  const type = typeof m['type'] === 'string' ? m['type'] : '?';
  const part = isRecord(m[type]) ? m[type] : {};
  if (type === 'text') return `text: ${String(part['body'])}`;
  if (type === 'template') {
    const language = isRecord(part['language']) ? part['language']['code'] : undefined;
    return `template ${String(part['name'])} (${String(language)})`;
  }
  if (type === 'interactive') {
    const body = isRecord(part['body']) ? String(part['body']['text']) : '';
    const action = isRecord(part['action']) ? part['action'] : {};
    if (part['type'] === 'list') {
      const rows = (Array.isArray(action['sections']) ? action['sections'] : []).flatMap((s) =>
        isRecord(s) && Array.isArray(s['rows']) ? s['rows'] : [],
      );
      return `list: ${body} [${String(action['button'])}: ${rows.map(choice).join(', ')}]`;
    }
    const buttons = (Array.isArray(action['buttons']) ? action['buttons'] : []).map((b) =>
      isRecord(b) && isRecord(b['reply']) ? choice(b['reply']) : '?',
    );
    return `buttons: ${body} ${buttons.map((b) => `[${b}]`).join(' ')}`;
  }
  const where = part['link'] ?? part['id'];
  const caption = part['caption'] !== undefined ? ` "${String(part['caption'])}"` : '';
  return `${type}${where !== undefined ? `: ${String(where)}` : ''}${caption}`;
}

/** A button or row as `title (id)`: the title is what the customer reads, the id what `--button` taps. */
function choice(item: unknown): string {
  if (!isRecord(item)) return '?';
  return `${String(item['title'])} (${String(item['id'])})`;
}
