/**
 * CONTRIBUTING.md's five walk-throughs, followed as written on a throwaway copy of the repository, each for a new
 * thing invented for the test (test-only names; nothing of it reaches src/). Then, over the copy with all five
 * applied: one TypeScript program (what `tsc --noEmit` reports), the same program without the steps the guide says
 * the compiler insists on (it must report an error exactly there), and one vitest run of the tests the guide says
 * cover the new things, plus a small proof per walk-through that uses the new thing through the public entries.
 *
 * When this fails: a step's anchor is gone (the source moved: update the replay, and the guide if it is wrong), a
 * quoted instruction is gone (the guide changed: update the replay to the new instruction), or following the guide
 * no longer works (fix the guide, or the code it describes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import type ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayMessageType } from './gateway-message-type.js';
import { platformEndpoint } from './platform-endpoint.js';
import {
  type Diagnostic,
  guideSection,
  missingQuotes,
  RepoCopy,
  ROOT,
  type Step,
  type TestResult,
  type WalkThrough,
} from './replay.js';
import { templateRule } from './template-rule.js';
import { webhookChangeField } from './webhook-change-field.js';
import { webhookMessageType } from './webhook-message-type.js';

const WALK_THROUGHS: readonly WalkThrough[] = [
  gatewayMessageType,
  templateRule,
  webhookMessageType,
  webhookChangeField,
  platformEndpoint,
];
const steps = WALK_THROUGHS.flatMap((w) => w.steps);
const needed = steps.filter((s) => s.needed !== undefined);
const guide = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');

let copy: RepoCopy;
let full: ts.Program;
let fullErrors: Diagnostic[];
let without: ts.Program;
let withoutErrors: Diagnostic[];
let results: Map<string, TestResult>;

beforeAll(async () => {
  copy = new RepoCopy();
  const changed = copy.apply(steps);
  copy.write(changed);
  copy.write(new Map(WALK_THROUGHS.map((w) => [w.proof.file, w.proof.code])));
  for (const command of WALK_THROUGHS.flatMap((w) => w.commands ?? [])) await copy.run(command.command);
  const tests = [...new Set(WALK_THROUGHS.flatMap((w) => [...w.tests, w.proof.file]))];
  // vitest runs in its own process while this one compiles.
  const run = copy.vitest(tests);
  run.catch(() => {});
  // All of src/, every test file the steps touch or the run takes, and the template-rules script.
  const sources = readdirSync(join(copy.dir, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/${f.split(sep).join('/')}`);
  const touched = [...changed.keys()].filter((f) => f.endsWith('.ts'));
  const roots = [...new Set([...sources, ...touched, ...tests, 'scripts/gen-template-rules.ts'])];
  full = copy.program(roots);
  fullErrors = copy.errors(full);
  // Every step the guide says the compiler insists on, left out at once: each is checked in its own file only, and
  // none of those files takes a type from another left-out line, so each error stands for its own step.
  const kept = steps.filter((s) => s.needed === undefined);
  without = copy.program(roots, copy.apply(kept, changed.keys()));
  withoutErrors = copy.errors(without, [...new Set(needed.map((s) => s.file))]);
  results = new Map((await run).map((r) => [r.file, r]));
}, 300_000);

afterAll(() => copy?.dispose());

const where = (d: Diagnostic) => `${d.file}:${d.line}: ${d.text.split('\n')[0]}`;

describe.each(WALK_THROUGHS.map((w) => [w.section, w] as const))('%s', (section, w) => {
  it('replays the instructions the guide gives today', () => {
    const text = guideSection(guide, section);
    expect(text, `CONTRIBUTING.md has no section '## ${section}'`).toBeDefined();
    const quotes = [...w.steps.map((s) => s.guide), ...(w.commands ?? []).map((c) => c.guide)];
    expect(missingQuotes(text!, quotes), 'instructions replayed here that the guide no longer gives').toEqual(
      [],
    );
  });

  it('compiles once its steps are applied', () => {
    const files = new Set([...w.steps.map((s) => s.file), ...w.tests, w.proof.file]);
    expect(fullErrors.filter((d) => files.has(d.file)).map(where)).toEqual([]);
  });

  if (w.steps.some((s) => s.needed))
    it('does not compile without each step the guide says the compiler asks for', () => {
      for (const step of w.steps.filter((s): s is Step & Required<Pick<Step, 'needed'>> => !!s.needed)) {
        const [start, end] = copy.statementHolding(without, step.file, step.needed.near);
        const hit = withoutErrors.filter(
          (d) =>
            d.file === step.file &&
            d.start >= start &&
            d.start < end &&
            d.text.includes(step.needed.mentions),
        );
        expect(
          hit.length,
          `left out, '${step.guide}' should make ${step.file} fail to compile at '${step.needed.near}'`,
        ).toBeGreaterThan(0);
      }
    });

  it('passes the tests the guide names, its new cases among them, and the proof', () => {
    const failed = [...w.tests, w.proof.file].flatMap((file) => {
      const r = results.get(file);
      if (!r) return [`${file}: not run`];
      if (r.status === 'passed') return [];
      const tests = r.tests.filter((t) => t.status !== 'passed');
      return tests.length === 0
        ? [`${file}: ${r.message}`]
        : tests.map((t) => `${file} > ${t.fullName}\n${t.failure}`);
    });
    expect(failed).toEqual([]);
    const ran = new Set(
      w.tests.flatMap(
        (f) =>
          results
            .get(f)
            ?.tests.filter((t) => t.status === 'passed')
            .map((t) => t.title) ?? [],
      ),
    );
    expect(
      w.newTests.filter((t) => !ran.has(t)),
      'new cases that did not run',
    ).toEqual([]);
  });
});

it('the copy compiles as a whole with the five applied (tsc --noEmit over src/ and the tests run)', () => {
  expect(fullErrors.map(where)).toEqual([]);
});
