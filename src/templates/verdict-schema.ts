/**
 * `TemplateCreateRequestSchema` as `wa-gateway-sdk/schemas` exports it: the SDK's verdict, not only the shape.
 * `validateTemplate` runs the whole rule table (names, lengths, variables, category rules, button rules...);
 * this schema runs it too, so `safeParse(t).success === validateTemplate(t).valid` for every input, and each zod
 * issue carries the template issue's `rule` and `code` in `params`. The shape alone is `templates/schema.ts`.
 */
import * as z from '../core/zod.js';
import { TemplateCreateRequestSchema as shapeSchema } from './schema.js';
import { validateTemplate } from './validate.js';

/** Every template issue as a zod issue (message, exact path, and `params: { rule, code }`). */
const ruleTable = z.superRefine((input: unknown, ctx) => {
  for (const issue of validateTemplate(input).issues) {
    ctx.addIssue({
      code: 'custom',
      input,
      path: issue.path,
      message: issue.message,
      params: { rule: issue.rule, code: issue.code },
    });
  }
});

/**
 * A template create request judged as `validateTemplate` judges it (every rule of the table), typed as
 * `TemplateCreateRequest` when valid.
 *
 * @example
 * import { TemplateCreateRequestSchema } from 'wa-gateway-sdk/schemas';
 * const r = TemplateCreateRequestSchema.safeParse({ name: 'Bad Name!', language: 'en_US', category: 'UTILITY', body: { text: 'Hi' } });
 * r.success; // false: issues[0].params.rule === 'name.format'
 */
export const templateCreateRequestVerdictSchema = z.pipe(z.unknown().check(ruleTable), shapeSchema);
