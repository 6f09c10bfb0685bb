import { addMonth } from '../../platform/calendar-month.js';
import { instantMs, isUuid } from '../../platform/fields.js';
import {
  type ConversationRecord,
  DATE_RANGES,
  type DateRange,
  FEEDBACK_TYPES,
  REPORT_DATA,
  REPORT_TRUNCS,
  type ReportData,
} from '../../platform/reports.schema.js';
import {
  type Answer,
  booleanParam,
  detail,
  enumParam,
  Refusal,
  type Route,
  type RouteContext,
} from './answer.js';
import { bucketOf, rangeOf } from './dates.js';
import type { World } from './world.js';

/**
 * `GET {stream_url}/stats` and the reports: `/reports/` computed from the seeded records (or served as
 * seeded), `/reports/conversations/` with its relative ranges, `/reports/feedbacks/` with its one-month limit.
 */
export function reportRoutes(world: World): Route[] {
  return [
    {
      host: 'stream',
      method: 'GET',
      path: '/stats',
      handle: () => ({ status: 200, body: world.state.channels }),
    },
    { host: 'platform', method: 'GET', path: '/reports/', handle: (ctx) => report(world, ctx) },
    {
      host: 'platform',
      method: 'GET',
      path: '/reports/conversations/',
      handle: (ctx) => conversationsReport(world, ctx),
    },
    {
      host: 'platform',
      method: 'GET',
      path: '/reports/feedbacks/',
      handle: (ctx) => feedbacksReport(world, ctx),
    },
  ];
}

/** What a computed report section reads: the records, which of them fall in the range, and their bucket. */
interface SectionContext {
  world: World;
  within: (iso: string | null | undefined) => boolean;
  key: (iso: string) => string;
  groupBased: boolean;
}

/** The sections computed from the seeded records; the others are empty unless seeded. */
const SECTIONS: Partial<Record<ReportData, (ctx: SectionContext) => unknown>> = {
  messages: ({ world, within, key, groupBased }) => {
    const rows = new Buckets(() => ({ outgoing_messages: 0, incoming_messages: 0, total_messages: 0 }));
    for (const m of world.state.streamRecords) {
      if (!within(m.created_at)) continue;
      const row = rows.at(key(m.created_at), groupBased ? (m.group?.name ?? null) : undefined);
      if (m.agent !== null) row.outgoing_messages++;
      else row.incoming_messages++;
      row.total_messages++;
    }
    return rows.list();
  },
  conversations: ({ world, within, key, groupBased }) => {
    const total = new Buckets(() => ({ total: 0, ...(groupBased ? { archived: 0 } : {}) }));
    const typeCounts = new Map<string, { name: string | null; sub: string | null; total: number }>();
    const languages = new Map<string, { lang: string | null; count: number }>();
    for (const c of world.state.conversationRecords) {
      if (!within(c.created_at)) continue;
      const row = total.at(key(c.created_at), groupBased ? groupName(c.group) : undefined);
      row.total++;
      if (row.archived !== undefined && c.is_archived) row.archived++;
      const [name, sub] = typeNames(c.type);
      const t = typeCounts.get(`${name}\u0000${sub}`) ?? { name, sub, total: 0 };
      t.total++;
      typeCounts.set(`${name}\u0000${sub}`, t);
      const lang = c.language ?? null;
      const l = languages.get(String(lang)) ?? { lang, count: 0 };
      l.count++;
      languages.set(String(lang), l);
    }
    return { total: total.list(), types: [...typeCounts.values()], language: [...languages.values()] };
  },
  feedback: ({ world, within, key }) => {
    const rows = new Buckets(() => ({ total: 0, great: 0, good: 0, soso: 0, bad: 0, terrible: 0 }));
    const scale = ['terrible', 'bad', 'soso', 'good', 'great'] as const;
    for (const f of world.state.feedbacks) {
      if (!within(f.created_at)) continue;
      const row = rows.at(key(f.created_at), undefined);
      row.total++;
      const grade = f.type === 'emoji' ? scale[f.satisfaction - 1] : undefined;
      if (grade) row[grade]++;
    }
    return rows.list();
  },
};

