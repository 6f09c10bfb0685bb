/**
 * A cold start's first delivery compiles nothing of the parse path but `parseWebhook` itself: the functions a
 * text message and a status run are written in parentheses (hand-written ones under a `biome-ignore format`,
 * generated ones by the generator's `eager` roots), V8's hint to compile them with their module. A function added
 * to that path without the hint compiles on the first delivery, which made it about 5× slower (docs/benchmarks.md,
 * "The first parse"); this test names it.
 *
 * Read from V8's own log of function events (`--log-function-events`) in a fresh process, not from a timing. One log
 * per isolate: tsx's loader hooks run in a thread of their own, whose script ids overlap the main thread's, and in one
 * shared log its lines fell between the main thread's at random (a `script-details` of the loader's own `node:crypto`
 * under the id of parse.ts: the first parse then seemed to compile nothing, about one run in ten on a loaded machine).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'wa-first-parse-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The markers are functions of this probe: their first executions bound the first parse in the log.
const probe = `
import { parseWebhook } from './src/webhooks/index.ts';
import { entry, envelope, messageEnvelope, statusEnvelope, statusObject, textMessage } from './src/testing/webhook-fixtures.ts';
const changes = [messageEnvelope(textMessage()), statusEnvelope(statusObject('delivered'))].flatMap((e) => e.entry[0].changes);
const body = JSON.stringify(envelope([entry(changes)]));
function beforeFirstParse() {}
function afterFirstParse(events) { if (events.length !== 2) throw new Error('expected 2 events, got ' + events.length); }
beforeFirstParse();
afterFirstParse(parseWebhook(body));
`;

/** The SDK functions V8 compiled to bytecode between the markers, as `name (file)`. */
function compiledDuringFirstParse(): string[] {
  const logs = mkdtempSync(join(scratch, 'logs-'));
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--log-function-events',
      // Each isolate writes `isolate-<address>-<pid>-v8.log` beside this name.
      `--logfile=${join(logs, 'v8.log')}`,
      '--input-type=module',
      '-e',
      probe,
    ],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  if (r.status !== 0) throw new Error(`the probe exited ${r.status}: ${r.stderr}`);
  // The main thread's log: the one whose isolate ran the probe's markers.
  const main = readdirSync(logs)
    .map((name) => readFileSync(join(logs, name), 'utf8'))
    .filter((text) => text.includes(',beforeFirstParse\n'));
  if (main.length !== 1) throw new Error(`expected one isolate to run the probe, found ${main.length}`);
  const scripts = new Map<string, string>();
  const compiled: string[] = [];
  let inside = false;
  for (const line of (main[0] as string).split('\n')) {
    const f = line.split(',');
    if (f[0] === 'script-details') scripts.set(f[1]!, f[2]!);
    if (f[0] !== 'function') continue;
    const name = f.at(-1)!;
    // A marker's first execution, or its compilation right before it (newer V8s log no first execution of a
    // function compiled at its first call).
    const reached = f[1] === 'first-execution' || f[1] === 'interpreter';
    if (reached && name === 'beforeFirstParse') inside = true;
    else if (reached && name === 'afterFirstParse') break;
    else if (inside && f[1] === 'interpreter') {
      const file = scripts.get(f[2]!) ?? '';
      if (file.includes('/src/')) compiled.push(`${name} (${file.slice(file.indexOf('/src/') + 1)})`);
    }
  }
  if (!inside) throw new Error('the log has no first execution of the probe markers');
  return compiled;
}

describe('the first parseWebhook after import', () => {
  it('compiles no function of the parse path but parseWebhook (text message and status)', () => {
    expect(compiledDuringFirstParse()).toEqual(['parseWebhook (src/webhooks/parse.ts)']);
  });
});
