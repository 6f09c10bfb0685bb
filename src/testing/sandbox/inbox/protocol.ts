/**
 * What the inbox server tells the page over its event stream, and what the page posts back. The page's bundle
 * imports only types from here; the server checks what the page posts with the schemas.
 */
import { z } from 'zod';
import type { CampaignReport } from '../../../campaigns/tracker.js';
import type { DeliveryAttempt } from '../../deliver.js';
import { SENDER_PATTERN } from '../inject.js';

/** One message in a conversation, drawn as the recipient sees it. */
export interface InboxMessage {
  /** The wamid (outbound) or incoming message id; a refused send gets a local id. */
  id: string;
  direction: 'out' | 'in';
  /** The customer's number: the recipient of an outbound message, the sender of an incoming one. */
  peer: string;
  at: number;
  /** The outbound request body, or the incoming message object. */
  payload: Record<string, unknown>;
  /** Latest mark by rank (`sent` < `delivered` < `read`; `failed` wins); `refused` when the gateway said no. */
  status?: string;
  /** Status events in the order they were delivered (out of order and duplicates show here). */
  statusArrivals: string[];
  /** The gateway's error code and description for a refused send, or the upstream error of a failed one. */
  error?: string;
}

/** One webhook event and every attempt to deliver it. */
export interface LogEvent {
  eventId: number;
  label: string;
  /** The JSON body delivered. */
  body: string;
  at: number;
  /** `false` when the sandbox has no webhook URL: the event went nowhere. */
  delivered: boolean;
  attempts: DeliveryAttempt[];
}

export interface InboxTemplate {
  sourceId: string;
  name: string;
  language: string;
  category: string;
  status: string;
  /** A rejection's reason; `null` otherwise. */
  reason: string | null;
  request: Record<string, unknown>;
}

export interface InboxControls {
  nextFailure: { code: number; title: string } | null;
  statusOrder: 'in-order' | 'reversed';
  duplicateStatuses: boolean;
  /** `null` is unlimited. */
  balance: number | null;
  ratePerSecond: number;
  closedWindows: string[];
  /** The delivery schedule, ms before each attempt. */
  retryDelaysMs: readonly number[];
  webhookUrl: string | null;
}

/** A campaign's funnel, as the tracker given to the sandbox reports it (`CampaignReport`'s counts). */
export interface InboxCampaign {
  id: string;
  funnel: CampaignReport['funnel'];
  billable: number;
  failures: { code: string; count: number }[];
  /** Where the campaign stands in a `CampaignQueue` given to the sandbox; absent for a `sendMany` campaign. */
  queue?: InboxCampaignQueue;
}

/** A `CampaignQueue`'s status of a campaign, as the inbox draws it. */
export interface InboxCampaignQueue {
  state: string;
  /** Why it is paused or was cancelled: `<code>: <description>`; `null` when running. */
  hold: string | null;
  total: number;
  queued: number;
  inFlight: number;
  accepted: number;
  notSent: number;
  suppressed: number;
  inDoubt: number;
}

/** Sent on the event stream, one JSON object per `data:` line. */
export type StreamEvent =
  | {
      kind: 'snapshot';
      messages: InboxMessage[];
      log: LogEvent[];
      templates: InboxTemplate[];
      controls: InboxControls;
      gatewayUrl: string;
    }
  | { kind: 'message'; message: InboxMessage }
  | { kind: 'log'; event: LogEvent }
  | { kind: 'template'; template: InboxTemplate }
  | { kind: 'controls'; controls: InboxControls }
  | { kind: 'campaigns'; campaigns: InboxCampaign[] };

const from = z.string().regex(SENDER_PATTERN, 'a number with country code, digits only');

/** `POST /inbox/api/reply`: the customer answers. */
export const ReplyRequestSchema = z.discriminatedUnion('kind', [
  z.object({ from, kind: z.literal('text'), text: z.string().min(1).max(4096) }),
  z.object({ from, kind: z.literal('button'), id: z.string().max(256), title: z.string().max(20) }),
  z.object({
    from,
    kind: z.literal('quick_reply'),
    /** The template message whose button was tapped: the tap's `context.id`. */
    messageId: z.string().min(1).max(200),
    payload: z.string().min(1).max(256),
    text: z.string().min(1).max(25),
  }),
  z.object({
    from,
    kind: z.literal('list'),
    id: z.string().max(200),
    title: z.string().max(24),
    description: z.string().optional(),
  }),
  z.object({ from, kind: z.literal('reaction'), messageId: z.string().min(1), emoji: z.string().max(16) }),
  z.object({
    from,
    kind: z.literal('location'),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    name: z.string().max(1000).optional(),
    address: z.string().max(1000).optional(),
  }),
  z.object({
    from,
    kind: z.literal('media'),
    filename: z.string().min(1).max(255),
    mimeType: z.string().min(1).max(255),
    /** The file's bytes, base64. */
    data: z.base64(),
    caption: z.string().max(1024).optional(),
  }),
]);
export type ReplyRequest = z.infer<typeof ReplyRequestSchema>;

/** `POST /inbox/api/controls`: any subset. */
export const ControlsRequestSchema = z.strictObject({
  nextFailure: z
    .object({ code: z.int(), title: z.string().min(1).max(200) })
    .nullable()
    .optional(),
  statusOrder: z.enum(['in-order', 'reversed']).optional(),
  duplicateStatuses: z.boolean().optional(),
  balance: z.number().nullable().optional(),
  ratePerSecond: z.int().min(1).max(100_000).optional(),
  window: z.object({ peer: from, open: z.boolean() }).optional(),
});

/** `POST /inbox/api/redeliver`. */
export const RedeliverRequestSchema = z.strictObject({ eventId: z.int().min(1) });

/** `POST /inbox/api/templates`: the preview page's submit; `template` is the create request as JSON text. */
export const SubmitTemplateRequestSchema = z.strictObject({
  appId: z.string().min(1).max(200).default('sandbox'),
  template: z.string(),
  /** What happens to it after `templateApprovalMs`: approved (default), rejected with a reason, or left pending. */
  plan: z
    .strictObject({
      outcome: z.enum(['APPROVED', 'REJECTED', 'PENDING']),
      reason: z.string().min(1).max(200).optional(),
      pauseAfterMs: z.int().min(0).max(86_400_000).optional(),
    })
    .optional(),
});

/** `POST /inbox/api/template-status`: the template page moves a created template, with its webhook. */
export const TemplateStatusRequestSchema = z.strictObject({
  sourceId: z.string().min(1).max(40),
  status: z.enum(['APPROVED', 'REJECTED', 'PAUSED', 'FLAGGED', 'PENDING_DELETION']),
  reason: z.string().min(1).max(200).optional(),
});
