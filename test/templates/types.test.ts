/** Type-level contracts, checked by `npm run typecheck` (and at run time where a value exists). */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type TemplateCreateRequest,
  type TemplateIssue,
  TemplateValidationError,
  validateTemplate,
} from '../../src/index.js';

describe('template validation types', () => {
  it('TemplateValidationError.issues is TemplateIssue[] after instanceof, not any', () => {
    const caught: unknown = new TemplateValidationError([
      { code: 'WA_TPL_034', rule: 'name.pattern', path: ['name'], field: 'name', message: 'bad name' },
    ]);
    expect(caught).toBeInstanceOf(TemplateValidationError);
    if (caught instanceof TemplateValidationError) {
      expectTypeOf(caught.issues).toEqualTypeOf<TemplateIssue[]>();
      expect(caught.issues[0]?.rule).toBe('name.pattern');
    }
  });

  it('a valid result narrows the input to TemplateCreateRequest', () => {
    const input: unknown = {
      name: 'hello',
      language: 'en',
      category: 'UTILITY',
      body: { text: 'Hello there' },
    };
    const result = validateTemplate(input);
    expect(result.valid).toBe(true);
    if (result.valid) {
      expectTypeOf(result.template).toEqualTypeOf<TemplateCreateRequest>();
      expect(result.template).toBe(input);
    } else {
      expectTypeOf(result.issues).toEqualTypeOf<TemplateIssue[]>();
    }
  });
});
