import type { RetryRules } from '../core/retry-policy.js';

/**
 * The gateway's order of checks is auth → rate limit → balance → forward. `RATE_001` and `AUTH_004` are
 * answered before anything is forwarded, so repeating them cannot send twice; the other auth, balance and
 * account codes are answered before forwarding too, but a repeat would meet them again. `GW_001` is the
 * upstream's refusal of the message itself (an unregistered recipient, a closed window, an unknown template,
 * inaccessible media, parameters that do not match): not sent, and the same message gets the same answer, so it
 * is never repeated, not even by a campaign's retry list. A 502 without the gateway's envelope has no code: it
 * may have been sent. Every 4xx the spec lists (400 malformed, 401, 402, 403, 429) is answered before forwarding,
 * and the upstream's refusal is a 502: one of those statuses with a code the table lacks (the spec's validation
 * codes are not shown) or with none (a proxy in front) was not sent either. Another 4xx may have been (a proxy's
 * 408 can come after it forwarded the request). `sendMany` reads "was it sent?" from the same table
 * (`mayHaveBeenSent`).
 */
export const GATEWAY_RETRY_RULES: RetryRules = {
  retryableCodes: ['RATE_001', 'AUTH_004'],
  refusedCodes: [
    'AUTH_001',
    'AUTH_002',
    'AUTH_003',
    'AUTH_005',
    'BILL_001',
    'BILL_002',
    'WABA_001',
    'SEC_001',
    'GW_001',
  ],
  neverRetryCodes: ['GW_001'],
  refusalStatuses: [400, 401, 402, 403, 429],
};
