/**
 * A green run reads as green: a test that makes the SDK write to the console through its default logger fails.
 * Tests that provoke a warning pass their own logger and assert what it received; this catches the ones that
 * forgot, where the line would otherwise scroll past in a passing run.
 *
 * Only the SDK's own lines are caught, by their prefixes (`[wa-gateway webhooks]` from the webhook handlers,
 * `wa-gateway-sdk:` from the clients and stores); a test that spies on the console itself (to check the default
 * logger) replaces these wrappers while it runs and is not affected. A line printed after its test ended (a timer,
 * a reconnect) fails the test during which it was printed; one printed in a `beforeAll`/`afterAll` or after the
 * file's last test fails the file (this `afterAll`, registered first, runs after the file's own).
 */
import { afterAll, afterEach } from 'vitest';

const SDK_LINE = /^(\[wa-gateway webhooks\]|wa-gateway-sdk:)/;
const printed: string[] = [];

for (const level of ['debug', 'info', 'warn', 'error', 'log'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && SDK_LINE.test(args[0])) printed.push(`console.${level}: ${args[0]}`);
    original(...args);
  };
}

function check(): void {
  if (printed.length === 0) return;
  const lines = printed.splice(0);
  throw new Error(
    `The SDK wrote ${lines.length} line(s) to the console through its default logger. Pass the test's own logger ` +
      `(logger: { warn, error }) and assert what it receives:\n${lines.map((l) => `  ${l.slice(0, 300)}`).join('\n')}`,
  );
}

afterEach(check);
afterAll(check);
