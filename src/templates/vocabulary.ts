/**
 * The values the template API documents, as constants: what the schemas' enums are built from and what the
 * `wa-gateway-sdk/templates` entry exports. Imports nothing, so the entry loads no zod for them.
 */

/** Template categories. */
export const TEMPLATE_CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'] as const;
/** Header formats; `NONE` is the default when the header is omitted. */
export const HEADER_FORMATS = ['NONE', 'TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION'] as const;
/** Button types. */
export const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP'] as const;
/** Kinds of one-time-password button. */
export const OTP_TYPES = ['COPY_CODE', 'ONE_TAP', 'ZERO_TAP'] as const;
/** Template statuses; `UNKNOWN` is a status the upstream platform reported that the API does not recognise. */
export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'UNKNOWN',
] as const;
