/**
 * `wa-gateway-sdk/templates`: local validation of template create requests, the template types and schemas,
 * the language list and the rule table. Imports zod and relative files only: it runs in a browser form.
 */
export { TemplateValidationError } from '../core/errors.js';
export {
  defineTemplate,
  type TemplateBodyValue,
  type TemplateButtonValues,
  type TemplateDefinition,
  type TemplateMediaValue,
  type TemplateSendValues,
  type TemplateValues,
  type TemplateVariables,
  type UntypedTemplateSendValues,
  type ValuesArgument,
} from './define.js';
export { isTemplateLanguage, TEMPLATE_LANGUAGES, type TemplateLanguage } from './languages.js';
export { type TemplateRuleInfo, templateRules } from './rules.js';
export type {
  ButtonType,
  CarouselCard,
  HeaderFormat,
  LimitedTimeOffer,
  OtpType,
  TemplateBody,
  TemplateButton,
  TemplateCategory,
  TemplateCreated,
  TemplateCreateRequest,
  TemplateFooter,
  TemplateHeader,
  TemplateStatus,
} from './schema.js';
export {
  TEMPLATE_SEND_RULES,
  TemplateSendError,
  type TemplateSendProblem,
  type TemplateSendRule,
} from './send-check.js';
export {
  assertValidTemplate,
  type TemplateIssue,
  type TemplateValidationResult,
  validateTemplate,
} from './validate.js';
export {
  BUTTON_TYPES,
  HEADER_FORMATS,
  OTP_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from './vocabulary.js';
