import type { ApiPromise } from '../core/api-promise.js';
import { detailOf } from './answers.js';
import { argumentsCheck, requireUuid, wrapValues } from './arguments.js';
import { type CallOptions, callOf, type PlatformHttp } from './http.js';
import {
  type CustomerUpdate,
  type CustomFields,
  customerUpdateSchema,
  customFieldsSchema,
  type DetailResponse,
} from './schemas.js';

/** Customer updates: `POST /v2/customers/` (the body's shape selects plain fields or custom fields). */
export class Customers {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Updates a customer's fields (`name`, `telegram`, `facebook`, `email`, `instagram`, `twitter`; `crm` is
   * deprecated by the platform). Unknown keys are refused locally, so a typo is not silently ignored.
   *
   * @example
   * await platform.customers.update(customerUuid, { name: 'Aziza Karimova', email: 'aziza@example.com' });
   */
  update(uuid: string, customer: CustomerUpdate, options: CallOptions = {}): ApiPromise<DetailResponse> {
    return this.#http.run(async (json) => {
      const id = requireUuid(uuid, 'customers.update uuid');
      const c = argumentsCheck(customerUpdateSchema, customer, 'customers.update customer');
      const data = await json('platform', {
        method: 'POST',
        path: '/v2/customers/',
        body: { uuid: id, customer: c },
        idempotent: false,
        ...callOf(options),
      });
      return detailOf(data);
    });
  }

  /**
   * Sets custom fields of a customer: identifier → value, sent as `customer.custom_fields`.
   *
   * @example
   * await platform.customers.setCustomFields(customerUuid, { loyalty_tier: 'gold' });
   */
  setCustomFields(uuid: string, fields: CustomFields, options: CallOptions = {}): ApiPromise<DetailResponse> {
    return this.#http.run(async (json) => {
      const id = requireUuid(uuid, 'customers.setCustomFields uuid');
      const f = argumentsCheck(customFieldsSchema, fields, 'customers.setCustomFields fields');
      const data = await json('platform', {
        method: 'POST',
        path: '/v2/customers/',
        body: { uuid: id, customer: { custom_fields: wrapValues(f) } },
        idempotent: false,
        ...callOf(options),
      });
      return detailOf(data);
    });
  }
}
