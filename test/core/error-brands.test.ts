/**
 * Every error class any entry of the package exports has a brand of its own (`brandError`, or the static field the
 * classes of core/errors.ts declare): without one, `instanceof` fails between the ESM and CJS copies of the SDK
 * (docs/errors-and-retries.md, "Errors from two copies of the SDK"). The entries are read from package.json's
 * `exports`, so a new entry, and a new error class in any entry, is checked without editing this test.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WaGatewayError } from '../../src/core/errors.js';

const BRAND = 'wa-gateway-sdk.error-class';

/** Each built entry (as package.json's `exports` names it under dist/) and its source (tsup.config.ts). */
const SOURCES: Record<string, string> = {
  index: 'src/index.ts',
  templates: 'src/templates/index.ts',
  'templates/schemas': 'src/templates/schema.ts',
  webhooks: 'src/webhooks/index.ts',
  'webhooks/schemas': 'src/webhooks/schemas.ts',
  testing: 'src/testing/index.ts',
  redis: 'src/redis/index.ts',
  schemas: 'src/schemas.ts',
  conversations: 'src/conversations/index.ts',
  'durable-objects': 'src/durable-objects/index.ts',
};

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, string | { import?: { default?: string } }>;
};
/** The dist names of the package's entries: `./dist/webhooks.js` is `webhooks`. */
const entries = Object.values(pkg.exports)
  .map((target) => (typeof target === 'string' ? undefined : target.import?.default))
  .filter((file): file is string => file !== undefined)
  .map((file) => file.replace(/^\.\/dist\//, '').replace(/\.js$/, ''));

type ErrorClass = abstract new (...args: never[]) => Error;
const isErrorClass = (value: unknown): value is ErrorClass =>
  typeof value === 'function' && (value === Error || value.prototype instanceof Error);

describe('error brands', () => {
  it("knows every entry of package.json's exports", () => {
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.filter((name) => !(name in SOURCES))).toEqual([]);
  });

  it('every exported error class of every entry has a brand of its own, its name', async () => {
    const classes = new Map<ErrorClass, string>();
    for (const name of entries) {
      const module = (await import(`../../${SOURCES[name]}`)) as Record<string, unknown>;
      for (const [exported, value] of Object.entries(module)) {
        if (isErrorClass(value)) classes.set(value, `${name}: ${exported}`);
      }
    }
    expect(classes.size).toBeGreaterThan(30);
    const wrong = [...classes]
      .filter(([cls]) => {
        const own = Object.getOwnPropertyDescriptor(cls, BRAND)?.value;
        return !(cls.prototype instanceof WaGatewayError || cls === WaGatewayError) || own !== cls.name;
      })
      .map(([, where]) => where);
    expect(wrong).toEqual([]);
    // A brand names one class: two classes sharing one would answer `instanceof` for each other.
    const brands = [...classes.keys()].map((cls) => Object.getOwnPropertyDescriptor(cls, BRAND)?.value);
    expect(new Set(brands).size).toBe(brands.length);
  });
});
