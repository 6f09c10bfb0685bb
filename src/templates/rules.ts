/**
 * THE RULE TABLE of template validation. Each rule is data: a stable id, the spec's code (or `null` when the
 * spec names none for that rule), the server's `errors.fields` key it reports at, a description for the docs
 * page, and a `check` that reports violations. `validateTemplate` runs the table; `docs/template-rules.md` is
 * rendered from it; nothing else decides what is valid.
 *
 * Three kinds of rule:
 * - generic rules derived from the zod schemas (`schema.ts`): the type of every field (`type.<field>`),
 *   required fields (`<field>.required`) and enum membership (`<field>.enum`);
 * - the semantic rules the spec states (lengths, variables, button fields, category, carousel and
 *   limited-time-offer rules), written once per component and instantiated for the top level and for
 *   carousel cards where the spec applies them to both (`body.*` and `carousel.body.*`);
 * - `unknown_field` and `internal_error`.
 *
 * Decisions the spec leaves open, applied throughout:
 * - Lengths count Unicode code points (`charCount`), not UTF-16 code units, so an emoji counts as one
 *   character: the one unit of every character limit in the SDK (see `core/text.ts` for the evidence).
 * - A required string that is empty (`''`) counts as missing. "Not allowed" rules fire on any present value,
 *   even `''` or `false` (the spec forbids the field, not a value of it).
 * - Variables are `{{n}}` with decimal digits. The number of variables is the number of DISTINCT variables
 *   (`{{1}} ... {{1}}` is one variable, needing one example), numbered 1..n without gaps.
 * - "Starts/ends with a variable" is judged after trimming white space.
 * - Rules that depend on the category run only when `category` is valid; rules that depend on another field's
 *   type run only when that field has the right type (its type rule already reported it otherwise). So one
 *   mistake gives one issue, not a cascade.
 */

import { bodyRules } from './rules/body.js';
import { buttonRules } from './rules/buttons.js';
import { carouselRules } from './rules/carousel.js';
import { footerRules } from './rules/footer.js';
import { genericRules, typeRule } from './rules/generic.js';
import { headerRules } from './rules/header.js';
import { ltoRules } from './rules/limited-time-offer.js';
import type { TemplateRule, TemplateRuleInfo } from './rules/snapshot.js';
import { INTERNAL_ERROR_RULE, scalarRules, ttlRule, unknownFieldRule } from './rules/top-level.js';
import { TEMPLATE_SHAPE } from './shape.generated.js';

export type { Shape, TemplatePath } from './rules/shape.js';
export {
  type Emit,
  type Occurrence,
  Opaque,
  type RuleContext,
  SArray,
  SObject,
  type SValue,
  type TemplateRule,
  type TemplateRuleInfo,
  UNREADABLE,
} from './rules/snapshot.js';
export { charCount, formatPath, quote, where } from './rules/text.js';
export { INTERNAL_ERROR_RULE } from './rules/top-level.js';
export {
  endsWithVariable,
  scanVariables,
  startsWithVariable,
  type VariableScan,
} from './rules/variables.js';
export { TEMPLATE_SHAPE } from './shape.generated.js';

// ---------------------------------------------------------------------------------------------------------
// The table.

// Components whose rules apply at the top level and inside carousel cards: built once, split by scope.
const HEADER_RULES = headerRules();
const BODY_RULES = bodyRules();
const BUTTON_RULES = buttonRules();
const inCards = (r: TemplateRule) => r.id.startsWith('carousel.');
const atTop = (r: TemplateRule) => !inCards(r);

/** Every rule, grouped by section in the spec's field order. */
export const TEMPLATE_RULES: readonly TemplateRule[] = Object.freeze([
  typeRule('', '', TEMPLATE_SHAPE, false),
  unknownFieldRule(),
  ...genericRules('name'),
  ...scalarRules(),
  ...genericRules('language'),
  ...genericRules('category'),
  ...genericRules('header'),
  ...HEADER_RULES.filter(atTop),
  ...genericRules('body'),
  ...BODY_RULES.filter(atTop),
  ...genericRules('footer'),
  ...footerRules(),
  ...genericRules('buttons'),
  ...BUTTON_RULES.filter(atTop),
  ...genericRules('carousel'),
  ...carouselRules(),
  ...HEADER_RULES.filter(inCards),
  ...BODY_RULES.filter(inCards),
  ...BUTTON_RULES.filter(inCards),
  ...genericRules('allowCategoryChange'),
  ...genericRules('messageSendTtlSeconds'),
  ttlRule(),
  ...genericRules('limitedTimeOffer'),
  ...ltoRules(),
  INTERNAL_ERROR_RULE,
]);

/**
 * The rule table for docs and tooling: id, code, field and description of every rule, read-only.
 *
 * @example
 * import { templateRules } from 'wa-gateway-sdk/templates';
 * const coded = templateRules.filter((r) => r.code !== null).map((r) => `${r.code} ${r.id}`);
 */
export const templateRules: readonly Readonly<TemplateRuleInfo>[] = Object.freeze(
  TEMPLATE_RULES.map(({ id, code, field, description }) => Object.freeze({ id, code, field, description })),
);
