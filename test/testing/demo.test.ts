import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('npm run demo', () => {
  it('runs offline, shows every status reaching the webhook and the template issues, and exits 0', async () => {
    // A failure bound, not a speed test: a busy machine takes its time to start tsx.
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    for (const status of ['sent', 'delivered', 'read'])
      expect(stdout.match(new RegExp(`webhook: status ${status} `, 'g'))).toHaveLength(3);
    expect(stdout).toContain('billable deliveries: 3');
    expect(stdout).toMatch(/validateTemplate\(broken\): valid=false, \d+ issues/);
    expect(stdout).toContain('WA_TPL_034');
  });

  it('reads for a newcomer: a headline per phase, "accepted" for the API\'s answer, rule ids, next steps', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout.match(/^== \d\. /gm)).toEqual(['== 1. ', '== 2. ', '== 3. ', '== 4. ', '== 5. ']);
    // "sent" is only the status: the gateway's answer to a send is "accepted".
    expect(stdout.match(/accepted: /g)).toHaveLength(3);
    expect(stdout).not.toMatch(/^\s*\d+ ms {2}sent /m);
    // An issue without a server code shows its rule id, never a dash.
    expect(stdout).not.toContain('—');
    expect(stdout).toMatch(/^ {2}buttons\.url\.https +buttons/m);
    expect(stdout).toContain("read this demo's code: examples/demo.ts");
  });
});
