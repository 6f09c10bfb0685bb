/** Test builder of an account update value: see `fixtures.ts`. */
import type { AccountUpdateValue } from './account-update.js';

/** An account update value (a ban by default). */
export function accountUpdateValue(overrides: Partial<AccountUpdateValue> = {}): AccountUpdateValue {
  return {
    phone_number: '15550009999',
    event: 'DISABLED_UPDATE',
    ban_info: { waba_ban_state: 'DISABLE', waba_ban_date: '2024-01-31' },
    ...overrides,
  };
}
