import type { RetryRules } from '../core/retry-policy.js';

/**
 * The platform answers with plain bodies and no error codes: only statuses decide. GETs are repeated on
 * connection faults and 5xx by the transport's default; POSTs are not repeated once they may have arrived.
 */
export const PLATFORM_RETRY_RULES: RetryRules = {
  retryableCodes: [],
  neverRetryCodes: [],
  // The refusals the spec lists for its endpoints (and a rate limit's): a 5xx, or another 4xx such as a proxy's 408,
  // may come after it acted.
  refusalStatuses: [400, 401, 403, 404, 405, 429],
};
