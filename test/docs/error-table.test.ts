/**
 * docs/errors-and-retries.md's table is where a user looks up an error: every error class any entry exports has
 * its row, and no row names a class that does not exist.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as conversations from '../../src/conversations/index.js';
import * as durableObjects from '../../src/durable-objects/index.js';
import * as main from '../../src/index.js';
import * as redis from '../../src/redis/index.js';
import * as templates from '../../src/templates/index.js';
import * as webhooks from '../../src/webhooks/index.js';

const { WaGatewayError } = main;

function errorClasses(entry: Record<string, unknown>): string[] {
  return Object.entries(entry)
    .filter(
      ([, value]) =>
        typeof value === 'function' &&
        (value === WaGatewayError || value.prototype instanceof WaGatewayError),
    )
    .map(([name]) => name);
}

describe('docs/errors-and-retries.md', () => {
  const table = readFileSync(new URL('../../docs/errors-and-retries.md', import.meta.url), 'utf8');
  const rows = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
  const exported = new Set(
    [main, webhooks, redis, conversations, templates, durableObjects].flatMap((entry) => errorClasses(entry)),
  );

  it('has a row for every exported error class', () => {
    expect(exported.size).toBeGreaterThan(25);
    const missing = [...exported].filter((name) => name !== 'WaGatewayError' && !rows.includes(name));
    expect(missing).toEqual([]);
  });

  it('names no class that is not exported', () => {
    expect(rows.filter((name) => !exported.has(name!))).toEqual([]);
  });
});
