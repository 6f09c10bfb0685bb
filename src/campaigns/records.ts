/**
 * What a campaign keeps of each send result, encoded for its store: a message's state in one short string, a
 * refusal as JSON, and the counters a batch of results moves (`Batch`, one store step).
 */
import { ApiError, type WaGatewayError } from '../core/errors.js';
import { errorNameOf } from '../core/observer.js';
import type { SendManyResult } from '../gateway/send-many.js';
import type { KnownStatusValue } from '../webhooks/schemas.js';
import type { CampaignRecordBatch } from './store.js';

/** A message's latest status in a campaign: `accepted` until its first status event arrives. */
export type CampaignMessageStatus = 'accepted' | KnownStatusValue;

/** A recorded refusal: a `sendMany` result with `ok: false`. */
export interface CampaignRefusal {
  to: string;
  code: string;
  /**
   * `true`: certainly not sent, so a resend cannot duplicate it (`retries()` lists those worth one); `false`: it
   * may have been sent (check its status events before resending).
   */
  notSent: boolean;
  /**
   * The message's position, from 0: in `sendMany`'s input, or in a `CampaignQueue` campaign its enqueue order
   * (`status`'s and `inDoubt`'s `position` minus 1).
   */
  index: number;
  /**
   * A `CampaignQueue` campaign's message key (the recipient unless enqueued with a `key`): what `resend`, `drop` and
   * a new enqueue name it by. Absent for `sendMany` campaigns, and for refusals recorded by earlier versions.
   */
  key?: string;
  /**
   * Why, in words: the gateway's `description` (for `GW_001`, the upstream's reason: an unregistered recipient, a
   * closed window, an unknown template...), else the SDK error's message; at most 300 characters. Absent from
   * refusals recorded by earlier versions.
   */
  description?: string;
}

/** A `sendMany` result with the recipient it was for, as `tracker.record` takes it. */
export interface CampaignResult {
  result: SendManyResult;
  to: string;
}

const LETTER: Readonly<Record<CampaignMessageStatus, string>> = {
  accepted: 'a',
  sent: 's',
  delivered: 'd',
  read: 'r',
  failed: 'f',
};
const STATUS_OF: Readonly<Record<string, CampaignMessageStatus>> = {
  a: 'accepted',
  s: 'sent',
  d: 'delivered',
  r: 'read',
  f: 'failed',
};

/** A message's state in one short string (`<status letter><billable 0|1><recipient>`): Redis keeps 100,000s. */
export function encodeState(status: CampaignMessageStatus, billable: boolean, to: string): string {
  return `${LETTER[status]}${billable ? '1' : '0'}${to}`;
}

export function decodeState(state: string): { status: CampaignMessageStatus; billable: boolean; to: string } {
  return { status: STATUS_OF[state[0] ?? 'a'] ?? 'accepted', billable: state[1] === '1', to: state.slice(2) };
}

/** The code a refusal is counted under: the gateway's code, else the status, else the SDK error's class. */
export function refusalCode(error: WaGatewayError): string {
  if (error instanceof ApiError) return error.code ?? `HTTP_${error.status}`;
  return errorNameOf(error);
}

const MAX_DESCRIPTION = 300;

/** A refusal's reason in words, short enough to keep one per refused message. */
function describe(error: WaGatewayError): string {
  const text = error instanceof ApiError ? error.description : error.message;
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

/** Send results buffered into one store step. */
export class Batch {
  accepted: { wamid: string; state: string }[] = [];
  refused: string[] = [];
  counts: Record<string, number> = {};
  examples: Record<string, string> = {};
  results: CampaignResult[] = [];
  firstAt = Number.POSITIVE_INFINITY;
  lastAt = 0;

  /** `now` is the recorder's clock: the batch's times are the report's `firstSendAt`/`lastSendAt`. */
  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.results.length;
  }

  /** `key`: a `CampaignQueue` message's key, kept with its refusal. */
  add(entry: CampaignResult, key?: string): void {
    const { result, to } = entry;
    this.results.push(entry);
    const now = this.now();
    if (now < this.firstAt) this.firstAt = now;
    if (now > this.lastAt) this.lastAt = now;
    if (result.ok) {
      this.accepted.push({ wamid: result.messageId, state: encodeState('accepted', false, to) });
      this.#count('accepted');
      this.#count('s:accepted');
      return;
    }
    const code = refusalCode(result.error);
    const refusal: CampaignRefusal = {
      to,
      code,
      notSent: result.notSent,
      index: result.index,
      ...(key === undefined ? {} : { key }),
      description: describe(result.error),
    };
    this.refused.push(JSON.stringify(refusal));
    this.#count(result.notSent ? 'notSent' : 'maybeSent');
    this.#count(`r:${code}`);
    if (result.notSent) this.#count(`rn:${code}`);
    if (!(`rx:${code}` in this.examples)) this.examples[`rx:${code}`] = to;
  }

  #count(key: string): void {
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  take(): CampaignRecordBatch & { results: CampaignResult[] } {
    const taken = {
      accepted: this.accepted,
      refused: this.refused,
      counts: this.counts,
      examples: this.examples,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
      results: this.results,
    };
    this.accepted = [];
    this.refused = [];
    this.counts = {};
    this.examples = {};
    this.results = [];
    this.firstAt = Number.POSITIVE_INFINITY;
    this.lastAt = 0;
    return taken;
  }
}
