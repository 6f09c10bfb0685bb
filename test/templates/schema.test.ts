import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  isTemplateLanguage,
  TEMPLATE_LANGUAGES,
  TEMPLATE_STATUSES,
  type TemplateCreated,
} from '../../src/templates/index.js';
import { TemplateCreatedSchema, TemplateCreateRequestSchema } from '../../src/templates/schema.js';

const SPEC = '/work/shared/spec/public-api-and-platform.md';

describe('TEMPLATE_LANGUAGES', () => {
  it('is a closed list of unique codes', () => {
    expect(TEMPLATE_LANGUAGES.length).toBe(111);
    expect(new Set(TEMPLATE_LANGUAGES).size).toBe(TEMPLATE_LANGUAGES.length);
    for (const code of TEMPLATE_LANGUAGES) expect(code).toMatch(/^[a-z]{2,3}(_[A-Z]{2})?$/);
    expect(isTemplateLanguage('en_US')).toBe(true);
    expect(isTemplateLanguage('en-US')).toBe(false);
    expect(isTemplateLanguage('EN')).toBe(false);
    expect(isTemplateLanguage(1)).toBe(false);
  });

  it.skipIf(!existsSync(SPEC))('is exactly the spec list, in its order', () => {
    const line = readFileSync(SPEC, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('**Language codes:**'))!;
    const list = line
      .replace('**Language codes:**', '')
      .split('.')[0]!
      .split(',')
      .map((s) => s.trim());
    expect([...TEMPLATE_LANGUAGES]).toEqual(list);
  });
});

describe('TemplateCreatedSchema', () => {
  const created = {
    sourceId: '1234567890',
    name: 'order_update',
    language: 'en',
    category: 'UTILITY',
    status: 'PENDING',
  };

  it('parses the created record and keeps fields the server adds', () => {
    const parsed: TemplateCreated = TemplateCreatedSchema.parse({ ...created, addedLater: 1 });
    expect(parsed).toEqual({ ...created, addedLater: 1 });
  });

  it('knows the 10 statuses; reads any other as UNKNOWN (the create succeeded); needs the id', () => {
    expect(TEMPLATE_STATUSES).toHaveLength(10);
    for (const status of TEMPLATE_STATUSES)
      expect(TemplateCreatedSchema.safeParse({ ...created, status }).data?.status).toBe(status);
    expect(TemplateCreatedSchema.safeParse({ ...created, status: 'GONE' }).data?.status).toBe('UNKNOWN');
    expect(TemplateCreatedSchema.safeParse({ ...created, sourceId: undefined }).success).toBe(false);
  });
});

describe('TemplateCreateRequestSchema', () => {
  it('is strict, structural and agrees with the validator on types', () => {
    const base = { name: 'n', language: 'en', category: 'UTILITY', body: { text: 'B.' } };
    expect(TemplateCreateRequestSchema.safeParse(base).success).toBe(true);
    expect(TemplateCreateRequestSchema.safeParse({ ...base, extra: 1 }).success).toBe(false);
    expect(TemplateCreateRequestSchema.safeParse({ ...base, messageSendTtlSeconds: 1.5 }).success).toBe(
      false,
    );
    expect(TemplateCreateRequestSchema.safeParse({ ...base, language: 'xx' }).success).toBe(false);
  });
});
