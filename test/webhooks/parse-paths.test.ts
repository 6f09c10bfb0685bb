/**
 * `parseWebhook` validates each item on zod's interpreted path until its schema is hot, then on the compiled one
 * (`COMPILE_AFTER` in src/webhooks/parse.ts). Both must yield the same events, issues included: the corpus of real
 * bodies, and each body with a field dropped, nulled or replaced, is parsed on each path and compared.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { COMPILE_AFTER } from '../../src/webhooks/parse.js';
import { mutate, type Op } from '../fuzz/tree-mutations.js';

type Json = Record<string, unknown>;
type Parse = typeof import('../../src/webhooks/index.js')['parseWebhook'];

const dir = new URL('./corpus/', import.meta.url);
const corpus: Json[] = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .flatMap(
    (f) => (JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { payloads: { body: Json }[] }).payloads,
  )
  .map((p) => p.body);

/** Each body, then each with one node dropped, nulled or replaced by a number, at spread positions. */
const OPS: Op[] = ['delete', 'null', 'replace'];
const bodies: string[] = corpus.flatMap((body, i) => [
  JSON.stringify(body),
  ...OPS.map((op, k) =>
    JSON.stringify(mutate(structuredClone(body), [{ at: 7 * i + 13 * k, op, value: 7, key: 'x' }])),
  ),
]);

/** At most how many times parsing `body` validates with one schema: once per change and twice per item. */
function validations(body: string): number {
  const list = (v: unknown) => (Array.isArray(v) ? (v as unknown[]) : []);
  const obj = (v: unknown) => (typeof v === 'object' && v !== null ? (v as Json) : {});
  let n = 0;
  for (const entry of list(obj(JSON.parse(body))['entry']))
    for (const change of list(obj(entry)['changes'])) {
      const value = obj(obj(change)['value']);
      n += 1 + 2 * (list(value['messages']).length + list(value['statuses']).length);
    }
  return n;
}

/** What a parse gives, comparable across module instances: the events, or the error it threw. */
function outcome(parse: Parse, body: string): unknown {
  try {
    return parse(body);
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

async function freshParse(): Promise<Parse> {
  vi.resetModules();
  return (await import('../../src/webhooks/index.js')).parseWebhook;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseWebhook: interpreted and compiled validation agree', () => {
  it('asks zod for its interpreted path until a schema has validated COMPILE_AFTER items', async () => {
    vi.resetModules();
    const { parseWebhook, metadataSchema } = await import('../../src/webhooks/index.js');
    const { statusEnvelope, statusObject } = await import('../../src/webhooks/fixtures.js');
    const spy = vi.spyOn(metadataSchema, 'safeParse');
    const body = JSON.stringify(statusEnvelope([statusObject('sent')]));
    for (let i = 0; i <= COMPILE_AFTER; i++) parseWebhook(body);
    const contexts = spy.mock.calls.map((call) => call[1]);
    expect(contexts).toHaveLength(COMPILE_AFTER + 1);
    expect(contexts.slice(0, COMPILE_AFTER).every((c) => c?.jitless === true)).toBe(true);
    expect(contexts[COMPILE_AFTER]).toBeUndefined();
  });

  it('gives the same events on both paths, for the corpus and its mutations', async () => {
    // Interpreted: fresh schemas for each run of bodies that validates fewer than COMPILE_AFTER times with any schema.
    const interpreted: unknown[] = [];
    let parse = await freshParse();
    let budget = COMPILE_AFTER;
    for (const body of bodies) {
      const cost = validations(body);
      expect(cost).toBeLessThanOrEqual(COMPILE_AFTER);
      if (cost > budget) {
        parse = await freshParse();
        budget = COMPILE_AFTER;
      }
      budget -= cost;
      interpreted.push(outcome(parse, body));
    }
    // Compiled: every schema the bodies use has validated COMPILE_AFTER items before the compared run (a mutation
    // makes no body use a schema its original does not).
    parse = await freshParse();
    const originals = corpus.map((body) => JSON.stringify(body));
    for (let i = 0; i < COMPILE_AFTER; i++) for (const body of originals) outcome(parse, body);
    const compiled = bodies.map((body) => outcome(parse, body));
    expect(compiled).toEqual(interpreted);
    // The comparison covers typed events and invalid items alike.
    const kinds = new Set(
      (compiled.flat() as { kind?: string; reason?: string }[]).map((e) => e.reason ?? e.kind),
    );
    expect([...kinds]).toEqual(expect.arrayContaining(['message', 'status', 'invalid_item']));
  });
});
