/**
 * docs/cli.md and `wa-gateway --help` come from the same data: the trigger's event table is the list `--help`
 * prints (a trigger added to the code and not to the page fails here), and every command has its row and section.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { TRIGGER_EVENT_GROUPS } from '../../src/cli/trigger.js';

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

/** The lines of the markdown table that starts with `header`, in `section`. */
function table(section: string, header: string): string[] {
  const body = page.split(/^## /m).find((s) => s.startsWith(`${section}\n`)) ?? '';
  const lines = body.split('\n');
  const start = lines.indexOf(header);
  if (start === -1) return [];
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end === -1 ? undefined : end);
}

async function help(args: string[]): Promise<string> {
  let out = '';
  const io = {
    stdout: (t: string) => {
      out += t;
    },
    stderr: () => {},
    env: {},
    interrupted: new Promise<void>(() => {}),
  };
  await runCli(args, io);
  return out;
}

describe('docs/cli.md', () => {
  it("the trigger's event table is what --help lists, group by group, with the same notes", async () => {
    const rows = TRIGGER_EVENT_GROUPS.map(
      ({ group, events }) =>
        `| ${group} | ${events.map((e) => `\`${e.name}\`${e.note ? ` (${e.note})` : ''}`).join(', ')} |`,
    );
    expect(table('trigger', '| group | events |')).toEqual(['| group | events |', '|---|---|', ...rows]);
    const listed = (await help(['trigger', '--help'])).split('Events:\n')[1]!.replace(/\s+/g, ' ');
    for (const { group, events } of TRIGGER_EVENT_GROUPS)
      expect(listed).toContain(`${group} ${events.map((e) => e.name).join(', ')}`);
  });

  it('every command --help lists has its row in the command table and its section', async () => {
    const commands = [...(await help(['--help'])).matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]!);
    expect(commands).toContain('say');
    const rows = page.split('\n').filter((l) => l.startsWith('| `wa-gateway '));
    for (const name of commands) {
      expect(
        rows.some((r) => r.startsWith(`| \`wa-gateway ${name}`)),
        `a row for ${name}`,
      ).toBe(true);
      expect(page, `a section for ${name}`).toMatch(new RegExp(`^## ${name}$`, 'm'));
    }
  });
});
