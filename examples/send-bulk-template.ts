/**
 * A promotional template to a list of recipients, read lazily from a CSV file, with `sendMany`.
 *
 * Shows: an async generator over the file (100,000 rows never sit in memory), bounded concurrency under the
 * client's shared 80/s rate limiter, the three outcomes of `sendMany` (sent; not sent: invalid row or balance
 * exhausted, safe to send again; failed: a request was made and refused), and a summary at the end.
 *
 * Run:  GATEWAY_API_KEY=... GATEWAY_BASE_URL=https://gw.example.com \
 *         npx tsx examples/send-bulk-template.ts recipients.csv
 *       recipients.csv: a header line, then `phone,name,language` (language defaults to en_US)
 * Offline: `npx wa-gateway sandbox`, then GATEWAY_API_KEY=sk_test_sandbox GATEWAY_BASE_URL=http://127.0.0.1:4010
 * (the sandbox accepts any template name unless told otherwise).
 *
 * In your app, import from 'wa-gateway-sdk' instead of '../src/index.js'.
 */
import { createReadStream } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import {
  GatewayClient,
  MessageValidationError,
  normalizeRecipient,
  type OutboundTemplateMessage,
  PaymentRequiredError,
  UpstreamError,
} from '../src/index.js';

export interface Recipient {
  /** 1-based line of the source, to point at in a report. */
  line: number;
  phone: string;
  name: string;
  language: string;
}

export interface BulkSummary {
  total: number;
  sent: number;
  /** No request was made: safe to send again once fixed (invalid row) or topped up (balance). */
  notSent: { invalid: { recipient: Recipient; error: Error }[]; balance: Recipient[]; aborted: Recipient[] };
  /**
   * A request was made and refused: the upstream refused the row (GW_001: an unknown template language, an
   * unregistered number... the same row would be refused again), or it may be out: look before resending.
   */
  failed: { recipient: Recipient; error: Error }[];
}

/**
 * Parses `phone,name,language` lines as they are read. Formatted numbers (`+998 90 123-45-67`) are normalised;
 * the country code is never added: the file must carry it (a local number could be valid in another country).
 * Not a full CSV parser: use one (csv-parse) if names may hold quoted commas.
 */
export async function* readRecipients(
  lines: AsyncIterable<string> | Iterable<string>,
): AsyncGenerator<Recipient> {
  let line = 0;
  for await (const text of lines) {
    line++;
    if (line === 1 || text.trim() === '') continue; // the header, blank lines
    const [phone = '', name = '', language = ''] = text.split(',').map((cell) => cell.trim());
    yield { line, phone: normalized(phone), name, language: language || 'en_US' };
  }
}

/**
 * The number normalised; one `normalizeRecipient` refuses (a national number, `0901234567`) goes on as written,
 * so the send's own check reports that row as invalid, with the reason, and the other rows go on.
 */
function normalized(phone: string): string {
  try {
    return normalizeRecipient(phone);
  } catch {
    return phone;
  }
}

function promotion(r: Recipient): OutboundTemplateMessage {
  return {
    to: r.phone,
    type: 'template',
    template: {
      name: 'spring_sale',
      language: { code: r.language },
      components: [{ type: 'body', parameters: [{ type: 'text', text: r.name || 'there' }] }],
    },
  };
}

export async function main(options: {
  baseUrl: string;
  apiKey: string;
  recipients: AsyncIterable<Recipient> | Iterable<Recipient>;
  concurrency?: number;
  signal?: AbortSignal;
  /** Called every 100 results. */
  onProgress?: (done: number) => void;
}): Promise<BulkSummary> {
  const gw = new GatewayClient({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const summary: BulkSummary = {
    total: 0,
    sent: 0,
    notSent: { invalid: [], balance: [], aborted: [] },
    failed: [],
  };

  // Results carry only the input's index, and they come in input order: a FIFO of the rows handed to sendMany
  // matches each result to its row. It holds at most `concurrency` rows, however long the file.
  const inFlight: Recipient[] = [];
  async function* messages() {
    for await (const r of options.recipients) {
      inFlight.push(r);
      yield promotion(r);
    }
  }

  for await (const result of gw.messages.sendMany(messages(), {
    concurrency: options.concurrency ?? 16,
    // The marketing-lite route, meant for high-volume promotional template sends.
    mmlite: true,
    signal: options.signal,
  })) {
    const recipient = inFlight.shift()!;
    summary.total++;
    if (result.ok) {
      summary.sent++;
      // Store result.messageId with the row: the delivery receipts (status webhooks) carry it.
    } else if (result.notSent && !(result.error instanceof UpstreamError)) {
      // (A GW_001 is not sent either, but the upstream refused the row itself: it is a failure, below.)
      if (result.error instanceof PaymentRequiredError) summary.notSent.balance.push(recipient);
      else if (result.error instanceof MessageValidationError)
        summary.notSent.invalid.push({ recipient, error: result.error });
      else summary.notSent.aborted.push(recipient);
    } else {
      summary.failed.push({ recipient, error: result.error });
    }
    if (summary.total % 100 === 0) options.onProgress?.(summary.total);
  }
  return summary;
}

export function formatSummary(s: BulkSummary): string {
  const rows: [string, number][] = [
    ['sent (accepted; delivery receipts follow)', s.sent],
    ['not sent: invalid row', s.notSent.invalid.length],
    ['not sent: balance exhausted (BILL_001)', s.notSent.balance.length],
    ['not sent: stopped', s.notSent.aborted.length],
    ['failed: refused by the gateway', s.failed.length],
    ['total', s.total],
  ];
  const lines = rows.map(([label, n]) => `  ${label.padEnd(44)} ${String(n).padStart(7)}`);
  for (const { recipient, error } of [...s.notSent.invalid, ...s.failed].slice(0, 20)) {
    lines.push(`  line ${recipient.line}: ${error.message}`);
  }
  return lines.join('\n');
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const file = process.argv[2];
  const apiKey = process.env['GATEWAY_API_KEY'];
  const baseUrl = process.env['GATEWAY_BASE_URL'];
  if (!file || !apiKey || !baseUrl) {
    console.error(
      'Usage: GATEWAY_API_KEY=... GATEWAY_BASE_URL=... npx tsx examples/send-bulk-template.ts <file.csv>',
    );
    process.exit(2);
  }
  // Ctrl-C stops starting new sends; those in flight finish (they may already be out) and the rest are reported.
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort(new Error('stopped by Ctrl-C')));
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  const summary = await main({
    apiKey,
    baseUrl,
    recipients: readRecipients(lines),
    signal: stop.signal,
    onProgress: (done) => process.stderr.write(`\r${done} processed`),
  });
  if (summary.total >= 100) process.stderr.write('\n');
  console.log(formatSummary(summary));
  process.exitCode = summary.failed.length + summary.notSent.balance.length > 0 ? 1 : 0;
}
