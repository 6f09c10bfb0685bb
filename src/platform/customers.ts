import { z } from 'zod';
import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/call-options.js';
import { argumentsCheck, requireUuid, wrapValues } from './arguments.js';
import { type CustomFields, customFieldsSchema } from './fields.js';
import type { DetailResponse, PlatformHttp } from './http.js';

/** The `customer` of `POST /v2/customers/` (plain update). Unknown keys are refused, so a typo is caught. */
export const customerUpdateSchema = z
  .strictObject({
    name: z.string().optional(),
    /**
     * @deprecated The platform marks the `crm` update path to be deprecated; prefer a custom field
     * (`customers.setCustomFields`) for CRM identifiers.
     */
    crm: z.string().optional(),
    telegram: z.string().optional(),
    facebook: z.string().optional(),
    email: z.string().optional(),
    instagram: z.string().optional(),
    twitter: z.string().optional(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), { error: 'no customer field given' });
export type CustomerUpdate = z.input<typeof customerUpdateSchema>;

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
  update(uuid: string, customer: CustomerUpdate, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#http.operation('customers.update', '/v2/customers/', options, () => ({
      uuid: requireUuid(uuid, 'customers.update uuid'),
      customer: argumentsCheck(customerUpdateSchema, customer, 'customers.update customer'),
    }));
  }

  /**
   * Sets custom fields of a customer: identifier → value, sent as `customer.custom_fields`.
   *
   * @example
   * await platform.customers.setCustomFields(customerUuid, { loyalty_tier: 'gold' });
   */
  setCustomFields(
    uuid: string,
    fields: CustomFields,
    options: RequestOptions = {},
  ): ApiPromise<DetailResponse> {
    return this.#http.operation('customers.setCustomFields', '/v2/customers/', options, () => ({
      uuid: requireUuid(uuid, 'customers.setCustomFields uuid'),
      customer: {
        custom_fields: wrapValues(
          argumentsCheck(customFieldsSchema, fields, 'customers.setCustomFields fields'),
        ),
      },
    }));
  }
}
