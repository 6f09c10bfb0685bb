import type { RetryRules } from '../core/retry-policy.js';

/**
 * The platform answers with plain bodies and no error codes: only statuses decide. GETs are repeated on
 * connection faults and 5xx by the transport's default; POSTs are not repeated once they may have arrived.
 */
export const PLATFORM_RETRY_RULES: RetryRules = {
  retryableCodes: [],
  neverRetryCodes: [],
  // A 4xx is the platform refusing the request; a 5xx may come after it acted.
  refusalsHadNoEffect: true,
};
