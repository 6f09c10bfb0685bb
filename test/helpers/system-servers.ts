import { execFileSync } from 'node:child_process';

/**
 * System programs some suites need: a real `redis-server` and Debian's `chromium`. A suite that needs one runs
 * whenever it is installed; CI (`.ci/run` exports WA_REQUIRE_SYSTEM_SERVERS=1) makes it mandatory, so a missing
 * program fails the run there instead of skipping quietly.
 */
export interface SystemProgram {
  name: 'redis-server' | 'chromium';
  path: string | null;
  enable: string;
}

function which(bin: string): string | null {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${bin}`], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}

export const required = process.env.WA_REQUIRE_SYSTEM_SERVERS === '1';

export const redisServer: SystemProgram = {
  name: 'redis-server',
  path: process.env.REDIS_SERVER_BIN ?? which('redis-server'),
  enable: 'apt-get install redis-server',
};

export const chromium: SystemProgram = {
  name: 'chromium',
  path: process.env.CHROMIUM_BIN ?? which('chromium'),
  enable: 'apt-get install chromium',
};

/** True when the program is there; throws when it is required (CI) and missing. */
export function available(program: SystemProgram): boolean {
  if (program.path) return true;
  if (required) throw new Error(`${program.name} is required in CI but was not found (${program.enable})`);
  return false;
}
