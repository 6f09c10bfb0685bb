import { z } from 'zod';
import type { ApiPromise } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import { ConfigurationError } from '../core/errors.js';
import { refuseNearMisses } from '../core/option-keys.js';
import { nullableFigure, optionalText } from './fields.js';
import type { PlatformHttp } from './http.js';

/** The periods of the stats counters. */
export const STATS_PERIODS = ['today', 'yesterday', 'wtd', 'mtd'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** One `value` per period of `STATS_PERIODS`. */
function perPeriod<T extends z.ZodType>(value: T) {
  return z.looseObject({ today: value, yesterday: value, wtd: value, mtd: value });
}

/** A counter per period. */
export const periodCountsSchema = perPeriod(z.number());
export interface PeriodCounts extends z.infer<typeof periodCountsSchema> {}

/** A response-time accumulator: `sum` over `count` responses. `sum` may be null when `count` is 0. */
export const sumCountSchema = z.looseObject({ count: z.number(), sum: nullableFigure });
export interface SumCount extends z.infer<typeof sumCountSchema> {}

export const periodSumCountsSchema = perPeriod(sumCountSchema);
export interface PeriodSumCounts extends z.infer<typeof periodSumCountsSchema> {}

/**
 * An agent's `frt` or `art`: per period (`{ today: { count, sum }, ... }`, as the channel's `response_times`), or
 * one `{ count, sum }` without periods. The spec says "`frt`, `art` (`count`, `sum`)" of agents, and "periods as
 * above" of their counters only, so both readings are taken.
 */
export const agentResponseTimeSchema = z.union([periodSumCountsSchema, sumCountSchema]);
export type AgentResponseTime = z.infer<typeof agentResponseTimeSchema>;

export const statsAgentSchema = z.looseObject({
  uuid: z.string(),
  name: optionalText,
  joined: periodCountsSchema,
  viewed: periodCountsSchema,
  sent: periodCountsSchema,
  frt: agentResponseTimeSchema,
  art: agentResponseTimeSchema,
});
export interface StatsAgent extends z.infer<typeof statsAgentSchema> {}

/** One element of `GET {stream_url}/stats`: a channel with its counters. */
export const statsChannelSchema = z.looseObject({
  uuid: z.string(),
  name: optionalText,
  stats: z.looseObject({
    messages: z.looseObject({ received: periodCountsSchema, sent: periodCountsSchema }),
    customers: z.looseObject({ new: periodCountsSchema, total: periodCountsSchema }),
    response_times: z.looseObject({ frt: periodSumCountsSchema, art: periodSumCountsSchema }),
    agents: z.array(statsAgentSchema),
  }),
});
export interface StatsChannel extends z.infer<typeof statsChannelSchema> {}
export const statsResponseSchema = z.array(statsChannelSchema);

/** Account-wide statistics: `GET {stream_url}/stats`. */
export class Stats {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Per-channel counters. `summarizeStats(channels)` turns them into account and agent averages.
   *
   * @example
   * const summary = summarizeStats(await platform.stats.get());
   * console.log(summary.frt.today); // seconds, or null when nobody was answered today
   */
  get(options: RequestOptions = {}): ApiPromise<StatsChannel[]> {
    return this.#http.run(async (json) => {
      refuseNearMisses(options, REQUEST_KEYS, 'stats.get');
      return json('stream', { method: 'GET', path: '/stats', ...requestOf(options) }, statsResponseSchema);
    });
  }
}

/** An average per period; `null` where nothing was counted. */
export type PeriodAverages = Record<StatsPeriod, number | null>;

export interface AgentStatsSummary {
  uuid: string;
  name: string | null;
  /**
   * First response time: the agent's `sum` over `count` across all channels, per period. A channel that gave the
   * agent's `frt` without periods (one `{ count, sum }`) is not counted here: see `withoutPeriod`.
   */
  frt: PeriodAverages;
  /** Average response time, likewise. */
  art: PeriodAverages;
  /**
   * The agent's `frt` and `art` from the channels that gave them as one `{ count, sum }` without periods, summed
   * across those channels and divided. `null` when no channel did (or their `count` is 0). They are kept apart
   * from the per-period averages because they do not say which period they cover.
   */
  withoutPeriod: { frt: number | null; art: number | null };
  joined: PeriodCounts;
  viewed: PeriodCounts;
  sent: PeriodCounts;
}

export interface StatsSummary {
  /** Account-level first response time per period: the channels' `sum` and `count` summed, then divided. */
  frt: PeriodAverages;
  /** Account-level average response time per period, likewise. */
  art: PeriodAverages;
  /** Messages received and sent, summed over channels. */
  messages: { received: PeriodCounts; sent: PeriodCounts };
  /** One entry per agent (by uuid) across channels, in the order first met. */
  agents: AgentStatsSummary[];
}

