/**
 * The main entry's runtime exports, and the `wa-gateway-sdk/schemas` entry's, are exactly the lists in
 * docs/api-surface.md: an export added or removed without the page changing fails here, so a change of the public
 * surface is always a deliberate one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sdk from '../src/index.js';
import * as schemas from '../src/schemas.js';
import * as webhooks from '../src/webhooks/index.js';

const page = readFileSync(new URL('../docs/api-surface.md', import.meta.url), 'utf8');
const [mainPart, schemasPart = ''] = page.split(/^## `wa-gateway-sdk\/schemas`.*$/m);
const names = (part: string) => [...part.matchAll(/^- `([\w$]+)`$/gm)].map((m) => m[1]!);
const listed = names(mainPart!);
const listedSchemas = names(schemasPart);

const compare = (exported: string[], expected: string[]) => ({
  'exported but not listed': exported.filter((k) => !expected.includes(k)).sort(),
  'listed but not exported': expected.filter((k) => !exported.includes(k)).sort(),
});

describe('the main entry', () => {
  it('exports exactly what docs/api-surface.md lists', () => {
    expect(compare(Object.keys(sdk), listed)).toEqual({
      'exported but not listed': [],
      'listed but not exported': [],
    });
  });

  it('lists each name once', () => {
    const all = [...listed, ...listedSchemas];
    expect(all.length).toBe(new Set(all).size);
    expect(all.length).toBeGreaterThan(60);
  });

  it('shares no runtime name with wa-gateway-sdk/webhooks but error classes (that entry owns the rest)', () => {
    const shared = Object.keys(webhooks).filter((k) => k in sdk);
    expect(shared.length).toBeGreaterThan(0);
    expect(
      shared.filter(
        (k) => !(sdk as Record<string, unknown>)[k]?.toString().startsWith('class ') || !k.endsWith('Error'),
      ),
    ).toEqual([]);
  });

  it('keeps the SDK plumbing private', () => {
    for (const name of [
      'brandError',
      'apiErrorClassFor',
      'errorClassByStatus',
      'CHANGE_FIELDS',
      'GATEWAY_RETRY_RULES',
    ])
      expect(Object.keys(sdk)).not.toContain(name);
  });

  it('exports no zod schema: they are on wa-gateway-sdk/schemas', () => {
    const isSchema = (v: unknown) =>
      typeof v === 'object' && v !== null && 'safeParse' in v && typeof v.safeParse === 'function';
    expect(
      Object.entries(sdk)
        .filter(([, v]) => isSchema(v))
        .map(([k]) => k),
    ).toEqual([]);
  });
});

describe('wa-gateway-sdk/schemas', () => {
  it('exports exactly what docs/api-surface.md lists under it', () => {
    expect(compare(Object.keys(schemas), listedSchemas)).toEqual({
      'exported but not listed': [],
      'listed but not exported': [],
    });
  });

  it('exports schemas that validate', () => {
    expect(
      schemas.outboundMessageSchema.safeParse({ to: '998901234567', type: 'text', text: { body: 'Hi' } })
        .success,
    ).toBe(true);
    expect(schemas.recipientSchema.safeParse('+998').success).toBe(false);
  });
});
