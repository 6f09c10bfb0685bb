/**
 * The main entry's runtime exports are exactly the list in docs/api-surface.md: an export added or removed
 * without the page changing fails here, so a change of the public surface is always a deliberate one.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as sdk from '../src/index.js';

const page = readFileSync(new URL('../docs/api-surface.md', import.meta.url), 'utf8');
const listed = [...page.matchAll(/^- `([\w$]+)`$/gm)].map((m) => m[1]!);

describe('the main entry', () => {
  it('exports exactly what docs/api-surface.md lists', () => {
    const exported = Object.keys(sdk);
    expect({
      'exported but not listed': exported.filter((k) => !listed.includes(k)).sort(),
      'listed but not exported': listed.filter((k) => !exported.includes(k)).sort(),
    }).toEqual({ 'exported but not listed': [], 'listed but not exported': [] });
  });

  it('lists each name once', () => {
    expect(listed.length).toBe(new Set(listed).size);
    expect(listed.length).toBeGreaterThan(100);
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
});
