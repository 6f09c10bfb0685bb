import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, RateLimiter, WaGatewayError } from '../../src/index.js';
import { toClaimResult } from '../../src/webhooks/dedup.js';

// Every error the library throws is an SDK error: `instanceof WaGatewayError` catches them all, with a
// subclass that says what went wrong. A raw RangeError or TypeError escapes every `catch (e) { if (e instanceof
// WaGatewayError) ... }` a user writes.

const src = fileURLToPath(new URL('../../src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the library throws SDK errors only', () => {
  it('no `throw new Error/RangeError/TypeError(` in library code (the CLI prints its own usage errors)', () => {
    const offenders = files(src)
      .filter((f) => !relative(src, f).startsWith('cli'))
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .map((line, i) => [line, i] as const)
          .filter(([line]) => /throw new (Range|Type|Syntax|Reference)?Error\(/.test(line))
          .map(([, i]) => `${relative(src, f)}:${i + 1}`),
      );
    expect(offenders).toEqual([]);
  });

  it('a bad rate limit is a ConfigurationError', () => {
    expect(() => new RateLimiter({ perSecond: 0 })).toThrow(ConfigurationError);
    expect(() => new RateLimiter({ perSecond: 1.5 })).toThrow(ConfigurationError);
    expect(() => new RateLimiter({ perSecond: 10, windowMs: Number.NaN })).toThrow(ConfigurationError);
  });

  it("an idempotency store's unknown answer is a ConfigurationError", () => {
    expect(() => toClaimResult('OK' as never)).toThrow(ConfigurationError);
    expect(() => toClaimResult(null as never)).toThrow(WaGatewayError);
  });
});
