/**
 * `wa-gateway-sdk/schemas`: the zod schemas meant for users, to validate in their own code what they will hand
 * to the SDK (a message, a template, a batch-send item, a platform query) or what reaches their own server (a
 * webhook envelope), with the SDK's own rules. The SDK's methods validate all of this themselves: these are for
 * a form, a queue consumer or an import job that wants the same verdict before it calls. Every schema here gives
 * the same answer as the SDK's own check (`TemplateCreateRequestSchema` runs `validateTemplate`'s rule table, the
 * query schemas their span limits), except the template parts, which are named `...ShapeSchema`: a part's rules
 * depend on the whole template, so alone it is checked for its shape only.
 *
 * Not here, on purpose: the schemas of the servers' answers (send result, login, reports, stream records...),
 * which the SDK validates and returns typed, and whose tolerances must be free to change without a semver event;
 * and the enum schemas whose values are exported as constants (`REPORT_DATA`, `BUTTON_TYPES`...:
 * `z.enum(REPORT_DATA)`). The template and webhook schemas are zod/mini schemas (`parse`, `safeParse` and
 * `z.infer` work; chain methods such as `.optional()` do not); the webhook message and status parts are also on
 * `wa-gateway-sdk/webhooks`, which a Worker can import without classic zod.
 *
 * @example
 * ```ts
 * import { outboundMessageSchema } from 'wa-gateway-sdk/schemas';
 *
 * const result = outboundMessageSchema.safeParse({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
 * if (!result.success) console.log(result.error.issues);
 * ```
 */
export {
  outboundAudioMessageSchema,
  outboundDocumentMessageSchema,
  outboundImageMessageSchema,
  outboundInteractiveMessageSchema,
  outboundMessageSchema,
  outboundTemplateMessageSchema,
  outboundTextMessageSchema,
  recipientSchema,
  templateComponentSchema,
  templateParameterSchema,
} from './gateway/message-schema.js';
export { messageItemSchema } from './platform/messages.schema.js';
export {
  conversationsQuerySchema,
  feedbacksQuerySchema,
  reportQuerySchema,
} from './platform/reports.schema.js';
export { streamQuerySchema } from './platform/stream.schema.js';
// Template parts are judged only within a whole template (a rule may depend on the category or on another part),
// so they are exported as what they are: shapes, named so. The whole template gets the SDK's verdict.
export {
  CarouselCardSchema as CarouselCardShapeSchema,
  LimitedTimeOfferSchema as LimitedTimeOfferShapeSchema,
  TemplateBodySchema as TemplateBodyShapeSchema,
  TemplateButtonSchema as TemplateButtonShapeSchema,
  TemplateFooterSchema as TemplateFooterShapeSchema,
  TemplateHeaderSchema as TemplateHeaderShapeSchema,
} from './templates/schema.js';
export { templateCreateRequestVerdictSchema as TemplateCreateRequestSchema } from './templates/verdict-schema.js';
export { webhookEnvelopeSchema } from './webhooks/schemas.js';