function report(world: World, { query }: RouteContext): Answer {
  const dateRange = enumParam(query, 'date_range', DATE_RANGES);
  const trunc = enumParam(query, 'trunc', REPORT_TRUNCS) ?? 'day';
  const data = enumParam(query, 'data', REPORT_DATA);
  const groupBased = booleanParam(query, 'group_based', (v) => new Refusal(400, { error: v })) ?? false;
  const [from, to] = dateRange === undefined ? [-Infinity, Infinity] : rangeOf(dateRange, world.now());
  const ctx: SectionContext = {
    world,
    within: (iso) => {
      const t = iso ? instantMs(iso) : Number.NaN;
      return t >= from && t <= to;
    },
    key: (iso) => bucketOf(instantMs(iso), trunc),
    groupBased,
  };
  const out: Record<string, unknown> = {};
  const sections: readonly ReportData[] = data === undefined ? REPORT_DATA : [data];
  for (const section of sections) {
    const seeded = world.state.reportSections[section];
    if (seeded !== undefined) {
      out[section] = seeded;
      continue;
    }
    out[section] = SECTIONS[section]?.(ctx) ?? [];
    if (section === 'response_times' && world.state.reportSections.total_response_times === undefined) {
      out['total_response_times'] = groupBased ? [] : { first_response_time: null, avg_response_time: null };
    }
  }
  if (world.state.reportSections.total_response_times !== undefined && sections.includes('response_times')) {
    out['total_response_times'] = world.state.reportSections.total_response_times;
  }
  return { status: 200, body: out };
}

function conversationsReport(world: World, { query }: RouteContext): Answer {
  const created = enumParam(query, 'created_at_range', DATE_RANGES);
  const archivedRange = enumParam(query, 'archived_at_range', DATE_RANGES);
  const inRange = (range: DateRange | undefined, iso: string | null | undefined) => {
    if (range === undefined) return true;
    if (!iso) return false;
    const [from, to] = rangeOf(range, world.now());
    const t = instantMs(iso);
    return t >= from && t <= to;
  };
  const records = world.state.conversationRecords.filter(
    (c) => inRange(created, c.created_at) && inRange(archivedRange, c.archived_at),
  );
  return { status: 200, body: records };
}

function feedbacksReport(world: World, { query }: RouteContext): Answer {
  const type = enumParam(query, 'type', FEEDBACK_TYPES);
  const channel = query.get('channel');
  if (channel !== null && !isUuid(channel)) throw new Refusal(400, { error: 'channel must be a UUID.' });
  const bound = (name: string): number | undefined => {
    const value = query.get(name);
    if (value === null) return undefined;
    const t = instantMs(value);
    if (Number.isNaN(t)) throw new Refusal(400, { error: `${name} must be an ISO 8601 date-time.` });
    return t;
  };
  const start = bound('start_date');
  const end = bound('end_date');
  if (start !== undefined && end !== undefined) {
    if (end < start) throw new Refusal(400, { error: 'end_date is before start_date.' });
    if (end > addMonth(start)) throw detail(400, 'The date range may span at most one month.');
  }
  const feedbacks = world.state.feedbacks
    .filter((f) => {
      const t = instantMs(f.created_at);
      return (
        (type === undefined || f.type === type) &&
        (channel === null || f.channel?.uuid.toLowerCase() === channel.toLowerCase()) &&
        (start === undefined || t >= start) &&
        (end === undefined || t <= end)
      );
    })
    .sort((a, b) => instantMs(a.created_at) - instantMs(b.created_at));
  return { status: 200, body: { feedbacks } };
}

/** Report rows by date (and group, for group-based reports), in date order. */
class Buckets<T extends object> {
  readonly #rows = new Map<string, { date: string; group?: string | null } & T>();
  readonly #make: () => T;

  constructor(make: () => T) {
    this.#make = make;
  }

  /** `group` `undefined`: the report is not group-based. */
  at(date: string, group: string | null | undefined): { date: string; group?: string | null } & T {
    const key = `${date}\u0000${group}`;
    let row = this.#rows.get(key);
    if (!row) {
      row = { date, ...(group === undefined ? {} : { group }), ...this.#make() };
      this.#rows.set(key, row);
    }
    return row;
  }

  list(): ({ date: string; group?: string | null } & T)[] {
    return [...this.#rows.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  }
}

function groupName(group: ConversationRecord['group']): string | null {
  if (group === undefined || group === null) return null;
  return typeof group === 'string' ? group : (group.name ?? null);
}

function typeNames(type: ConversationRecord['type']): [string | null, string | null] {
  if (type === undefined || type === null) return [null, null];
  if (typeof type === 'string') return [type, null];
  return [type.main_type ?? null, type.sub_type1 ?? null];
}