type Accumulator = Record<StatsPeriod, { sum: number; count: number }>;

function accumulator(): Accumulator {
  return {
    today: { sum: 0, count: 0 },
    yesterday: { sum: 0, count: 0 },
    wtd: { sum: 0, count: 0 },
    mtd: { sum: 0, count: 0 },
  };
}

function addSums(acc: Accumulator, from: Record<StatsPeriod, { sum: number | null; count: number }>): void {
  for (const p of STATS_PERIODS) {
    acc[p].sum += from[p].sum ?? 0;
    acc[p].count += from[p].count;
  }
}

function isPerPeriod(value: AgentResponseTime): value is PeriodSumCounts {
  return typeof value.today === 'object' && value.today !== null;
}

/** Adds an agent's `frt` / `art` to `acc` (per period) or to `flat` (one `{ count, sum }` without periods). */
function addAgentSums(acc: Accumulator, flat: { sum: number; count: number }, from: AgentResponseTime): void {
  if (isPerPeriod(from)) {
    addSums(acc, from);
    return;
  }
  flat.sum += from.sum ?? 0;
  flat.count += from.count;
}

function average({ sum, count }: { sum: number; count: number }): number | null {
  return count === 0 ? null : sum / count;
}

function averages(acc: Accumulator): PeriodAverages {
  const out = {} as PeriodAverages;
  for (const p of STATS_PERIODS) out[p] = average(acc[p]);
  return out;
}

function zeroCounts(): PeriodCounts {
  return { today: 0, yesterday: 0, wtd: 0, mtd: 0 };
}

function addCounts(acc: PeriodCounts, from: PeriodCounts): void {
  for (const p of STATS_PERIODS) acc[p] += from[p];
}

/**
 * Account-level and per-agent response times from `stats.get()`, as the spec prescribes: `sum` and `count`
 * are summed across channels and then divided, per period (`today`, `yesterday`, `wtd`, `mtd`). A period
 * with no responses is `null`, never `NaN`. Averages are in the unit of `sum` (seconds on the platform).
 * Averaging the channels' averages instead would weigh a quiet channel like a busy one. An agent's `frt` / `art`
 * given as one `{ count, sum }` without periods goes to its `withoutPeriod` averages, not to a period.
 *
 * @example
 * const { frt, agents } = summarizeStats(await platform.stats.get());
 */
export function summarizeStats(channels: readonly StatsChannel[]): StatsSummary {
  const frt = accumulator();
  const art = accumulator();
  const received = zeroCounts();
  const sent = zeroCounts();
  const agents = new Map<
    string,
    {
      name: string | null;
      frt: Accumulator;
      art: Accumulator;
      flat: { frt: { sum: number; count: number }; art: { sum: number; count: number } };
      joined: PeriodCounts;
      viewed: PeriodCounts;
      sent: PeriodCounts;
    }
  >();
  if (!Array.isArray(channels)) {
    throw new ConfigurationError('summarizeStats needs the array of channels that stats.get() returns.');
  }
  for (const [i, channel] of channels.entries()) {
    const stats = (channel as { stats?: StatsChannel['stats'] } | null)?.stats;
    if (!stats?.response_times || !stats.messages || !Array.isArray(stats.agents)) {
      throw new ConfigurationError(
        `summarizeStats: channel ${i} is not a stats channel (it needs stats.response_times, stats.messages and stats.agents).`,
      );
    }
    addSums(frt, stats.response_times.frt);
    addSums(art, stats.response_times.art);
    addCounts(received, stats.messages.received);
    addCounts(sent, stats.messages.sent);
    for (const agent of stats.agents) {
      let entry = agents.get(agent.uuid);
      if (!entry) {
        entry = {
          name: agent.name ?? null,
          frt: accumulator(),
          art: accumulator(),
          flat: { frt: { sum: 0, count: 0 }, art: { sum: 0, count: 0 } },
          joined: zeroCounts(),
          viewed: zeroCounts(),
          sent: zeroCounts(),
        };
        agents.set(agent.uuid, entry);
      }
      entry.name ??= agent.name ?? null;
      addAgentSums(entry.frt, entry.flat.frt, agent.frt);
      addAgentSums(entry.art, entry.flat.art, agent.art);
      addCounts(entry.joined, agent.joined);
      addCounts(entry.viewed, agent.viewed);
      addCounts(entry.sent, agent.sent);
    }
  }
  return {
    frt: averages(frt),
    art: averages(art),
    messages: { received, sent },
    agents: [...agents].map(([uuid, a]) => ({
      uuid,
      name: a.name,
      frt: averages(a.frt),
      art: averages(a.art),
      withoutPeriod: { frt: average(a.flat.frt), art: average(a.flat.art) },
      joined: a.joined,
      viewed: a.viewed,
      sent: a.sent,
    })),
  };
}
