import { available, chromium, redisServer } from './system-servers.js';

/** Says once, in one line per program, which suites are skipped on this machine and how to enable them. */
export default function setup(): void {
  for (const program of [redisServer, chromium]) {
    if (!available(program))
      process.stdout.write(
        `${program.name} not found: its suites are skipped. To run them: ${program.enable}\n`,
      );
  }
}
