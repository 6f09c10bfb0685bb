import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run demo', () => {
  it('runs offline, shows every status reaching the webhook and the template issues, and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
      cwd: root,
      timeout: 15_000,
    });
    for (const status of ['sent', 'delivered', 'read'])
      expect(stdout.match(new RegExp(`webhook  ${status} `, 'g'))).toHaveLength(3);
    expect(stdout).toContain('billable deliveries: 3');
    expect(stdout).toMatch(/validateTemplate\(broken\): valid=false, \d+ issues/);
    expect(stdout).toContain('WA_TPL_034');
  });
});
