import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderTemplateRulesDoc, TEMPLATE_RULES_DOC_PATH } from '../../scripts/gen-template-rules.js';
import { templateRules } from '../../src/templates/index.js';

describe('docs/template-rules.md', () => {
  it('equals the page rendered from the rule table (run `npm run docs:template-rules` when this fails)', () => {
    expect(readFileSync(TEMPLATE_RULES_DOC_PATH, 'utf8')).toBe(renderTemplateRulesDoc());
  });

  it('has one row per rule with its code and field', () => {
    const rows = renderTemplateRulesDoc()
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    expect(rows).toHaveLength(templateRules.length);
    templateRules.forEach((rule, i) => {
      const cells = rows[i]!.split(/(?<!\\)\|/).map((c) => c.trim());
      expect(cells[1]).toBe(`\`${rule.id}\``);
      expect(cells[2]).toBe(rule.code ?? '—');
      expect(cells[3]).toBe(rule.field === '' ? '(template)' : `\`${rule.field}\``);
    });
  });
});
