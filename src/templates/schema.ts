/**
 * Zod schemas of the template create request and of the created record, as the public API spec describes them.
 *
 * These schemas are structural only: field names, types, enums and which fields are required. The semantic
 * rules (lengths, variables, category, carousel and limited-time-offer rules) live in the rule table
 * (`rules.ts`) and are applied by `validateTemplate`. The rule table also derives its type, required and enum
 * checks and its document order from these schemas, so a field added here is checked and ordered at once.
 *
 * Request objects are strict (an unknown key is an error, as the server answers it with a 400); the created
 * record is loose, because the server may add fields to its answer.
 */
import * as z from '../core/zod.js';
import { TEMPLATE_LANGUAGES } from './languages.js';
import {
  BUTTON_TYPES,
  HEADER_FORMATS,
  OTP_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from './vocabulary.js';

export {
  BUTTON_TYPES,
  HEADER_FORMATS,
  OTP_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_STATUSES,
} from './vocabulary.js';

export const TemplateCategorySchema = z.enum(TEMPLATE_CATEGORIES);
export const TemplateLanguageSchema = z.enum(TEMPLATE_LANGUAGES);
export const HeaderFormatSchema = z.enum(HEADER_FORMATS);
export const ButtonTypeSchema = z.enum(BUTTON_TYPES);
export const OtpTypeSchema = z.enum(OTP_TYPES);
export const TemplateStatusSchema = z.enum(TEMPLATE_STATUSES);

/** Header component. `examples` holds the variable example of a TEXT header, or the media handle. */
export const TemplateHeaderSchema = z.strictObject({
  format: HeaderFormatSchema,
  text: z.optional(z.string()),
  examples: z.optional(z.array(z.string())),
});

/** Body component. `text` is required for UTILITY and MARKETING and not allowed for AUTHENTICATION. */
export const TemplateBodySchema = z.strictObject({
  text: z.optional(z.string()),
  examples: z.optional(z.array(z.string())),
  addSecurityRecommendation: z.optional(z.boolean()),
});

/** Footer component. */
export const TemplateFooterSchema = z.strictObject({
  text: z.optional(z.string()),
  codeExpirationMinutes: z.optional(z.int()),
});

/**
 * Button. One object shape for every type (which fields a type needs is a rule of the table, so the validator
 * can report a missing `url` with its code instead of a union mismatch).
 */
export const TemplateButtonSchema = z.strictObject({
  type: ButtonTypeSchema,
  text: z.optional(z.string()),
  url: z.optional(z.string()),
  phoneNumber: z.optional(z.string()),
  example: z.optional(z.array(z.string())),
  otpType: z.optional(OtpTypeSchema),
  autofillText: z.optional(z.string()),
  packageName: z.optional(z.string()),
  signatureHash: z.optional(z.string()),
  zeroTapTermsAccepted: z.optional(z.boolean()),
});

/** Carousel card: all three fields required, every card structurally identical. */
export const CarouselCardSchema = z.strictObject({
  header: TemplateHeaderSchema,
  body: TemplateBodySchema,
  buttons: z.array(TemplateButtonSchema),
});

/** Limited-time offer component. */
export const LimitedTimeOfferSchema = z.strictObject({
  text: z.string(),
  hasExpiration: z.optional(z.boolean()),
});

/**
 * The template create request. Key order is the spec's field order, which is also the order issues are
 * reported in.
 */
export const TemplateCreateRequestSchema = z.strictObject({
  name: z.string(),
  language: TemplateLanguageSchema,
  category: TemplateCategorySchema,
  header: z.optional(TemplateHeaderSchema),
  body: TemplateBodySchema,
  footer: z.optional(TemplateFooterSchema),
  buttons: z.optional(z.array(TemplateButtonSchema)),
  carousel: z.optional(z.array(CarouselCardSchema)),
  allowCategoryChange: z.optional(z.boolean()),
  messageSendTtlSeconds: z.optional(z.int()),
  limitedTimeOffer: z.optional(LimitedTimeOfferSchema),
});

/** The `data` of a successful create answer. Loose: fields the server adds later are kept. */
/**
 * The created record. Lenient on purpose: the template was created, so a new status value, a numeric id or an
 * unexpected category must not turn success into an error (a retry would then meet 409 UPSTREAM_017). A status
 * the SDK does not know reads as `UNKNOWN`, as the API itself reports statuses it does not recognise.
 */
export const TemplateCreatedSchema = z.looseObject({
  sourceId: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  name: z.string(),
  language: z.string(),
  category: z.union([TemplateCategorySchema, z.string()]),
  status: z.catch(TemplateStatusSchema, 'UNKNOWN'),
});

export type TemplateCategory = z.output<typeof TemplateCategorySchema>;
export type HeaderFormat = z.output<typeof HeaderFormatSchema>;
export type ButtonType = z.output<typeof ButtonTypeSchema>;
export type OtpType = z.output<typeof OtpTypeSchema>;
export type TemplateStatus = z.output<typeof TemplateStatusSchema>;
export interface TemplateHeader extends z.output<typeof TemplateHeaderSchema> {}
export interface TemplateBody extends z.output<typeof TemplateBodySchema> {}
export interface TemplateFooter extends z.output<typeof TemplateFooterSchema> {}
export interface TemplateButton extends z.output<typeof TemplateButtonSchema> {}
export interface CarouselCard extends z.output<typeof CarouselCardSchema> {}
export interface LimitedTimeOffer extends z.output<typeof LimitedTimeOfferSchema> {}
export interface TemplateCreateRequest extends z.output<typeof TemplateCreateRequestSchema> {}
export interface TemplateCreated extends z.output<typeof TemplateCreatedSchema> {}
